package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.l2.L2Snapshot;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * R11 (docs/tiered-store.md section 7): the L2 ring re-allocates a run while a store (or its commit)
 * for it is still on its way. The late store must be dropped, never written over the new owner.
 *
 * <p>An L2 ring of two slots. The main interleaving has two staging slots, so that C can overtake
 * A, whose copy is slow:
 *
 * <pre>
 *   save A → slot 0, CopyFromGpu(A) in flight
 *   save B → slot 1, CopyFromGpu(B) in flight (both staging slots busy)
 *   save C → ring wraps: A's run evicted (A's claim leaves the index), C gets slot 0, queued
 *   B's copy completes → B commits; C stages, commits on slot 0, L2Write(C) completes
 *   A's copy completes                 fixed: A's unit dropped, no L2 write
 *                                      R11 bug: A commits late, L2Write(A) lands on slot 0 over C
 *   restart with an empty L1, load C from L2   bug: C's load returns A's bytes
 * </pre>
 *
 * A second fixed-model test covers the variant with one staging slot, where A's copy has not even
 * started when its run is evicted.
 */
class RaceR11ReallocatedSlotTest {

    private static final long A = 1;
    private static final long B = 2;
    private static final long C = 3;
    private static final long C_READER = 10;

    private final List<BlockKey> a = BlockChains.named("A", 1);
    private final List<BlockKey> b = BlockChains.named("B", 1);
    private final List<BlockKey> c = BlockChains.named("C", 1);

    private static StoreSettings twoSlotRing(int stagingSlots, Set<KnownBug> bugs) {
        return TinyModel.store(8, 2).withStaging(stagingSlots, true).withKnownBugs(bugs);
    }

    private static boolean isStagingOf(IoOp op, long requestId) {
        return op instanceof IoOp.CopyFromGpu copy && copy.requestId() == requestId;
    }

    /** Runs the interleaving up to A's late staging completion, which it returns uncompleted. */
    private IoOp.CopyFromGpu cOvertakesA(StoreHarness h) {
        h.save(A, a, 0);
        assertEquals(0, h.store.testView().l2Entry(a.get(0)).slot());
        h.save(B, b, 1);
        assertEquals(2, h.pendingOf(IoOp.CopyFromGpu.class).size());
        IoOp.CopyFromGpu aStaging = (IoOp.CopyFromGpu) h.first(op -> isStagingOf(op, A));

        h.save(C, c, 2);
        assertEquals(1, h.store.counter(StoreCounter.L2_RUNS_EVICTED), "the ring wrapped over A's run");
        assertNull(h.store.testView().l2Entry(a.get(0)), "A's claim left the index");
        assertEquals(0, h.store.testView().l2Entry(c.get(0)).slot(), "C owns A's slot now");

        h.complete(h.first(op -> isStagingOf(op, B)));
        h.complete(h.first(op -> isStagingOf(op, C)));
        IoOp.L2Write cWrite = (IoOp.L2Write) h.first(op -> op instanceof IoOp.L2Write write
                && write.l2Offset() == h.store.testView().unitOffset(0, 0));
        h.complete(cWrite);
        assertEquals(new Content(c.get(0), 0), h.ledger.l2At(h.store.testView().unitOffset(0, 0)));
        drainExcept(h, aStaging);
        return aStaging;
    }

    /** Completes every pending op, first in first out, except the one held back. */
    private static void drainExcept(StoreHarness h, IoOp heldBack) {
        while (h.pending.size() > 1 || (h.pending.size() == 1 && h.pending.get(0) != heldBack)) {
            h.complete(h.first(op -> op != heldBack));
        }
        assertEquals(List.of(heldBack), h.pending);
    }

    /** Loads C from L2 through a store restarted with an empty L1 over the same L2 bytes. */
    private static void loadCFromL2(StoreHarness h, List<BlockKey> c, StoreSettings settings) {
        L2Snapshot snapshot = h.store.snapshot();
        StoreHarness restarted = new StoreHarness(TieredStore.restore(settings, snapshot, new DecisionTrace()), h.ledger);
        LookupResult hit = restarted.lookup(C_READER, c);
        assertEquals(LookupResult.HitClass.L2, hit.hitClass());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, restarted.acquire(C_READER, hit));
        restarted.drain();
        assertEquals(TieredStore.LoadOutcome.STARTED, restarted.load(C_READER, 100, 1));
        restarted.drain();
        restarted.release(C_READER);
        assertEquals(List.of(), restarted.store.leftovers());
    }

    @Test
    void fixedModelHoldsLateStoreIsDroppedNotWrittenOverTheNewOwner() {
        StoreSettings settings = twoSlotRing(2, Set.of());
        StoreHarness h = new StoreHarness(settings);
        IoOp.CopyFromGpu aStaging = cOvertakesA(h);
        long writesBefore = h.store.counter(StoreCounter.L2_WRITE_OPS);

        h.complete(aStaging);
        assertEquals(1, h.store.counter(StoreCounter.STORE_UNITS_DROPPED_REALLOCATED));
        assertEquals(0, h.store.counter(StoreCounter.LATE_COMMITS_IGNORED), "a dropped unit never reaches the index");
        assertTrue(h.pendingOf(IoOp.L2Write.class).isEmpty(), "no L2 write for A");
        assertEquals(writesBefore, h.store.counter(StoreCounter.L2_WRITE_OPS));
        h.drain();
        assertEquals(new Content(c.get(0), 0), h.ledger.l2At(h.store.testView().unitOffset(0, 0)), "slot 0 keeps C's bytes");
        assertNull(h.store.testView().l2Entry(a.get(0)));
        assertEquals(LookupResult.HitClass.MISS, h.lookup(20, a).hitClass(), "A is not visible");
        assertEquals(List.of(), h.store.leftovers());

        loadCFromL2(h, c, settings);
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
    }

    @Test
    void fixedModelHoldsStoreQueuedWhenItsRunIsEvictedIsDropped() {
        StoreHarness h = new StoreHarness(twoSlotRing(1, Set.of()));
        List<BlockKey> p = BlockChains.named("P", 1);
        List<BlockKey> q = BlockChains.named("Q", 1);
        h.save(7, p, 5);                       // slot 0, staging
        h.save(A, a, 0);                       // slot 1, queued behind P: its copy has not started
        assertEquals(1, h.pendingOf(IoOp.CopyFromGpu.class).size());
        h.save(8, q, 6);                       // wraps: P's run evicted, Q on slot 0
        h.save(C, c, 2);                       // A's run evicted, C on slot 1
        assertEquals(2, h.store.counter(StoreCounter.L2_RUNS_EVICTED));
        assertEquals(1, h.store.testView().l2Entry(c.get(0)).slot());
        h.drain();
        assertEquals(2, h.store.counter(StoreCounter.STORE_UNITS_DROPPED_REALLOCATED), "P and A are dropped");
        assertEquals(0, h.store.counter(StoreCounter.LATE_COMMITS_IGNORED));
        assertEquals(2, h.store.counter(StoreCounter.L2_WRITE_OPS), "only Q and C are written");
        assertEquals(new Content(q.get(0), 0), h.ledger.l2At(h.store.testView().unitOffset(0, 0)));
        assertEquals(new Content(c.get(0), 0), h.ledger.l2At(h.store.testView().unitOffset(1, 0)));
        assertEquals(LookupResult.HitClass.MISS, h.lookup(20, a).hitClass());
        assertEquals(LookupResult.HitClass.L1, h.lookup(21, c).hitClass());
        h.release(21);
        assertEquals(List.of(), h.store.leftovers());
    }

    @Test
    void ablationBreaksLateStoreOverwritesTheNewOwnersSlot() {
        StoreSettings settings = twoSlotRing(2, Set.of(KnownBug.R11_WRITE_TO_REALLOCATED_SLOT));
        StoreHarness h = new StoreHarness(settings);
        IoOp.CopyFromGpu aStaging = cOvertakesA(h);

        h.complete(aStaging);
        assertEquals(0, h.store.counter(StoreCounter.STORE_UNITS_DROPPED_REALLOCATED));
        assertEquals(1, h.store.counter(StoreCounter.LATE_COMMITS_IGNORED), "A's late commit reaches the index");
        IoOp.L2Write aWrite = h.first(IoOp.L2Write.class);
        assertEquals(h.store.testView().unitOffset(0, 0), aWrite.l2Offset(), "A's write targets C's slot");
        h.drain();
        assertEquals(new Content(a.get(0), 0), h.ledger.l2At(h.store.testView().unitOffset(0, 0)), "A's bytes over C's slot");

        loadCFromL2(h, c, settings);
        assertEquals(1, h.ledger.loadMismatches(), "C read back from L2 is A's KV");
        assertEquals(0, h.ledger.loadMatches());
    }
}
