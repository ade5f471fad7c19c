package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;

/** The runner on hand-written schedules: what passes, what each check catches, and the minimizer. */
class RunnerTest {

    @Test
    void aSaveThenAReadBackPassesAndVerifiesTheLoad() {
        ScheduleResult result = Runner.run(Schedules.tinyStore(List.of(new Step.Save(0, 1), new Step.Complete(0, true))));
        assertTrue(result.passed(), String.valueOf(result.violation()));
        assertEquals(2, result.stepsApplied());
        assertTrue(result.loadsVerified() >= 1, "the read-back loaded the saved block and the ledger checked it");
    }

    @Test
    void stepsThatDoNotApplyAreNoOps() {
        // Load, acquire and release without a lease; completion with nothing pending.
        ScheduleResult result = Runner.run(Schedules.tinyStore(List.of(new Step.Load(0), new Step.Acquire(1), new Step.Release(0),
                new Step.Complete(3, false))));
        assertTrue(result.passed());
        assertEquals(0, result.stepsApplied());
    }

    @Test
    void aVisibleBlockBeforeEveryLaneCommittedIsCaughtAsAPrefixViolation() {
        Schedule tp2 = new Schedule(new HuntConfig(HuntConfig.Level.STORE, 2, 4, 4, "lru", true, 0.05, 1, true, true, 2, 2, 1, 0, 2,
                0, 2, 4, Set.of(KnownBug.R12_VISIBLE_BEFORE_ALL_LANES)), List.of(new Step.Save(0, 1), new Step.Complete(0, true)));
        ScheduleResult result = Runner.run(tp2);
        assertFalse(result.passed());
        assertEquals(Check.I8, result.violation().check(), result.violation().toString());
        assertEquals(1, result.violation().stepIndex(), "seen right after the first lane's staging copy landed");
    }

    @Test
    void theMinimizerKeepsTheCheckAndRemovesWhatIsNotNeeded() {
        // R12 with tp 2, padded with steps that change nothing: one save is enough, the final drain completes its copies.
        Schedule padded = new Schedule(new HuntConfig(HuntConfig.Level.STORE, 2, 4, 4, "lru", true, 0.05, 1, true, true, 2, 2, 1, 0, 2,
                0, 2, 4, Set.of(KnownBug.R12_VISIBLE_BEFORE_ALL_LANES)), List.of(new Step.Load(0), new Step.Release(1),
                new Step.Save(0, 1), new Step.Lookup(0, 1, 1, 3), new Step.Complete(0, true), new Step.Load(1)));
        Schedule shrunk = Minimizer.minimize(padded, Check.I8, 500);
        assertEquals(List.of(new Step.Save(0, 1)), shrunk.steps());
        assertEquals(Check.I8, Runner.run(shrunk).violation().check());
    }

    @Test
    void anEngineScheduleFinishesEveryRequest() {
        Schedule engine = new Schedule(new HuntConfig(HuntConfig.Level.ENGINE, 1, 4, 8, "lru", true, 0.05, 1, true, true, 2, 2, 2, 1, 2,
                1, 3, 16, Set.of()), List.of(new Step.Arrive(0, 2, 5, 1), new Step.Arrive(1, 2, 0, 2), new Step.Complete(0, true),
                new Step.Arrive(0, 2, 9, 0)));
        ScheduleResult result = Runner.run(engine);
        assertTrue(result.passed(), String.valueOf(result.violation()));
        assertTrue(result.drainSteps() > 0);
    }
}
