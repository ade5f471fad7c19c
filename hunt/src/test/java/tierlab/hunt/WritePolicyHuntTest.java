package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;

/**
 * The hunt profiles of the write policies and the admission filter: with every fix on they stay
 * clean for their budget, and with W1's fix off the W1 profile finds the race (I6: a promotion read
 * L2 before the write-back of its range landed) and shrinks it to a replayable schedule.
 */
class WritePolicyHuntTest {
    static final long SEED = 42;
    /** Schedules per profile; {@code -Dtierlab.writeHuntBudget=N} runs a longer hunt. */
    static final int CLEAN_BUDGET = Integer.getInteger("tierlab.writeHuntBudget", 300);
    static final int FIND_BUDGET = 5_000;

    @Test
    void everyWritePolicyProfileIsCleanWithEveryFixOn() {
        for (Profile profile : Profile.writePolicies()) {
            Optional<Finding> found = Hunter.hunt(profile.name(), profile, Set.of(), SEED, CLEAN_BUDGET,
                    (schedule, result) -> true, null, System::nanoTime);
            assertTrue(found.isEmpty(), () -> profile.name() + ": " + found.get().violation() + "\n" + found.get().shrunk());
        }
    }

    @Test
    void theProfilesRunTheirOwnWritePolicy() {
        for (Profile profile : Profile.writePolicies()) {
            org.quicktheories.QuickTheory.qt().withFixedSeed(SEED).withExamples(5)
                    .forAll(Generators.schedules(profile, Set.of()))
                    .check(schedule -> schedule.config().storeSettings().l2WritePolicy().label().equals(profile.l2WritePolicy())
                            && schedule.config().storeSettings().l2Admission().label().equals(profile.l2Admission()));
        }
    }

    @Test
    void theHuntFindsW1WithItsFixOff() {
        Optional<Finding> found = Hunter.hunt("W1 (fix off)", Profile.forRace("W1"),
                Set.of(KnownBug.W1_PROMOTE_DURING_WRITE_BACK), SEED, FIND_BUDGET, (schedule, result) -> true, null,
                System::nanoTime);
        assertTrue(found.isPresent(), "W1 not found within " + FIND_BUDGET + " schedules");
        Finding finding = found.get();
        System.out.println("W1: " + finding.violation() + " after " + finding.schedulesTried() + " schedules, shrunk to "
                + finding.shrunk().length() + " steps");
        assertEquals(Check.I6, finding.violation().check(), finding.violation().toString());
        assertTrue(ReplayFile.of(finding).reproduces());
    }
}
