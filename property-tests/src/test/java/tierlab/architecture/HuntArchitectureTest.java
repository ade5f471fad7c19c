package tierlab.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import java.time.Clock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The hunt module's rules: a schedule's run is a pure function of the schedule, so nothing in
 * {@code tierlab.hunt} reads the wall clock, draws unseeded randomness or starts threads; only the
 * deep profile's command ({@code HuntCommand}) reads the clock, for its deadline and progress rate.
 * The hunt builds on model, sim and engine, never on the experiments command line.
 */
class HuntArchitectureTest {
    private static final String HUNT = "tierlab.hunt..";
    private static JavaClasses productionClasses;

    @BeforeAll
    static void importProductionClasses() {
        productionClasses = ProductionClasses.all();
        assertTrue(productionClasses.stream().anyMatch(c -> c.getName().equals("tierlab.hunt.StoreRunner")),
                "the hunt classes were not imported; the rules below would check nothing");
    }

    @Test
    void onlyTheDeepProfileCommandReadsTheClock() {
        noClasses().that().resideInAPackage(HUNT).and().doNotHaveFullyQualifiedName("tierlab.hunt.HuntCommand")
                .should().callMethod(System.class, "nanoTime")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().dependOnClassesThat().belongToAnyOf(Clock.class)
                .because("a schedule must replay the same way from its file alone; the hunt's deadline is the only clock")
                .check(productionClasses);
    }

    @Test
    void huntNeverDrawsUnseededRandomnessOrStartsThreads() {
        ArchitectureTest.noUnseededRandomness(HUNT).check(productionClasses);
        ArchitectureTest.noSleepingOrThreads(HUNT).check(productionClasses);
    }

    @Test
    void huntDoesNotDependOnTheExperimentsCommandLine() {
        noClasses().that().resideInAPackage(HUNT)
                .should().dependOnClassesThat().resideInAPackage("tierlab.experiments..")
                .because("the hunt depends on model, sim and engine only; experiments registers its command")
                .check(productionClasses);
    }
}
