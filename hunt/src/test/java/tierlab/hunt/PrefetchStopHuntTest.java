package tierlab.hunt;

import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;

/**
 * The hunt profiles of the prefetch stop policies: with every fix on they stay clean for their
 * budget, their schedules run their own stop policy, and with P1's fix off the P1 profile finds the
 * race (a read landing after the stop is attached to the stopped lease: its slice's role counts (I3)
 * or the lease's own counts break) and shrinks it to a replayable schedule.
 */
class PrefetchStopHuntTest {
    /** Schedules per profile; {@code -Dtierlab.stopHuntBudget=N} runs a longer hunt. */
    static final int CLEAN_BUDGET = Integer.getInteger("tierlab.stopHuntBudget", 300);

    @Test
    void everyPrefetchStopProfileIsCleanWithEveryFixOn() {
        ProfileHunts.assertClean(Profile.prefetchStops(), CLEAN_BUDGET);
    }

    @Test
    void theProfilesRunTheirOwnStopPolicy() {
        for (Profile profile : Profile.prefetchStops()) {
            org.quicktheories.QuickTheory.qt().withFixedSeed(ProfileHunts.SEED).withExamples(5)
                    .forAll(Generators.schedules(profile, Set.of()))
                    .check(schedule -> schedule.config().schedulerSettings().prefetchStop().settingText()
                            .equals(profile.prefetchStop()) && schedule.config().prefetchMaxRequests() > 0);
        }
    }

    @Test
    void theHuntFindsP1WithItsFixOff() {
        ProfileHunts.assertFound(KnownBug.P1_SERVE_READ_AFTER_STOP, check -> check == Check.I3 || check == Check.MODEL_ERROR);
    }
}
