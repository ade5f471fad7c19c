package tierlab.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where {@code bench/} sits: above engine and sim (it measures the one and fits the other), below
 * experiments (whose {@code bench engine} command and calibration experiment call it). A rule of
 * its own class, beside {@link ArchitectureTest}, so that the module's place is stated where the
 * module is introduced.
 */
class BenchModuleArchitectureTest {

    private static final String BENCH = "tierlab.bench..";

    private static JavaClasses productionClasses;

    @BeforeAll
    static void importProductionClasses() {
        productionClasses = ProductionClasses.all();
    }

    @Test
    void theBenchModuleIsImported() {
        // Without this, a rule below that matches no class would pass without checking anything.
        assertTrue(productionClasses.stream().anyMatch(c -> c.getPackageName().equals("tierlab.bench")),
                "no class of tierlab.bench was imported");
    }

    @Test
    void nothingBelowTheBenchModuleImportsIt() {
        noClasses().that().resideInAnyPackage("tierlab.model..", "tierlab.engine..", "tierlab.sim..", "tierlab.hunt..")
                .should().dependOnClassesThat().resideInAPackage(BENCH)
                .because("measuring and calibrating devices is a tool over the runtime, never part of a run;"
                        + " model, engine, sim and hunt must build and run without it")
                .check(productionClasses);
    }

    @Test
    void theBenchModuleDoesNotReachUpIntoExperiments() {
        noClasses().that().resideInAPackage(BENCH)
                .should().dependOnClassesThat().resideInAPackage("tierlab.experiments..")
                .because("experiments/ drives the benchmarks and the calibration; they never reach back into it")
                .check(productionClasses);
    }
}
