package tierlab.model.serving;

import tierlab.model.request.RequestOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;

/**
 * R10 (docs/tiered-store.md section 7) through the engine: a request is preempted with its save still
 * queued, and the engine gives its GPU blocks to another request before the save would run.
 *
 * <p>Prompts of 40 tokens (2 full blocks + 8) with 4 output tokens need 3 GPU blocks each; the GPU
 * has 9; one staging slot:
 *
 * <pre>
 *   step 0: prefill W (GPU 0,1,2) and X (GPU 3,4,5)      free: 6,7,8
 *   step 0 done: save W stages (the only slot), save X queued; step 1 (decode W, X) starts
 *   Y arrives; engine.preempt(X)                           fixed: X's queued save cancelled
 *                                                          free: 6,7,8,3,4,5
 *   step 1 done; admission: X → GPU 6,7,8, Y → GPU 3,4,5
 *   step 2 done: Y's KV is in GPU 3,4 (X's old blocks)
 *   W's staging copy completes                             fixed: X's new save stages from 6,7
 *                                                          R10 bug: X's old save stages from 3,4 = Y's KV
 *   run to the end; warm request for X's prompt            bug: loads Y's KV as X's
 * </pre>
 */
class RaceR10PreemptionEngineTest {
    private static final long W = 1;
    private static final long X = 2;
    private static final long Y = 3;
    private static final long X_WARM = 4;
    private static final long PROMPT = 40;
    private static final long OUTPUT = 4;

    private final List<BlockKey> w = BlockChains.named("W", 2);
    private final List<BlockKey> x = BlockChains.named("X", 2);
    private final List<BlockKey> y = BlockChains.named("Y", 2);

    private static EngineHarness harness(Set<KnownBug> bugs) {
        StoreSettings store = TinyModel.store(32, 64)
                .withStaging(1, true).withKnownBugs(bugs);
        return new EngineHarness(store, SchedulerSettings.defaults(9), 1, false);
    }

    private static boolean isCompute(IoOp op) {
        return op instanceof IoOp.Compute;
    }

    private static boolean isStagingOf(IoOp op, long requestId) {
        return op instanceof IoOp.CopyFromGpu copy && copy.requestId() == requestId;
    }

    /** Drives the interleaving up to the point where W's staging copy is the one to complete next. */
    private void preemptXWithItsSaveQueued(EngineHarness h) {
        h.submit(W, PROMPT, OUTPUT, w);
        h.submit(X, PROMPT, OUTPUT, x);
        h.step();
        assertEquals(2, h.scheduler.runningCount());
        assertEquals(3, h.scheduler.freeGpuBlockCount());

        // Step 0 (prefill of both) lands: both saves are queued, W's stages, X's waits for the slot.
        h.completeFirst(RaceR10PreemptionEngineTest::isCompute);
        assertEquals(1, h.pending.stream().filter(op -> isStagingOf(op, W)).count());
        assertEquals(0, h.pending.stream().filter(op -> isStagingOf(op, X)).count(), "X's save waits for the staging slot");
        assertEquals(1, h.store.storeQueueDepth());
        assertEquals(1, h.pending.stream().filter(RaceR10PreemptionEngineTest::isCompute).count(), "decode step 1 is running");

        // Y arrives; X is preempted (the engine needs its blocks).
        h.submit(Y, PROMPT, OUTPUT, y);
        assertTrue(h.scheduler.preempt(X, h.nowNs));
        h.scheduler.checkInvariants();
        assertEquals(6, h.scheduler.freeGpuBlockCount(), "no staging copy reads X's blocks, so they are free at once");

        // Step 1 lands; admission gives X the older free blocks and Y X's old ones; step 2 prefills both.
        h.completeFirst(RaceR10PreemptionEngineTest::isCompute);
        assertEquals(3, h.scheduler.runningCount());
        h.completeFirst(RaceR10PreemptionEngineTest::isCompute);
        assertTrue(h.pending.stream().anyMatch(op -> isStagingOf(op, W)), "W's staging copy is still in flight");
    }

    /** A warm request for X's prompt after everything settled: loads what the store holds under X's keys. */
    private static void warmReadOfX(EngineHarness h, List<BlockKey> x) {
        h.submit(X_WARM, PROMPT, 1, x);
        h.runToQuiescence(100_000);
    }

    @Test
    void fixedModelHoldsPreemptedSaveNeverCopiesReusedBlocks() {
        EngineHarness h = harness(Set.of());
        preemptXWithItsSaveQueued(h);
        assertEquals(1, h.store.counter(StoreCounter.STORES_CANCELLED));

        IoOp.CopyFromGpu next = (IoOp.CopyFromGpu) h.completeFirst(op -> isStagingOf(op, W));
        assertEquals(W, next.requestId());
        IoOp.CopyFromGpu xStaging = (IoOp.CopyFromGpu) h.pending.stream()
                .filter(op -> isStagingOf(op, X)).findFirst().orElseThrow();
        assertEquals(List.of(6L, 7L), xStaging.gpuBlockIds(), "X's save reads the blocks X computed after re-admission");

        h.runToQuiescence(100_000);
        assertEquals(List.of(W, X, Y), h.scheduler.finishedIds().stream().sorted().toList());
        assertEquals(1, h.scheduler.preemptions());
        assertEquals(0, h.ledger.stagingMismatches(), h.ledger.mismatchExamples().toString());

        warmReadOfX(h, x);
        RequestOutcome warm = h.scheduler.finished().stream().filter(o -> o.requestId() == X_WARM).findFirst().orElseThrow();
        assertEquals(HitClass.L1, warm.hitClass());
        assertEquals(32, warm.hitTokens());
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
        assertTrue(h.ledger.loadMatches() >= 2);
        assertTrue(h.scheduler.allFinished());
        assertEquals(List.of(), h.store.leftovers());
    }

    @Test
    void ablationBreaksPreemptedSaveCopiesAnotherRequestsKv() {
        EngineHarness h = harness(Set.of(KnownBug.R10_SAVE_AFTER_PREEMPT));
        preemptXWithItsSaveQueued(h);
        assertEquals(0, h.store.counter(StoreCounter.STORES_CANCELLED));

        h.completeFirst(op -> isStagingOf(op, W));
        IoOp.CopyFromGpu xStaging = (IoOp.CopyFromGpu) h.pending.stream()
                .filter(op -> isStagingOf(op, X)).findFirst().orElseThrow();
        assertEquals(List.of(3L, 4L), xStaging.gpuBlockIds(), "X's pre-preemption save still reads its old blocks");
        h.completeFirst(op -> op == xStaging);
        assertEquals(2, h.ledger.stagingMismatches(), "both blocks were Y's KV: " + h.ledger.mismatchExamples());

        h.runToQuiescence(100_000);
        warmReadOfX(h, x);
        assertEquals(2, h.ledger.loadMismatches(), "the warm request for X's prompt loads Y's KV");
    }
}
