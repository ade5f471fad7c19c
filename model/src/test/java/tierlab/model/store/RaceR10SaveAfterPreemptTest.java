package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * R10 (docs/tiered-store.md section 7), at the store's API: a request is preempted while its save is
 * still queued. No deferred store may read KV blocks that the engine has reused.
 *
 * <p>One staging slot, so X's save queues behind W's copy:
 *
 * <pre>
 *   save W (GPU 0..1) ── CopyFromGpu(W) in flight (the only staging slot)
 *   save X (GPU 2..3) ── reserved, waiting for the staging slot
 *   preempt X: cancelSaves(X)            fixed: X's queued batch dropped, its claims leave the index
 *                                        R10 bug: nothing happens
 *   engine reuses GPU 2..3 for Y's KV
 *   W's copy completes                   fixed: nothing else stages; bug: X stages from GPU 2..3 (Y's KV)
 *   drain; lookup + load X               fixed: X is a miss; bug: X is an L1 hit that loads Y's bytes
 * </pre>
 */
class RaceR10SaveAfterPreemptTest {

    private static final long W = 1;
    private static final long X = 2;
    private static final long X_READER = 3;
    private static final long X_GPU = 2;

    private final List<BlockKey> w = BlockChains.named("W", 2);
    private final List<BlockKey> x = BlockChains.named("X", 2);
    private final List<BlockKey> y = BlockChains.named("Y", 2);

    private StoreHarness harness(Set<KnownBug> bugs) {
        return new StoreHarness(TinyModel.store(16, 64).withStaging(1, true).withKnownBugs(bugs));
    }

    /** W stages, X's save waits for the staging slot; then X is preempted and its GPU blocks get Y's KV. */
    private IoOp.CopyFromGpu queueXBehindWThenPreemptX(StoreHarness h, boolean expectCancel) {
        h.save(W, w, 0);
        IoOp.CopyFromGpu wStaging = h.first(IoOp.CopyFromGpu.class);
        assertEquals(W, wStaging.requestId());
        h.save(X, x, X_GPU);
        assertEquals(1, h.pendingOf(IoOp.CopyFromGpu.class).size(), "X waits for the single staging slot");
        assertEquals(1, h.store.storeQueueDepth());
        assertNotNull(h.store.testView().l2Entry(x.get(0)), "X's blocks are claimed");

        boolean copying = h.store.cancelSaves(X, h.nowNs);
        h.collect();
        h.check();
        assertFalse(copying, "X had no staging copy in flight, so its GPU blocks are free at once");
        assertEquals(expectCancel ? 0 : 1, h.store.storeQueueDepth());

        // The engine hands X's GPU blocks to another request.
        h.computeOnGpu(y, StoreHarness.gpuBlocks(X_GPU, 2));
        return wStaging;
    }

    @Test
    void fixedModelHoldsNoSaveReadsReusedGpuBlocks() {
        StoreHarness h = harness(Set.of());
        IoOp.CopyFromGpu wStaging = queueXBehindWThenPreemptX(h, true);
        assertEquals(1, h.store.counter(StoreCounter.STORES_CANCELLED));
        assertNull(h.store.testView().l2Entry(x.get(0)), "the cancelled claims leave the index");
        assertNull(h.store.testView().l2Entry(x.get(1)));

        h.complete(wStaging);
        assertTrue(h.pendingOf(IoOp.CopyFromGpu.class).isEmpty(), "no staging copy is ever issued for X");
        h.drain();
        assertEquals(1, h.store.counter(StoreCounter.STAGING_COPIES), "only W's copy");
        assertEquals(2, h.store.counter(StoreCounter.STORE_UNITS_COMMITTED), "only W's two blocks");
        assertEquals(0, h.ledger.stagingMismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(List.of(), h.store.leftovers());

        assertEquals(LookupResult.HitClass.MISS, h.lookup(X_READER, x).hitClass(), "X's keys are not visible");
        assertEquals(LookupResult.HitClass.L1, h.lookup(W + 100, w).hitClass(), "W's save went through");
        h.release(W + 100);
        assertEquals(List.of(), h.store.leftovers());
    }

    @Test
    void ablationBreaksPreemptedSaveCopiesAnotherRequestsKv() {
        StoreHarness h = harness(Set.of(KnownBug.R10_SAVE_AFTER_PREEMPT));
        IoOp.CopyFromGpu wStaging = queueXBehindWThenPreemptX(h, false);
        assertEquals(0, h.store.counter(StoreCounter.STORES_CANCELLED));

        h.complete(wStaging);
        IoOp.CopyFromGpu xStaging = h.first(IoOp.CopyFromGpu.class);
        assertEquals(X, xStaging.requestId(), "the preempted request's save still stages");
        assertEquals(StoreHarness.gpuBlocks(X_GPU, 2), xStaging.gpuBlockIds());
        h.complete(xStaging);
        assertEquals(2, h.ledger.stagingMismatches(), "both blocks were copied from GPU blocks holding Y's KV");
        h.drain();
        assertEquals(2, h.store.counter(StoreCounter.STAGING_COPIES));

        LookupResult hit = h.lookup(X_READER, x);
        assertEquals(LookupResult.HitClass.L1, hit.hitClass(), "X is published with Y's bytes");
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(X_READER, 40, 2));
        h.drain();
        assertEquals(2, h.ledger.loadMismatches(), "a later load of X gets Y's KV");
        assertEquals(new Content(y.get(0), 0), h.ledger.l2At(h.unitsOf(x).get(0)), "L2 holds Y's KV under X's key");
    }
}
