package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.LookupResult.LeaseStatus;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * R1: a promotion completing after a newer store overlapped its range must never be published
 * over the store (docs/tiered-store.md section 7).
 *
 * <p>L1 holds 2 blocks, L2 holds 2 slots, so the FIFO ring gives A's slot (unit u) to B.
 *
 * <pre>
 *   store A → slot 0 (unit u), drained        store C → slot 1; save admission evicts A from L1
 *   X: lookup(A) = L2 (no lease yet)
 *   store B: ring evicts A's run, B claims slot 0 = unit u; stage; commit → B resident at u,
 *            its L2 write W_B pending
 *   X: acquire(old lookup of A) → promotion of u reserves a slice, waits for W_B
 *   W_B completes → the promotion's L2Read of u is issued and completes (it reads B's bytes)
 *   fixed:   stale (B is resident at u): not published, B keeps its slice, X gets AcquireDone(false)
 *   R1 bug:  published as "A" over B: X's load delivers B's bytes (mismatch), B is no longer an L1 hit
 * </pre>
 *
 * <p>The last test is the spec's "a load already copying keeps a consistent old snapshot" (L1 of
 * 4 blocks, L2 of 1 slot): X's grouped copy of A borrows A's slice; B (let through by the R4
 * ablation, since in the fixed model X's lease makes B wait) publishes over u while
 * the copy is in flight; the copy still delivers A's bytes because the borrowed slice is never reused.
 */
class RaceR01StalePromotionTest {

    private static final List<BlockKey> A = BlockChains.named("r1-A", 1);
    private static final List<BlockKey> B = BlockChains.named("r1-B", 1);
    private static final List<BlockKey> C = BlockChains.named("r1-C", 1);
    private static final long X = 100;
    private static final long Y = 101;

    /** The interleaving up to the completed promotion read; returns A's (and B's) unit. */
    private static long driveStalePromotion(StoreHarness h) {
        h.save(1, A, 0);
        h.drain();
        long unit = h.unitsOf(A).get(0);
        h.save(2, C, 10);
        h.drain();
        assertFalse(h.store.testView().isResident(unit), "save admission evicted A from L1");

        LookupResult hitA = h.lookup(X, A);
        assertEquals(HitClass.L2, hitA.hitClass());
        assertEquals(List.of(unit), hitA.units());

        h.save(3, B, 20);
        assertEquals(unit, h.unitsOf(B).get(0), "the ring gave A's slot to B");
        assertNull(h.store.testView().l2Entry(A.get(0)), "A left the index with its run");
        h.complete(h.first(IoOp.CopyFromGpu.class));
        assertTrue(h.store.testView().isResident(unit), "B is resident at A's old unit");
        IoOp.L2Write writeB = h.first(IoOp.L2Write.class);
        assertEquals(unit, writeB.l2Offset());

        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(X, hitA));
        assertTrue(h.pendingOf(IoOp.L2Read.class).isEmpty(), "the promotion waits for the pending write of its range");
        h.complete(writeB);
        IoOp.L2Read read = h.first(IoOp.L2Read.class);
        assertEquals(unit, read.l2Offset());
        h.complete(read);
        assertEquals(new Content(B.get(0), 0), h.ledger.l1At(read.l1Offset()), "the read brought B's bytes");
        return unit;
    }

    @Test
    void fixedModelHoldsStalePromotionIsNeverPublished() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 2));
        long unit = driveStalePromotion(h);

        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_STALE));
        assertEquals(0, h.store.counter(StoreCounter.PROMOTIONS_PUBLISHED));
        assertEquals(List.of(new StoreEvent.AcquireDone(X, false)), h.acquireEvents());
        assertEquals(TieredStore.LoadOutcome.LEASE_NOT_READY, h.load(X, 0, 1));
        h.release(X);

        // B kept its own resident slice: a fresh lookup is an L1 hit and loads B's bytes.
        assertTrue(h.store.testView().isResident(unit));
        LookupResult hitB = h.lookup(Y, B);
        assertEquals(HitClass.L1, hitB.hitClass());
        assertEquals(LeaseStatus.LEASED, hitB.leaseStatus());
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(Y, 30, 1));
        h.complete(h.first(IoOp.CopyToGpu.class));
        h.release(Y);
        h.drain();

        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(new Content(B.get(0), 0), h.ledger.l2At(unit));
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksStalePromotionIsPublishedOverTheStore() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 2).withKnownBugs(Set.of(KnownBug.R1_PUBLISH_STALE_PROMOTION)));
        long unit = driveStalePromotion(h);

        assertEquals(0, h.store.counter(StoreCounter.PROMOTIONS_STALE));
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_PUBLISHED));
        assertEquals(List.of(new StoreEvent.AcquireDone(X, true)), h.acquireEvents(), "X believes it holds A");

        // X's load delivers B's bytes where it expects A's: an I6 violation.
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(X, 0, 1));
        h.complete(h.first(IoOp.CopyToGpu.class));
        assertEquals(1, h.ledger.loadMismatches());
        assertEquals(0, h.ledger.loadMatches());
        h.release(X);

        // B's resident slice was replaced: B is no longer an L1 hit although u is resident.
        assertTrue(h.store.testView().isResident(unit));
        assertEquals(HitClass.L2, h.lookup(Y, B).hitClass());
    }

    @Test
    void loadAlreadyCopyingKeepsItsOldSnapshotWhenANewerStorePublishes() {
        // R4's ablation lets B publish over X's leased range while X's copy is in flight. L1 holds
        // 4 blocks so that save admission keeps B resident next to the borrowed slice.
        StoreHarness h = new StoreHarness(TinyModel.store(4, 1).withKnownBugs(Set.of(KnownBug.R4_STORE_IGNORES_LEASES)));
        h.save(1, A, 0);
        h.drain();
        long unit = h.unitsOf(A).get(0);
        LookupResult hitA = h.lookup(X, A);
        assertEquals(LeaseStatus.LEASED, hitA.leaseStatus());
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(X, 0, 1));
        IoOp.CopyToGpu copyA = h.first(IoOp.CopyToGpu.class);
        long sliceA = copyA.segments().get(0).l1Offset();

        h.save(3, B, 20);
        assertEquals(unit, h.unitsOf(B).get(0), "the ring gave A's slot to B");
        IoOp.CopyFromGpu stageB = h.first(IoOp.CopyFromGpu.class);
        assertTrue(stageB.l1Offset() != sliceA, "B's staging slice is not the borrowed one");
        h.checkEveryStep = false;
        h.complete(stageB);
        assertNotNull(h.store.testView().l2Visible(B.get(0)), "B is committed and visible");
        assertTrue(h.store.testView().isResident(unit), "B is published over the range X's copy is reading");
        IllegalStateException broken = assertThrows(IllegalStateException.class, h.store::checkInvariants);
        assertTrue(broken.getMessage().startsWith("R4"), broken.getMessage());

        h.complete(copyA);
        assertEquals(1, h.ledger.loadMatches(), "the copy in flight delivered A's bytes");
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(new Content(A.get(0), 0), h.ledger.l1At(sliceA));
        h.checkEveryStep = true;
        h.check();
        h.release(X);
        h.drain();
        assertEquals(new Content(B.get(0), 0), h.ledger.l2At(unit));
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void fixedModelHoldsOutdatedLookupNeverDeliversTheNewOwnersBytesEvenWhenThePromotionEvictsTheStore() {
        // Same interleaving as driveStalePromotion, but L1 holds one block: X's promotion cannot
        // reserve while B's write is pending, and reserves (by evicting B) only after W_B landed,
        // so B is no longer resident and the reservation epoch is already newer than B's store.
        StoreHarness h = new StoreHarness(TinyModel.store(1, 2));
        h.save(1, A, 0);
        h.drain();
        long unit = h.unitsOf(A).get(0);
        h.save(2, C, 10);
        h.drain();
        LookupResult hitA = h.lookup(X, A);
        assertEquals(HitClass.L2, hitA.hitClass());
        h.save(3, B, 20);
        assertEquals(unit, h.unitsOf(B).get(0), "the ring gave A's slot to B");
        h.complete(h.first(IoOp.CopyFromGpu.class));
        h.acquire(X, hitA);
        h.drain();

        // A left L2 before X acquired: X must not get a lease that delivers someone else's bytes.
        assertEquals(List.of(new StoreEvent.AcquireDone(X, false)), h.acquireEvents());
        assertEquals(0, h.store.counter(StoreCounter.PROMOTIONS_PUBLISHED));
        if (h.load(X, 0, 1) == TieredStore.LoadOutcome.STARTED) {
            h.drain();
        }
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        h.release(X);
        h.drain();
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }
}
