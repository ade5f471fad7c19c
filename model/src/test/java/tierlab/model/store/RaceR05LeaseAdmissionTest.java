package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.LookupResult.LeaseStatus;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * R5: two requests' leases together exceed L1. Lease admission (a new lease of b bytes waits until
 * the other leases' remaining bytes + b ≤ l1CapacityBytes) makes one wait; both finish (I4, I10).
 *
 * <p>L1 holds 4 blocks; every lease is 3 blocks, more than half of L1.
 *
 * <p>Lookup path: the admission bound counts lease bytes, not distinct slices, so two 3-block
 * chains sharing a 2-block prefix can both be resident (4 distinct blocks) while their leases
 * (6 blocks) cannot both be admitted:
 * <pre>
 *   chains X = [a b c], Y = [a b d]; all four resident (c promoted as a headroom entry)
 *   X: lease on [a b c] (3 blocks)
 *   Y: lookup = L1, but 3 + 3 > 4
 *     fixed:   LeaseStatus.ADMISSION_WAIT, no lease; X loads and releases; Y's lookup → LEASED; both load
 *     R5 bug:  Y's lease is created: 6 blocks of leases in a 4-block L1 → checkInvariants "I4: ..."
 * </pre>
 *
 * <p>Acquire path: disjoint chains, P resident and leased by X, Q only in L2:
 * <pre>
 *   X: lookup(P) = L1, lease of 3 blocks;  Y: lookup(Q) = L2, acquire
 *     fixed:   ADMISSION_WAIT, no promotion starts; X loads and releases; Y's acquire promotes Q; Y loads
 *     R5 bug:  Y's lease of 3 more blocks is created → "I4: ..."
 * </pre>
 */
class RaceR05LeaseAdmissionTest {

    private static final long BLOCK = TinyModel.BLOCK_BYTES;
    private static final long X = 100;
    private static final long Y = 101;

    private static final List<BlockKey> CHAIN_X = BlockChains.named("r5-X", 3);
    private static final List<BlockKey> CHAIN_Y = sharingPrefix(CHAIN_X, 2);
    private static final List<BlockKey> P = BlockChains.named("r5-P", 3);
    private static final List<BlockKey> Q = BlockChains.named("r5-Q", 3);

    /** The first n keys of a chain followed by one block of another prompt. */
    private static List<BlockKey> sharingPrefix(List<BlockKey> chain, int n) {
        List<BlockKey> keys = new ArrayList<>(chain.subList(0, n));
        keys.add(BlockKey.fromTraceId(chain.get(n - 1), "r5-Y".hashCode(), n));
        return keys;
    }

    /** Completes every pending L2 read (a promotion's batch). */
    private static void completeReads(StoreHarness h) {
        for (IoOp.L2Read read : h.pendingOf(IoOp.L2Read.class)) {
            h.complete(read);
        }
    }

    private static void loadAndRelease(StoreHarness h, long requestId, long firstGpuBlock) {
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(requestId, firstGpuBlock, 3));
        h.complete(h.first(IoOp.CopyToGpu.class));
        h.release(requestId);
    }

    /** [a b c] and [a b d] all resident in a 4-block L1; X holds a 3-block lease on [a b c]. */
    private static void xLeasesWhileYIsResident(StoreHarness h) {
        h.save(1, CHAIN_X, 0);
        h.drain();
        h.save(2, CHAIN_Y, 10);
        h.drain();
        LookupResult hitX = h.lookup(X, CHAIN_X);
        assertEquals(HitClass.MIXED, hitX.hitClass(), "save admission evicted c to make room for d");
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(X, hitX));
        completeReads(h);
        assertEquals(List.of(new StoreEvent.AcquireDone(X, true)), h.acquireEvents());
        assertEquals(4, h.store.residentCount(), "a, b, c and d are all resident");
        assertEquals(3 * BLOCK, h.store.leasedRemainingBytes());
    }

    @Test
    void fixedModelHoldsSecondL1LeaseWaitsForAdmission() {
        StoreHarness h = new StoreHarness(TinyModel.store(4, 16));
        xLeasesWhileYIsResident(h);

        LookupResult waiting = h.lookup(Y, CHAIN_Y);
        assertEquals(HitClass.L1, waiting.hitClass());
        assertEquals(LeaseStatus.ADMISSION_WAIT, waiting.leaseStatus());
        assertEquals(1, h.store.counter(StoreCounter.LEASE_ADMISSION_WAITS));
        assertFalse(h.store.hasLease(Y));
        assertEquals(3 * BLOCK, h.store.leasedRemainingBytes(), "I4: only X's lease counts");

        loadAndRelease(h, X, 0);
        LookupResult admitted = h.lookup(Y, CHAIN_Y);
        assertEquals(LeaseStatus.LEASED, admitted.leaseStatus());
        loadAndRelease(h, Y, 10);
        h.drain();

        assertEquals(6, h.ledger.loadMatches(), "both requests loaded their 3 blocks");
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(0, h.store.leaseCount());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksSecondL1LeaseIsCreatedPastTheBound() {
        StoreHarness h = new StoreHarness(TinyModel.store(4, 16).withKnownBugs(Set.of(KnownBug.R5_NO_LEASE_ADMISSION)));
        xLeasesWhileYIsResident(h);

        IllegalStateException broken = assertThrows(IllegalStateException.class, () -> h.lookup(Y, CHAIN_Y));
        assertTrue(broken.getMessage().startsWith("I4"), broken.getMessage());
        assertEquals(0, h.store.counter(StoreCounter.LEASE_ADMISSION_WAITS));
        assertTrue(h.store.hasLease(Y));
        assertEquals(6 * BLOCK, h.store.leasedRemainingBytes());
    }

    /** P resident and leased by X (3 blocks); Q only in L2; Y looked Q up. Returns Y's hit. */
    private static LookupResult xLeasesWhileYNeedsL2(StoreHarness h) {
        h.save(1, Q, 0);
        h.drain();
        h.save(2, P, 10);
        h.drain();
        LookupResult hitP = h.lookup(X, P);
        assertEquals(LeaseStatus.LEASED, hitP.leaseStatus());
        LookupResult hitQ = h.lookup(Y, Q);
        assertEquals(HitClass.L2, hitQ.hitClass());
        return hitQ;
    }

    @Test
    void fixedModelHoldsSecondAcquireWaitsForAdmission() {
        StoreHarness h = new StoreHarness(TinyModel.store(4, 16));
        LookupResult hitQ = xLeasesWhileYNeedsL2(h);

        assertEquals(TieredStore.AcquireOutcome.ADMISSION_WAIT, h.acquire(Y, hitQ));
        assertEquals(1, h.store.counter(StoreCounter.LEASE_ADMISSION_WAITS));
        assertFalse(h.store.hasLease(Y));
        assertEquals(0, h.store.counter(StoreCounter.PROMOTIONS_STARTED), "no promotion starts before admission");
        assertTrue(h.pendingOf(IoOp.L2Read.class).isEmpty());

        loadAndRelease(h, X, 0);
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(Y, hitQ));
        completeReads(h);
        assertEquals(List.of(new StoreEvent.AcquireDone(Y, true)), h.acquireEvents());
        loadAndRelease(h, Y, 10);
        h.drain();

        assertEquals(6, h.ledger.loadMatches());
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksSecondAcquireIsLeasedPastTheBound() {
        StoreHarness h = new StoreHarness(TinyModel.store(4, 16).withKnownBugs(Set.of(KnownBug.R5_NO_LEASE_ADMISSION)));
        LookupResult hitQ = xLeasesWhileYNeedsL2(h);

        IllegalStateException broken = assertThrows(IllegalStateException.class, () -> h.acquire(Y, hitQ));
        assertTrue(broken.getMessage().startsWith("I4"), broken.getMessage());
        assertTrue(h.store.hasLease(Y));
        assertEquals(6 * BLOCK, h.store.leasedRemainingBytes());
    }
}
