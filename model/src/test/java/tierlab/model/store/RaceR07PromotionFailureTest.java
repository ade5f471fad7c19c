package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * R7: a promotion fails or is cancelled. Its reservation is released (a cancelled one only once
 * its read has landed), waiters wake, no slice leaks, and a reservation is never counted as free.
 *
 * <p>L1 holds 2 blocks: C is resident with its L2 write W_C pending (so it cannot be evicted for a
 * reservation), and the other block is the only space, taken by X's promotion of A.
 *
 * <pre>
 *   store A (drained); store C: commit, W_C pending; save admission evicts A from L1
 *   X: lookup(A) = L2, acquire → promotion reserves the last free block s, L2Read r of u into s
 *   store D: needs a block; none can be freed → D waits
 *   failure:  r fails
 *     fixed:   s is released, D wakes and stages into s, X gets AcquireDone(false);
 *              after X releases nothing is left; a later promotion of u succeeds
 *     R7 bug:  s stays reserved, no AcquireDone, X's lease never becomes ready, D waits for W_C;
 *              after everything drains, s is still reserved (I10 broken)
 *   cancel:   X releases its lease while r is in flight
 *     fixed:   s stays reserved (free bytes unchanged, D still waits) until r lands, then s is freed
 *              and D stages into it; nothing is published for the cancelled promotion
 *     R7 bug:  s should stay reserved for good (disabled: the model crashes instead, see the test)
 * </pre>
 */
class RaceR07PromotionFailureTest {

    private static final long BLOCK = TinyModel.BLOCK_BYTES;
    private static final List<BlockKey> A = BlockChains.named("r7-A", 1);
    private static final List<BlockKey> C = BlockChains.named("r7-C", 1);
    private static final List<BlockKey> D = BlockChains.named("r7-D", 1);
    private static final long X = 100;
    private static final long Y = 101;

    /** Up to X's read in flight into the last free block, with C's write pending. Returns the read. */
    private static IoOp.L2Read promotionHoldsTheLastBlock(StoreHarness h) {
        h.save(1, A, 0);
        h.drain();
        h.save(2, C, 10);
        h.complete(h.stagingOf(2));
        assertEquals(1, h.pendingOf(IoOp.L2Write.class).size(), "W_C is pending");
        long unit = h.unitsOf(A).get(0);
        assertFalse(h.store.testView().isResident(unit));

        LookupResult hit = h.lookup(X, A);
        assertEquals(HitClass.L2, hit.hitClass());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(X, hit));
        IoOp.L2Read read = h.first(IoOp.L2Read.class);
        assertEquals(unit, read.l2Offset());
        assertEquals(0, h.store.testView().l1FreeBytes(), "the reservation is not counted as free");
        return read;
    }

    /** Store D, which needs the one block that X's promotion holds. */
    private static void storeDWaits(StoreHarness h) {
        h.save(3, D, 20);
        assertEquals(1, h.store.counter(StoreCounter.STORE_RESERVATION_WAITS));
        assertFalse(h.hasStaging(3), "D waits for L1 space");
    }

    /** A later request promotes and loads A; returns after the load completed. */
    private static void laterPromotionSucceeds(StoreHarness h) {
        LookupResult hit = h.lookup(Y, A);
        assertEquals(HitClass.L2, hit.hitClass());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(Y, hit));
        h.complete(h.first(IoOp.L2Read.class));
        assertEquals(List.of(new StoreEvent.AcquireDone(Y, true)), h.acquireEvents());
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(Y, 30, 1));
        h.complete(h.first(IoOp.CopyToGpu.class));
        h.release(Y);
        h.drain();
    }

    @Test
    void fixedModelHoldsFailedPromotionReleasesItsReservation() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 8));
        IoOp.L2Read read = promotionHoldsTheLastBlock(h);
        storeDWaits(h);

        h.fail(read);
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_FAILED));
        assertEquals(List.of(new StoreEvent.AcquireDone(X, false)), h.acquireEvents());
        assertEquals(read.l1Offset(), h.stagingOf(3).l1Offset(), "D woke and took the released block");
        assertEquals(TieredStore.LoadOutcome.LEASE_NOT_READY, h.load(X, 0, 1));
        assertEquals(List.of("1 leases"), h.store.leftovers().stream().filter(s -> s.contains("lease")).toList());

        h.release(X);
        h.drain();
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
        assertEquals(0, h.store.leaseCount());

        laterPromotionSucceeds(h);
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_PUBLISHED));
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksFailedPromotionLeaksItsReservation() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 8).withKnownBugs(Set.of(KnownBug.R7_LEAK_FAILED_PROMOTION)));
        IoOp.L2Read read = promotionHoldsTheLastBlock(h);
        storeDWaits(h);

        h.fail(read);
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_FAILED));
        assertEquals(List.of(), h.acquireEvents(), "X is never told");
        assertFalse(h.hasStaging(3), "D is not woken");
        assertEquals(0, h.store.testView().l1FreeBytes());
        assertEquals(TieredStore.LoadOutcome.LEASE_NOT_READY, h.load(X, 0, 1));

        h.release(X);
        h.drain();
        assertEquals(List.of(), h.acquireEvents());
        assertEquals(List.of(BLOCK + " reserved bytes"), h.store.leftovers(), "I10 broken: the reservation leaked");
        assertEquals(BLOCK, h.store.l1UsedBytes() - h.store.residentCount() * BLOCK, "one block is held by nobody");
    }

    @Test
    void fixedModelHoldsCancelledPromotionKeepsItsSliceUntilTheReadLands() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 8));
        IoOp.L2Read read = promotionHoldsTheLastBlock(h);
        long freeBefore = h.store.testView().l1FreeBytes();

        h.release(X);
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_CANCELLED));
        assertFalse(h.store.hasLease(X));
        assertEquals(freeBefore, h.store.testView().l1FreeBytes(), "the slice under the in-flight read stays reserved");
        assertTrue(h.store.leftovers().contains(BLOCK + " reserved bytes"), h.store.leftovers().toString());
        storeDWaits(h);

        h.complete(read);
        assertEquals(read.l1Offset(), h.stagingOf(3).l1Offset(), "the slice is freed once the read landed, and D gets it");
        assertEquals(0, h.store.counter(StoreCounter.PROMOTIONS_PUBLISHED), "nothing is published for a cancelled promotion");
        assertFalse(h.store.testView().isResident(read.l2Offset()));
        assertEquals(List.of(), h.acquireEvents());
        h.drain();
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
        assertEquals(new Content(D.get(0), 0), h.ledger.l2At(h.unitsOf(D).get(0)), "D's bytes were not overwritten by the late read");

        laterPromotionSucceeds(h);
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksCancelledPromotionLeaksItsSlice() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 8).withKnownBugs(Set.of(KnownBug.R7_LEAK_FAILED_PROMOTION)));
        IoOp.L2Read read = promotionHoldsTheLastBlock(h);

        h.release(X);
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_CANCELLED));
        storeDWaits(h);
        h.complete(read);
        assertFalse(h.hasStaging(3), "the cancelled promotion's slice is never freed, D is not woken by it");
        assertFalse(h.store.testView().isResident(read.l2Offset()));
        h.drain();
        assertEquals(List.of(BLOCK + " reserved bytes"), h.store.leftovers(), "I10 broken: the reservation leaked");
    }
}
