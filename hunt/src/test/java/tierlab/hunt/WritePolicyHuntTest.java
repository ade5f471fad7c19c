package tierlab.hunt;

import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;

/**
 * The hunt profiles of the write policies and the admission filter: with every fix on they stay
 * clean for their budget, and with W1's fix off the W1 profile finds the race (I6: a promotion read
 * L2 before the write-back of its range landed) and shrinks it to a replayable schedule.
 */
class WritePolicyHuntTest {
    /** Schedules per profile; {@code -Dtierlab.writeHuntBudget=N} runs a longer hunt. */
    static final int CLEAN_BUDGET = Integer.getInteger("tierlab.writeHuntBudget", 300);

    @Test
    void everyWritePolicyProfileIsCleanWithEveryFixOn() {
        ProfileHunts.assertClean(Profile.writePolicies(), CLEAN_BUDGET);
    }

    @Test
    void theProfilesRunTheirOwnWritePolicy() {
        for (Profile profile : Profile.writePolicies()) {
            org.quicktheories.QuickTheory.qt().withFixedSeed(ProfileHunts.SEED).withExamples(5)
                    .forAll(Generators.schedules(profile, Set.of()))
                    .check(schedule -> schedule.config().storeSettings().l2WritePolicy().label().equals(profile.l2WritePolicy())
                            && schedule.config().storeSettings().l2Admission().label().equals(profile.l2Admission()));
        }
    }

    @Test
    void theHuntFindsW1WithItsFixOff() {
        ProfileHunts.assertFound(KnownBug.W1_PROMOTE_DURING_WRITE_BACK, check -> check == Check.I6);
    }
}
