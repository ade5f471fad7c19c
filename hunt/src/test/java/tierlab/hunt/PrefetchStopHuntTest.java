package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;

/**
 * The hunt profiles of the prefetch stop policies: with every fix on they stay clean for their
 * budget, their schedules run their own stop policy, and with P1's fix off the P1 profile finds the
 * race (a read landing after the stop is attached to the stopped lease: its lease counts break) and
 * shrinks it to a replayable schedule.
 */
class PrefetchStopHuntTest {
    static final long SEED = 42;
    /** Schedules per profile; {@code -Dtierlab.stopHuntBudget=N} runs a longer hunt. */
    static final int CLEAN_BUDGET = Integer.getInteger("tierlab.stopHuntBudget", 300);
    static final int FIND_BUDGET = 5_000;

    @Test
    void everyPrefetchStopProfileIsCleanWithEveryFixOn() {
        for (Profile profile : Profile.prefetchStops()) {
            Optional<Finding> found = Hunter.hunt(profile.name(), profile, Set.of(), SEED, CLEAN_BUDGET,
                    (schedule, result) -> true, null, System::nanoTime);
            assertTrue(found.isEmpty(), () -> profile.name() + ": " + found.get().violation() + "\n" + found.get().shrunk());
        }
    }

    @Test
    void theProfilesRunTheirOwnStopPolicy() {
        for (Profile profile : Profile.prefetchStops()) {
            org.quicktheories.QuickTheory.qt().withFixedSeed(SEED).withExamples(5)
                    .forAll(Generators.schedules(profile, Set.of()))
                    .check(schedule -> schedule.config().schedulerSettings().prefetchStop().settingText()
                            .equals(profile.prefetchStop()) && schedule.config().prefetchMaxRequests() > 0);
        }
    }

    @Test
    void theHuntFindsP1WithItsFixOff() {
        Optional<Finding> found = Hunter.hunt("P1 (fix off)", Profile.forRace("P1"),
                Set.of(KnownBug.P1_SERVE_READ_AFTER_STOP), SEED, FIND_BUDGET, (schedule, result) -> true, null,
                System::nanoTime);
        assertTrue(found.isPresent(), "P1 not found within " + FIND_BUDGET + " schedules");
        Finding finding = found.get();
        System.out.println("P1: " + finding.violation() + " after " + finding.schedulesTried() + " schedules, shrunk to "
                + finding.shrunk().length() + " steps");
        // The stopped lease's counts (a model error) or its slice's role counts (I3) break, whichever is checked first.
        assertTrue(Set.of(Check.MODEL_ERROR, Check.I3).contains(finding.violation().check()), finding.violation().toString());
        assertTrue(ReplayFile.of(finding).reproduces());
    }
}
