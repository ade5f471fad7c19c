package tierlab.hunt;

import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.serving.SaveTiming;

/**
 * The hunt profiles of {@code saveTiming: in-step}: with every fix on they stay clean for their budget
 * (engine and store invariants, the payload ledger, liveness), and their schedules run the in-step
 * save timing.
 */
class SaveInStepHuntTest {
    /** Schedules per profile; {@code -Dtierlab.saveInStepHuntBudget=N} runs a longer hunt. */
    static final int CLEAN_BUDGET = Integer.getInteger("tierlab.saveInStepHuntBudget", 300);

    @Test
    void everySaveInStepProfileIsCleanWithEveryFixOn() {
        ProfileHunts.assertClean(Profile.saveInStep(), CLEAN_BUDGET);
    }

    @Test
    void theProfilesRunTheInStepSaveTiming() {
        for (Profile profile : Profile.saveInStep()) {
            org.quicktheories.QuickTheory.qt().withFixedSeed(ProfileHunts.SEED).withExamples(5)
                    .forAll(Generators.schedules(profile, Set.of()))
                    .check(schedule -> schedule.config().schedulerSettings().saveTiming() == SaveTiming.IN_STEP
                            && schedule.config().saveTiming().equals(profile.saveTiming()));
        }
    }
}
