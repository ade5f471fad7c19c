package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
 * R8 (docs/tiered-store.md section 7): a GPU copy borrows L1 slices; the request is cancelled while
 * the copy is in flight. Borrowed slices must not be reused until the copy completes.
 *
 * <p>L1 holds exactly one block, so the store of B can only get memory by evicting A:
 *
 * <pre>
 *   save A ── stage ── commit ── write       A resident, L1 full
 *   X: lookup A (L1 hit, lease) ── load ──── CopyToGpu(A's slice) in flight, slice borrowed
 *   X: releaseLease (abort)                  fixed: lease marked release-all, slice still held
 *   save B                                   fixed: waits for space (no CopyFromGpu)
 *                                            R8 bug: A evicted and freed, B reserves A's bytes
 *   [bug only] B's CopyFromGpu completes     B's KV overwrites the bytes X is still copying
 *   X's CopyToGpu completes                  fixed: X gets A; bug: X gets B (load mismatch)
 *   fixed: B reserves, stages, commits; drain → nothing left over
 * </pre>
 */
class RaceR08BorrowedSliceTest {

    private static final long X = 10;
    private static final long WRITER_A = 1;
    private static final long WRITER_B = 2;
    private static final List<BlockKey> A = BlockChains.named("A", 1);
    private static final List<BlockKey> B = BlockChains.named("B", 1);

    private static StoreHarness oneBlockL1(Set<KnownBug> bugs) {
        return new StoreHarness(TinyModel.store(1, 16).withKnownBugs(bugs));
    }

    /** Stores A, lets X take an L1 lease on it and start its load; returns X's copy. */
    private static IoOp.CopyToGpu storeAThenStartXsLoad(StoreHarness h) {
        h.save(WRITER_A, A, 0);
        h.drain();
        assertEquals(List.of(new StoreEvent.SaveStaged(WRITER_A)), h.events());
        assertTrue(h.store.testView().isResident(h.unitsOf(A).get(0)));
        assertEquals(0, h.store.testView().l1FreeBytes(), "A fills the one-block L1");

        LookupResult hit = h.lookup(X, A);
        assertEquals(LookupResult.HitClass.L1, hit.hitClass());
        assertEquals(LookupResult.LeaseStatus.LEASED, hit.leaseStatus());
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(X, 100, 1));
        IoOp.CopyToGpu copy = h.first(IoOp.CopyToGpu.class);
        assertEquals(1, copy.segments().size());
        return copy;
    }

    @Test
    void fixedModelHoldsBorrowedSliceUntilTheCopyCompletes() {
        StoreHarness h = oneBlockL1(Set.of());
        IoOp.CopyToGpu xCopy = storeAThenStartXsLoad(h);
        long borrowedOffset = xCopy.segments().get(0).l1Offset();

        // X is aborted while its copy reads A's slice.
        h.release(X);
        assertTrue(h.store.hasLease(X), "the lease is only marked release-all while its load copies");
        assertEquals(1, h.store.leaseCount());
        assertEquals(0, h.store.counter(StoreCounter.LEASES_RELEASED));
        assertEquals(0, h.store.testView().l1FreeBytes(), "the borrowed slice does not go back to the pool");
        assertTrue(h.store.testView().isResident(h.unitsOf(A).get(0)), "A is still pinned, so nothing could evict it");

        // B needs the only block of L1: it must wait, not stage into the borrowed bytes.
        h.save(WRITER_B, B, 1);
        assertTrue(h.pendingOf(IoOp.CopyFromGpu.class).isEmpty(), "no staging copy for B while X's copy reads the slice");
        assertEquals(List.of(), h.events(), "B is not staged, so its request is not released either");
        assertEquals(1, h.store.counter(StoreCounter.STORE_RESERVATION_WAITS));
        assertEquals(0, h.store.counter(StoreCounter.EVICTIONS));
        assertEquals(0, h.store.testView().l1FreeBytes());

        // The copy lands: X got A's bytes, the lease finishes its release, and B can go on.
        h.complete(xCopy);
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(List.of(new StoreEvent.LoadDone(X, true)), h.events());
        assertFalse(h.store.hasLease(X));
        assertEquals(1, h.store.counter(StoreCounter.LEASES_RELEASED));
        IoOp.CopyFromGpu bStaging = h.first(IoOp.CopyFromGpu.class);
        assertEquals(WRITER_B, bStaging.requestId());
        assertEquals(borrowedOffset, bStaging.l1Offset(), "B gets the slice only now that the copy is done");
        assertEquals(1, h.store.counter(StoreCounter.EVICTIONS));

        h.drain();
        assertTrue(h.store.testView().isResident(h.unitsOf(B).get(0)));
        assertFalse(h.store.testView().isResident(h.unitsOf(A).get(0)));
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(List.of(), h.store.leftovers());
    }

    @Test
    void ablationBreaksBorrowedSliceIsReusedUnderTheCopy() {
        StoreHarness h = oneBlockL1(Set.of(KnownBug.R8_RELEASE_BORROW_ON_CANCEL));
        IoOp.CopyToGpu xCopy = storeAThenStartXsLoad(h);
        long borrowedOffset = xCopy.segments().get(0).l1Offset();

        h.release(X);
        assertFalse(h.store.hasLease(X), "the bug releases the lease and its borrows at once");
        assertEquals(0, h.store.leaseCount());
        assertEquals(1, h.store.counter(StoreCounter.LEASES_RELEASED));

        h.save(WRITER_B, B, 1);
        IoOp.CopyFromGpu bStaging = h.first(IoOp.CopyFromGpu.class);
        assertEquals(WRITER_B, bStaging.requestId());
        assertEquals(borrowedOffset, bStaging.l1Offset(), "B reserved the bytes X's copy is still reading");
        assertEquals(1, h.store.counter(StoreCounter.EVICTIONS), "A was evicted under the copy");
        assertEquals(0, h.store.counter(StoreCounter.STORE_RESERVATION_WAITS));

        // B's staging lands before X's copy reads the slice.
        h.complete(bStaging);
        h.complete(xCopy);
        assertEquals(1, h.ledger.loadMismatches(), "X received B's KV instead of A's");
        assertEquals(0, h.ledger.loadMatches());
        assertNotEquals(new Content(A.get(0), 0), h.ledger.l1At(borrowedOffset));
        h.drain();
        assertEquals(1, h.ledger.loadMismatches());
    }
}
