package tierlab.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget.CodeUnitAccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.InstantSource;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.Timer;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.BaseStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shape of the house as executable rules (see docs/design.md): which module may depend
 * on which, and that nothing in {@code model/} or {@code sim/} reads a clock, draws unseeded
 * randomness, sleeps, starts threads or takes locks. Those decisions must be a function of the
 * events and the seed alone, so that a seed plus a commit reproduces any run exactly and the same
 * model classes behave identically in sim, hybrid and live mode.
 *
 * <p>The determinism rules are methods parametrised by package so that
 * {@link #determinismRulesCatchAViolatingFixture()} can prove they fail on a class that breaks
 * them; a rule that silently matches nothing would otherwise pass forever.
 */
class ArchitectureTest {

    private static final String MODEL = "tierlab.model..";
    private static final String ENGINE = "tierlab.engine..";
    private static final String SIM = "tierlab.sim..";
    /** Workloads and the pass metrics: they feed and measure every runtime, and decide with a seed alone too. */
    private static final String WORKLOAD = "tierlab.workload..";
    private static final String METRICS = "tierlab.metrics..";
    private static final String EXPERIMENTS = "tierlab.experiments..";
    private static final String FIXTURE = "tierlab.architecture.fixture..";

    private static final String DETERMINISM =
            "the model and the simulator must decide the same way on every run from the same events and"
                    + " seed: time arrives as a long nowNs parameter, randomness from a seeded generator"
                    + " split per component, and concurrency only as events (docs/design.md, Ports)";

    /** Production classes of every module; test classes (and the fixture) are left out. */
    private static JavaClasses productionClasses;

    @BeforeAll
    static void importProductionClasses() {
        productionClasses = ProductionClasses.all();
    }

    // ---- sanity: the rules below look at real classes ----------------------------------------

    @Test
    void importSeesTheModelAndNotTheTests() {
        // If ArchUnit could not read the class files (say, a newer class file version than its ASM
        // knows), it would import nothing and every rule below would pass without checking anything.
        assertTrue(productionClasses.stream().anyMatch(c -> c.getPackageName().startsWith("tierlab.model")),
                "no class of tierlab.model was imported; the architecture rules would check nothing");
        assertFalse(productionClasses.stream().anyMatch(c -> c.getPackageName().startsWith("tierlab.architecture")),
                "test classes were imported as production classes");
    }

    // ---- (a) model is pure ------------------------------------------------------------------

    @Test
    void modelDependsOnlyOnTheJdkAndItself() {
        classes().that().resideInAPackage(MODEL)
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", MODEL)
                .because("model/ is the one control plane for sim, hybrid and live mode and must run"
                        + " anywhere the JDK runs, so it imports nothing outside java.. (docs/design.md)")
                .check(productionClasses);
    }

    // ---- (b) determinism in model and sim ---------------------------------------------------

    @Test
    void modelAndSimNeverReadTheClock() {
        noClockReads(MODEL, SIM, WORKLOAD, METRICS).check(productionClasses);
    }

    @Test
    void modelAndSimNeverDrawUnseededRandomness() {
        noUnseededRandomness(MODEL, SIM, WORKLOAD, METRICS).check(productionClasses);
    }

    @Test
    void modelAndSimNeverSleepOrStartThreads() {
        noSleepingOrThreads(MODEL, SIM, WORKLOAD, METRICS).check(productionClasses);
    }

    @Test
    void modelAndSimNeverUseExecutorsAsyncFuturesOrLocks() {
        noExecutorsOrLocks(MODEL, SIM, WORKLOAD, METRICS).check(productionClasses);
    }

    /** System.nanoTime, System.currentTimeMillis, any java.time {@code now(...)}, and any Clock. */
    static ArchRule noClockReads(String... packages) {
        return noClasses().that().resideInAnyPackage(packages)
                .should().accessTargetWhere(accessTo(System.class, "nanoTime", "currentTimeMillis"))
                .orShould().accessTargetWhere(target("call java.time.*.now(...)",
                        a -> a.getTargetOwner().getPackageName().equals("java.time") && a.getName().equals("now")))
                .orShould().dependOnClassesThat().areAssignableTo(InstantSource.class)
                .orShould().dependOnClassesThat().belongToAnyOf(Clock.class)
                .because("reading the wall clock makes a run depend on when it ran; " + DETERMINISM)
                .allowEmptyShould(true);
    }

    /**
     * Constructing Random (or a subclass such as SecureRandom), ThreadLocalRandom, Math.random, and
     * the other JDK entry points that seed themselves from the environment.
     */
    static ArchRule noUnseededRandomness(String... packages) {
        return noClasses().that().resideInAnyPackage(packages)
                .should().accessTargetWhere(target("construct java.util.Random or a subclass (e.g. SecureRandom)",
                        a -> isConstructor(a) && a.getTargetOwner().isAssignableTo(Random.class)))
                .orShould().dependOnClassesThat().belongToAnyOf(ThreadLocalRandom.class, SecureRandom.class)
                .orShould().accessTargetWhere(accessTo(Math.class, "random"))
                .orShould().accessTargetWhere(accessTo(StrictMath.class, "random"))
                .orShould().accessTargetWhere(accessTo(UUID.class, "randomUUID"))
                .orShould().accessTargetWhere(accessTo(RandomGenerator.class, "getDefault", "of"))
                .orShould().accessTargetWhere(target("call RandomGeneratorFactory.create() without a seed",
                        a -> a.getTargetOwner().isEquivalentTo(RandomGeneratorFactory.class)
                                && a.getName().equals("create") && parameterCount(a) == 0))
                .orShould().accessTargetWhere(target("construct SplittableRandom without a seed",
                        a -> isConstructor(a) && a.getTargetOwner().isEquivalentTo(SplittableRandom.class)
                                && parameterCount(a) == 0))
                .orShould().accessTargetWhere(target("call Collections.shuffle(list) without a Random",
                        a -> a.getTargetOwner().isEquivalentTo(Collections.class)
                                && a.getName().equals("shuffle") && parameterCount(a) == 1))
                .because("unseeded randomness makes two runs with the same seed differ; " + DETERMINISM)
                .allowEmptyShould(true);
    }

    /** Thread.sleep and friends, constructing or starting threads or timers, parallel streams. */
    static ArchRule noSleepingOrThreads(String... packages) {
        return noClasses().that().resideInAnyPackage(packages)
                .should().accessTargetWhere(accessTo(Thread.class,
                        "sleep", "yield", "ofPlatform", "ofVirtual", "startVirtualThread"))
                .orShould().accessTargetWhere(target("construct java.lang.Thread or a subclass",
                        a -> isConstructor(a) && a.getTargetOwner().isAssignableTo(Thread.class)))
                .orShould().accessTargetWhere(target("construct java.util.Timer",
                        a -> isConstructor(a) && a.getTargetOwner().isAssignableTo(Timer.class)))
                .orShould().accessTargetWhere(target("use a parallel stream",
                        a -> a.getName().equals("parallelStream")
                                || (a.getName().equals("parallel") && a.getTargetOwner().isAssignableTo(BaseStream.class))))
                .because("waiting is state, not blocking, and the OS scheduler must not pick the order of"
                        + " decisions; " + DETERMINISM)
                .allowEmptyShould(true);
    }

    /** Executors and ExecutorServices, CompletableFuture's *Async methods, java.util.concurrent.locks. */
    static ArchRule noExecutorsOrLocks(String... packages) {
        return noClasses().that().resideInAnyPackage(packages)
                .should().dependOnClassesThat().areAssignableTo(Executor.class)
                .orShould().dependOnClassesThat().belongToAnyOf(Executors.class)
                .orShould().accessTargetWhere(target("call CompletableFuture.*Async(...)",
                        a -> a.getTargetOwner().isAssignableTo(CompletableFuture.class)
                                && a.getName().endsWith("Async")))
                .orShould().dependOnClassesThat().resideInAPackage("java.util.concurrent.locks..")
                .because("work handed to other threads completes in an order the run does not control;"
                        + " the model is single-threaded and driven by events; " + DETERMINISM)
                .allowEmptyShould(true);
    }

    // ---- (c) dependencies point one way -----------------------------------------------------

    @Test
    void modelDependsOnNoOtherModule() {
        noClasses().that().resideInAPackage(MODEL)
                .should().dependOnClassesThat().resideInAnyPackage(ENGINE, SIM, EXPERIMENTS)
                .because("model/ knows nothing of the mode it runs in (docs/design.md)")
                .check(productionClasses);
    }

    @Test
    void engineDependsNeitherOnSimNorOnExperiments() {
        noClasses().that().resideInAPackage(ENGINE)
                .should().dependOnClassesThat().resideInAnyPackage(SIM, EXPERIMENTS)
                .because("the live engine depends on model/ only; sim may use the engine, not the other way")
                .allowEmptyShould(true)
                .check(productionClasses);
    }

    @Test
    void simDoesNotDependOnExperiments() {
        noClasses().that().resideInAPackage(SIM)
                .should().dependOnClassesThat().resideInAPackage(EXPERIMENTS)
                .because("experiments/ drives the simulator; the simulator never reaches back into it")
                .allowEmptyShould(true)
                .check(productionClasses);
    }

    // ---- the rules can fail -----------------------------------------------------------------

    @Test
    void determinismRulesCatchAViolatingFixture() {
        // A separate importer without DO_NOT_INCLUDE_TESTS: the fixture lives in test sources.
        JavaClasses fixture = new ClassFileImporter().importPackages("tierlab.architecture.fixture");
        assertFalse(fixture.isEmpty(), "the fixture class was not imported");

        assertViolates(noClockReads(FIXTURE), fixture, "nanoTime");
        assertViolates(noUnseededRandomness(FIXTURE), fixture, "java.util.Random");
        assertViolates(noSleepingOrThreads(FIXTURE), fixture, "sleep");
        assertViolates(noExecutorsOrLocks(FIXTURE), fixture, "ReentrantLock");
    }

    private static void assertViolates(ArchRule rule, JavaClasses imported, String expectedInReport) {
        EvaluationResult result = rule.evaluate(imported);
        assertTrue(result.hasViolation(), "rule did not fire on the fixture: " + rule.getDescription());
        String report = String.join("\n", result.getFailureReport().getDetails());
        assertTrue(report.contains(expectedInReport),
                "the report should name " + expectedInReport + " but was:\n" + report);
    }

    // ---- predicates -------------------------------------------------------------------------

    /**
     * A call to, or a method reference of, one of the named methods declared on {@code owner}.
     * accessTargetWhere sees method references ({@code System::nanoTime}) as well as calls.
     */
    private static DescribedPredicate<JavaAccess<?>> accessTo(Class<?> owner, String... methodNames) {
        Set<String> names = Set.of(methodNames);
        return target("call " + owner.getName() + "." + String.join("/", List.of(methodNames)) + "(...)",
                a -> a.getTargetOwner().isEquivalentTo(owner) && names.contains(a.getName()));
    }

    private static DescribedPredicate<JavaAccess<?>> target(String description, Predicate<JavaAccess<?>> test) {
        return DescribedPredicate.describe(description, test);
    }

    private static boolean isConstructor(JavaAccess<?> access) {
        return access.getName().equals(JavaConstructor.CONSTRUCTOR_NAME);
    }

    /** Parameter count of a called or referenced method or constructor, -1 for field accesses. */
    private static int parameterCount(JavaAccess<?> access) {
        return access.getTarget() instanceof CodeUnitAccessTarget codeUnit
                ? codeUnit.getRawParameterTypes().size()
                : -1;
    }
}
