package tierlab.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tierlab.model.serving.ServingEngine;

/**
 * The modules as layers, arrows pointing down only: model → workload → engine → sim → hunt →
 * experiments (a module may use any module below it, never one above); no cycle between packages;
 * the simulator reaches the real engine only from its hybrid package, where real bytes meet
 * simulated time (everything else in sim runs on the model and its ports alone); and what live runs
 * and {@code validate} share with the simulator (workloads, traces, metrics, the engine and its live
 * runtime) imports nothing from {@code tierlab.sim}.
 */
class LayeringTest {

    private static JavaClasses productionClasses;

    @BeforeAll
    static void importProductionClasses() {
        productionClasses = ProductionClasses.all();
    }

    @Test
    void noModuleDependsOnAModuleAboveIt() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("model").definedBy("tierlab.model..")
                .layer("workload").definedBy("tierlab.workload..", "tierlab.metrics..")
                .layer("engine").definedBy("tierlab.engine..")
                .layer("sim").definedBy("tierlab.sim..")
                .layer("hunt").definedBy("tierlab.hunt..")
                .layer("experiments").definedBy("tierlab.experiments..")
                .whereLayer("experiments").mayNotBeAccessedByAnyLayer()
                .whereLayer("hunt").mayOnlyBeAccessedByLayers("experiments")
                .whereLayer("sim").mayOnlyBeAccessedByLayers("hunt", "experiments")
                .whereLayer("engine").mayOnlyBeAccessedByLayers("sim", "hunt", "experiments")
                .whereLayer("workload").mayOnlyBeAccessedByLayers("engine", "sim", "hunt", "experiments")
                .because("each module builds on the ones below it; an arrow back up would make the control plane"
                        + " depend on how it is run")
                .check(productionClasses);
    }

    @Test
    void noPackageCycles() {
        slices().matching("tierlab.(**)")
                .should().beFreeOfCycles()
                .because("a cycle between packages makes them one unit that can only change together")
                .check(productionClasses);
    }

    @Test
    void simReachesTheEngineOnlyFromItsHybridPackage() {
        noClasses().that().resideInAPackage("tierlab.sim..")
                .and().resideOutsideOfPackage("tierlab.sim.hybrid..")
                .should().dependOnClassesThat().resideInAPackage("tierlab.engine..")
                .because("sim devices implement the model's ports; only hybrid mode runs real engine bytes under"
                        + " simulated time")
                .check(productionClasses);
    }

    @Test
    void whatLiveRunsShareImportsNothingFromTheSimulator() {
        noClasses().that().resideInAnyPackage("tierlab.workload..", "tierlab.metrics..", "tierlab.engine..")
                .should().dependOnClassesThat().resideInAPackage("tierlab.sim..")
                .because("workloads, traces, metrics, the engine and the live runtime serve live runs and validate as"
                        + " much as the simulator; a live run must not load simulator classes")
                .check(productionClasses);
    }

    @Test
    void workloadsAndMetricsDependOnTheModelAlone() {
        noClasses().that().resideInAnyPackage("tierlab.workload..", "tierlab.metrics..")
                .should().dependOnClassesThat().resideInAnyPackage("tierlab.engine..", "tierlab.hunt..",
                        "tierlab.bench..", "tierlab.experiments..", "tierlab.spark..")
                .because("workloads and metrics sit below every runtime")
                .check(productionClasses);
    }

    @Test
    void everyUserOfAServingEngineGoesThroughThePort() {
        noClasses().that().resideOutsideOfPackage("tierlab.model.serving..")
                .should().dependOnClassesThat().implement(ServingEngine.class)
                .because("runtimes, the hunt and the runner hold the ServingEngine port and create engines through"
                        + " ServingEngines, so a new engine is one class and one registry entry")
                .check(productionClasses);
    }
}
