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
 * R4: a lease holds a range; a store of an overlapping range arrives, before or during its GPU
 * staging copy. The store must not be published until the lease's range is released.
 *
 * <p>Lease first (L1 of 4 blocks, L2 of 1 slot, so every store reuses unit u):
 * <pre>
 *   store A → unit u, drained;  X: lookup(A) = L1, lease on u taken atomically
 *   store B: the ring evicts A's run and gives u to B
 *     fixed:   B waits for X's lease (no staging copy, not visible, not resident)
 *              X loads A (match), its range is released → B stages, commits, is resident
 *     R4 bug:  B stages and publishes over u while X still holds it → checkInvariants: "R4: ..."
 * </pre>
 *
 * <p>Lease during the copy (L1 of 2 blocks, L2 of 2 slots):
 * <pre>
 *   store A → u; store C → slot 1 (save admission evicts A from L1);  X: lookup(A) = L2
 *   store B: ring gives u to B; B passes the lease check, reserves, its staging copy starts
 *   X: acquire(old lookup) → lease on u (promotion of u in flight)
 *   B's staging copy completes
 *     fixed:   an overlapping lease appeared: B keeps its staged bytes and waits (not visible)
 *              X's promotion lands, but A left the index when the ring gave u to B: stale, not
 *              published (hunt finding F1), X's acquire fails and X recomputes A; X releases →
 *              B commits and is resident
 *     R4 bug:  B commits at once under X's lease; X's promotion turns stale and X loses its hit
 * </pre>
 */
class RaceR04LeaseBlocksStoreTest {

    private static final List<BlockKey> A = BlockChains.named("r4-A", 1);
    private static final List<BlockKey> B = BlockChains.named("r4-B", 1);
    private static final List<BlockKey> C = BlockChains.named("r4-C", 1);
    private static final long X = 100;
    private static final long Y = 101;

    /** A stored and resident at u; X holds an L1 lease on it; B's save is queued for u. Returns u. */
    private static long leaseThenStore(StoreHarness h) {
        h.save(1, A, 0);
        h.drain();
        long unit = h.unitsOf(A).get(0);
        LookupResult hitA = h.lookup(X, A);
        assertEquals(HitClass.L1, hitA.hitClass());
        assertEquals(LeaseStatus.LEASED, hitA.leaseStatus());
        h.save(2, B, 10);
        assertEquals(unit, h.unitsOf(B).get(0), "the ring gave A's slot to B");
        return unit;
    }

    @Test
    void fixedModelHoldsStoreWaitsForTheLease() {
        StoreHarness h = new StoreHarness(TinyModel.store(4, 1));
        long unit = leaseThenStore(h);

        assertEquals(1, h.store.counter(StoreCounter.STORE_LEASE_WAITS));
        assertFalse(h.hasStaging(2), "B is not even staged while X's lease covers u");
        assertNull(h.store.testView().l2Visible(B.get(0)), "B is not visible");
        assertFalse(h.store.testView().isResident(unit), "nothing is published at u");
        assertEquals(1, h.store.storeQueueDepth());

        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(X, 0, 1));
        assertFalse(h.hasStaging(2), "still waiting while X's copy is in flight");
        h.complete(h.first(IoOp.CopyToGpu.class));
        assertEquals(1, h.ledger.loadMatches(), "X loaded A");
        assertTrue(h.hasStaging(2), "X's load released its range: B proceeds");
        h.complete(h.stagingOf(2));
        assertNotNull(h.store.testView().l2Visible(B.get(0)));
        assertTrue(h.store.testView().isResident(unit));
        h.release(X);
        h.drain();

        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(new Content(B.get(0), 0), h.ledger.l2At(unit));
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksStorePublishesOverTheLeasedRange() {
        StoreHarness h = new StoreHarness(TinyModel.store(4, 1).withKnownBugs(Set.of(KnownBug.R4_STORE_IGNORES_LEASES)));
        long unit = leaseThenStore(h);

        assertEquals(0, h.store.counter(StoreCounter.STORE_LEASE_WAITS));
        IoOp.CopyFromGpu stageB = h.stagingOf(2);
        IllegalStateException broken = assertThrows(IllegalStateException.class, () -> h.complete(stageB));
        assertTrue(broken.getMessage().startsWith("R4"), broken.getMessage());
        assertTrue(h.store.testView().isResident(unit), "B was published over X's leased range");
        assertTrue(h.store.hasLease(X));
    }

    /** A in L2 only; X looked A up; B's staging copy into u is in flight when X takes its lease. Returns u. */
    private static long leaseDuringStaging(StoreHarness h) {
        h.save(1, A, 0);
        h.drain();
        long unit = h.unitsOf(A).get(0);
        h.save(2, C, 10);
        h.drain();
        assertFalse(h.store.testView().isResident(unit));
        LookupResult hitA = h.lookup(X, A);
        assertEquals(HitClass.L2, hitA.hitClass());

        h.save(3, B, 20);
        assertEquals(unit, h.unitsOf(B).get(0), "the ring gave A's slot to B");
        assertTrue(h.hasStaging(3), "B passed the first lease check and is copying");
        assertEquals(0, h.store.counter(StoreCounter.STORE_LEASE_WAITS));

        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(X, hitA));
        assertTrue(h.store.hasLease(X));
        h.complete(h.stagingOf(3));
        return unit;
    }

    @Test
    void fixedModelHoldsStoreWaitsForALeaseThatAppearedDuringItsCopy() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 2));
        long unit = leaseDuringStaging(h);

        assertEquals(1, h.store.counter(StoreCounter.STORE_LEASE_WAITS));
        assertEquals(1, h.store.storeQueueDepth(), "B's staged batch waits for the lease");
        assertNull(h.store.testView().l2Visible(B.get(0)), "B is not visible");
        assertEquals(2, h.store.counter(StoreCounter.STORE_UNITS_COMMITTED), "only A and C are committed");
        assertTrue(h.pendingOf(IoOp.L2Write.class).isEmpty(), "no L2 write for B yet");

        h.complete(h.first(IoOp.L2Read.class));
        // A is no longer indexed at u: publishing the promotion would give u a slice of a key that left L2.
        assertEquals(List.of(new StoreEvent.AcquireDone(X, false)), h.acquireEvents());
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_STALE));
        assertFalse(h.store.testView().isResident(unit), "X's promotion of A was not published at u");
        assertEquals(TieredStore.LoadOutcome.LEASE_NOT_READY, h.load(X, 0, 1));
        assertNull(h.store.testView().l2Visible(B.get(0)), "B still waits for X's lease");
        h.release(X);
        assertNotNull(h.store.testView().l2Visible(B.get(0)), "X's range was released: B committed");
        h.drain();

        LookupResult hitB = h.lookup(Y, B);
        assertEquals(HitClass.L1, hitB.hitClass(), "B is resident at u");
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(Y, 30, 1));
        h.complete(h.first(IoOp.CopyToGpu.class));
        h.release(Y);
        h.drain();
        assertEquals(1, h.ledger.loadMatches(), "Y loaded B");
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(new Content(B.get(0), 0), h.ledger.l2At(unit));
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksStoreCommitsUnderALeaseThatAppearedDuringItsCopy() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 2).withKnownBugs(Set.of(KnownBug.R4_STORE_IGNORES_LEASES)));
        leaseDuringStaging(h);

        assertEquals(0, h.store.counter(StoreCounter.STORE_LEASE_WAITS));
        assertTrue(h.store.hasLease(X), "X still holds its lease on u");
        assertNotNull(h.store.testView().l2Visible(B.get(0)), "B is visible under X's lease");
        assertEquals(3, h.store.counter(StoreCounter.STORE_UNITS_COMMITTED), "B committed under X's lease");

        h.complete(h.first(IoOp.L2Read.class));
        assertEquals(List.of(new StoreEvent.AcquireDone(X, false)), h.acquireEvents(), "X lost the hit it leased");
        assertEquals(TieredStore.LoadOutcome.LEASE_NOT_READY, h.load(X, 0, 1));
    }
}
