package tierlab.model.serving;

import tierlab.model.request.RequestOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import tierlab.model.io.IoOp;
import tierlab.model.serving.StepEngine.StepPhase;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;

/**
 * {@code saveTiming} at the engine, completions delivered by hand (the harness moves the clock 1 µs per
 * completion): a request of K = 4 full blocks and one output token, its save staged as 4 one-block copies
 * (per slot) or one 4-block copy (contiguous), 4 staging slots.
 */
class SaveTimingEngineTest {

    private static EngineHarness harness(SaveTiming timing, boolean contiguous) {
        StoreSettings store = TinyModel.store(64, 256).withStaging(4, contiguous);
        EngineHarness h = new EngineHarness(store, SchedulerSettings.defaults(512).withConcurrency(2).withSaveTiming(timing), 1, false);
        h.submit(1, 4 * 16, 1, BlockChains.named("a", 4));
        h.step();
        return h;
    }

    private static EngineScheduler engine(EngineHarness h) {
        return (EngineScheduler) h.scheduler;
    }

    private static long stagingCopiesPending(EngineHarness h) {
        return h.pending.stream().filter(op -> op instanceof IoOp.CopyFromGpu).count();
    }

    /** Completes A's compute (at 1 µs) and asserts the phase the step is in then and the staging copies pending. */
    private static void completeCompute(EngineHarness h, StepPhase expected, long copies) {
        h.completeFirst(op -> op instanceof IoOp.Compute);
        assertEquals(expected, engine(h).stepPhase());
        assertEquals(copies, stagingCopiesPending(h));
    }

    /** Completes the pending staging copies one by one (1 µs apart), checking the phase before the last lands. */
    private static void completeCopies(EngineHarness h, long copies, StepPhase phaseUntilLast) {
        for (int i = 1; i <= copies; i++) {
            h.completeFirst(op -> op instanceof IoOp.CopyFromGpu);
            if (i < copies) {
                assertEquals(phaseUntilLast, engine(h).stepPhase(), "copy " + i + " of " + copies + " landed");
                assertTrue(h.scheduler.finished().isEmpty(), "a request finishes only once its save is staged");
            }
        }
        assertEquals(StepPhase.IDLE, engine(h).stepPhase());
    }

    private static void assertFirstTokenAndFinish(EngineHarness h, long firstTokenNs, long finishNs) {
        assertEquals(firstTokenNs, h.scheduler.finished().get(0).firstTokenNs(), "first token");
        assertEquals(finishNs, h.scheduler.finished().get(0).finishNs(), "finish");
    }

    @Test
    void afterStepTheFirstTokenComesWithTheComputeAndTheSaveAfterIt() {
        EngineHarness h = harness(SaveTiming.AFTER_STEP, false);
        completeCompute(h, StepPhase.IDLE, 4); // t = 1 µs
        completeCopies(h, 4, StepPhase.IDLE); // t = 2..5 µs
        assertFirstTokenAndFinish(h, 1_000, 5_000);
    }

    @Test
    void inStepPerSlotTheStepEndsWithTheLastOfItsFourCopies() {
        EngineHarness h = harness(SaveTiming.IN_STEP, false);
        completeCompute(h, StepPhase.SAVING, 4); // the compute is done at 1 µs, its saves are not
        completeCopies(h, 4, StepPhase.SAVING); // t = 2..5 µs
        assertFirstTokenAndFinish(h, 5_000, 5_000);
    }

    @Test
    void inStepContiguousTheStepEndsWithItsOneCopy() {
        EngineHarness h = harness(SaveTiming.IN_STEP, true);
        completeCompute(h, StepPhase.SAVING, 1);
        completeCopies(h, 1, StepPhase.SAVING); // t = 2 µs
        assertFirstTokenAndFinish(h, 2_000, 2_000);
    }

    @Test
    void aHeldStepStartsNoOtherStepAndADecodeTokenWaitsWithIt() {
        // B (2 output tokens) is decoding when A's prompt completes in the same step: B's token waits too.
        StoreSettings store = TinyModel.store(64, 256).withStaging(4, false);
        EngineHarness h = new EngineHarness(store, SchedulerSettings.defaults(512).withConcurrency(2)
                .withSaveTiming(SaveTiming.IN_STEP), 1, false);
        h.submit(2, 16, 2, BlockChains.named("b", 1));
        h.step();
        h.completeFirst(op -> op instanceof IoOp.Compute); // B's prompt; its one copy is pending
        h.submit(1, 4 * 16, 1, BlockChains.named("a", 4)); // arrives while B's step is held
        h.step();
        assertEquals(StepPhase.SAVING, engine(h).stepPhase(), "A waits for the held step like any step");
        h.completeFirst(op -> op instanceof IoOp.CopyFromGpu); // B's step ends, B's first token; A is admitted
        assertEquals(StepPhase.COMPUTING, engine(h).stepPhase());
        assertTrue(h.scheduler.finished().isEmpty(), "B has 1 of its 2 tokens");
        h.completeFirst(op -> op instanceof IoOp.Compute); // B's decode and A's prompt in one step
        assertEquals(StepPhase.SAVING, engine(h).stepPhase());
        h.step();
        assertFalse(h.pending.stream().anyMatch(op -> op instanceof IoOp.Compute), "no next step while held");
        for (int i = 0; i < 4; i++) {
            h.completeFirst(op -> op instanceof IoOp.CopyFromGpu);
        }
        assertEquals(StepPhase.IDLE, engine(h).stepPhase());
        h.runToQuiescence(100);
        assertEquals(2, h.scheduler.finished().size());
        // B: prompt computed at 1 µs, its copy landed at 2 µs (first token); the next step's compute at 3 µs,
        // A's four copies at 4..7 µs: B's decode token and A's first token both come at 7 µs.
        RequestOutcome b = h.scheduler.finished().get(0);
        RequestOutcome a = h.scheduler.finished().get(1);
        assertEquals(2L, b.requestId());
        assertEquals(2_000, b.firstTokenNs());
        assertEquals(7_000, b.finishNs());
        assertEquals(7_000, a.firstTokenNs());
        assertEquals(7_000, a.finishNs());
        assertEquals(0, h.ledger.mismatches());
    }

    @Test
    void aRequestPreemptedWhileItsStepIsHeldLetsTheStepEnd() {
        EngineHarness h = harness(SaveTiming.IN_STEP, false);
        h.completeFirst(op -> op instanceof IoOp.Compute);
        assertEquals(StepPhase.SAVING, engine(h).stepPhase());
        assertTrue(h.scheduler.preempt(1, h.nowNs), "a fault campaign preempts A while its step is held");
        h.step();
        assertEquals(StepPhase.COMPUTING, engine(h).stepPhase(),
                "its save is cancelled: the held step ended and A's recompute is the next step");
        h.runToQuiescence(1_000);
        assertEquals(1, h.scheduler.finished().get(0).preemptions());
        assertEquals(0, h.ledger.mismatches());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void theSettingReadsItsTwoFormsAndNamesItselfOtherwise() {
        assertEquals(SaveTiming.AFTER_STEP, SaveTiming.parse("after-step"));
        assertEquals(SaveTiming.IN_STEP, SaveTiming.parse(" In-Step "));
        assertEquals(SaveTiming.AFTER_STEP, SchedulerSettings.defaults(8).saveTiming(), "the default keeps every result");
        tierlab.model.testkit.Rejections.assertRejectedLeading("scheduler.saveTiming: 'later' is not after-step or in-step",
                () -> SaveTiming.parse("later"));
        tierlab.model.testkit.Rejections.assertRejectedNaming("saveTiming", () -> SchedulerSettings.defaults(8).withSaveTiming(null));
    }
}
