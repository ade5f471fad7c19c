package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * R6: two prefetches of overlapping ranges share one L2 read and one slice (single flight).
 *
 * <p>L1 holds 2 blocks; A lives only in L2, C is resident and idle.
 *
 * <pre>
 *   store A, store C (save admission evicts A from L1)
 *   X: lookup(A) = L2, acquire → promotion of u reserves the free block, L2Read of u issued
 *   Y: lookup(A) = L2, acquire while X's read is in flight
 *     fixed:   Y joins X's promotion: one L2Read, one slice; both leases hold it, both loads match,
 *              C stays resident
 *     R6 bug:  Y starts its own promotion: a second L2Read of u into a second slice, which evicts C
 * </pre>
 */
class RaceR06SingleFlightTest {

    private static final List<BlockKey> A = BlockChains.named("r6-A", 1);
    private static final List<BlockKey> C = BlockChains.named("r6-C", 1);
    private static final long X = 100;
    private static final long Y = 101;

    private static IoOp.CopyToGpu loadOf(StoreHarness h, long requestId) {
        return (IoOp.CopyToGpu) h.first(op -> op instanceof IoOp.CopyToGpu c && c.requestId() == requestId);
    }

    /** X and Y both acquire A from L2 while X's read is in flight. Returns u. */
    private static long twoPrefetchesOfOneRange(StoreHarness h) {
        h.save(1, A, 0);
        h.drain();
        long unit = h.unitsOf(A).get(0);
        h.save(2, C, 10);
        h.drain();
        assertFalse(h.store.testView().isResident(unit));
        assertTrue(h.store.testView().isResident(h.unitsOf(C).get(0)));

        LookupResult hitX = h.lookup(X, A);
        LookupResult hitY = h.lookup(Y, A);
        assertEquals(HitClass.L2, hitX.hitClass());
        assertEquals(HitClass.L2, hitY.hitClass());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(X, hitX));
        assertEquals(1, h.pendingOf(IoOp.L2Read.class).size(), "X's read is in flight");
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(Y, hitY));
        return unit;
    }

    @Test
    void fixedModelHoldsOneReadOneSharedSlice() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 8));
        long unit = twoPrefetchesOfOneRange(h);

        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_JOINED));
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_STARTED));
        List<IoOp.L2Read> reads = h.pendingOf(IoOp.L2Read.class);
        assertEquals(1, reads.size(), "exactly one L2 read of u");
        assertEquals(unit, reads.get(0).l2Offset());
        assertEquals(1, h.store.testView().activePromotions());

        h.complete(reads.get(0));
        assertEquals(List.of(new StoreEvent.AcquireDone(X, true), new StoreEvent.AcquireDone(Y, true)), h.acquireEvents());
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_PUBLISHED));
        assertTrue(h.store.testView().isResident(h.unitsOf(C).get(0)), "C was not evicted for a second copy");
        assertEquals(2, h.store.residentCount(), "one resident entry for u, plus C");

        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(X, 20, 1));
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(Y, 30, 1));
        IoOp.CopyToGpu loadX = loadOf(h, X);
        IoOp.CopyToGpu loadY = loadOf(h, Y);
        assertEquals(reads.get(0).l1Offset(), loadX.segments().get(0).l1Offset(), "X loads from the read's slice");
        assertEquals(reads.get(0).l1Offset(), loadY.segments().get(0).l1Offset(), "Y loads from the same slice");
        h.complete(loadX);
        h.complete(loadY);
        h.release(X);
        h.release(Y);
        h.drain();

        assertEquals(1, h.store.counter(StoreCounter.L2_READ_OPS));
        assertEquals(2, h.ledger.loadMatches());
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksTheSingleFlightInvariant() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 8).withKnownBugs(Set.of(KnownBug.R6_NO_SINGLE_FLIGHT)));
        IllegalStateException broken = assertThrows(IllegalStateException.class, () -> twoPrefetchesOfOneRange(h));
        assertTrue(broken.getMessage().startsWith("R6"), broken.getMessage());
    }

    @Test
    void ablationBreaksTwoReadsOfOneRange() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 8).withKnownBugs(Set.of(KnownBug.R6_NO_SINGLE_FLIGHT)));
        // Without the per-step invariant check, to see what the bug does.
        h.checkEveryStep = false;
        long unit = twoPrefetchesOfOneRange(h);

        assertEquals(0, h.store.counter(StoreCounter.PROMOTIONS_JOINED));
        assertEquals(2, h.store.counter(StoreCounter.PROMOTIONS_STARTED));
        List<IoOp.L2Read> reads = h.pendingOf(IoOp.L2Read.class);
        assertEquals(2, reads.size(), "two L2 reads of the same range");
        assertEquals(unit, reads.get(0).l2Offset());
        assertEquals(unit, reads.get(1).l2Offset());
        assertNotEquals(reads.get(0).l1Offset(), reads.get(1).l1Offset(), "into two slices");
        assertFalse(h.store.testView().isResident(h.unitsOf(C).get(0)), "the second slice evicted C");
        assertEquals(2, h.store.counter(StoreCounter.L2_READ_OPS));
    }
}
