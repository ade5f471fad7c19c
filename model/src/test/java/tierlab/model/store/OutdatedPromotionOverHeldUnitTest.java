package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.LookupResult.LeaseStatus;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * Hunt finding F1 (replay {@code hunt/src/test/resources/replays/fixed/F1-outdated-promotion-published.json}):
 * a promotion made from an outdated lookup lands after its key has left the L2 index, while the
 * new owner of the slot has not committed yet (it waits for a lease on that very unit). No store
 * epoch has moved and nothing is resident there, so the epoch test alone calls the read fresh;
 * publishing it puts a second slice at a unit whose old slice another lease still holds (R4).
 *
 * <p>L1 holds 4 blocks, L2 two slots, so the FIFO ring gives A's slot (unit u) to B.
 *
 * <pre>
 *   store A → slot 0 (unit u), drained: A resident at u
 *   Y: lookup(A) = L1, leased (holds A's slice)
 *   store C → slot 1, drained
 *   X: lookup(A) = L1, leased; X releases (its lookup result is kept, and goes out of date)
 *   store B: ring evicts A's run (A leaves the index and L1; Y still holds the slice),
 *            B claims unit u and waits for Y's lease
 *   X: acquire(outdated lookup of A) → promotion of u; the L2 read lands (A's old bytes)
 *   fixed: stale (A is no longer indexed at u): not published, X gets AcquireDone(false)
 * </pre>
 */
class OutdatedPromotionOverHeldUnitTest {

    private static final List<BlockKey> A = BlockChains.named("f1-A", 1);
    private static final List<BlockKey> B = BlockChains.named("f1-B", 1);
    private static final List<BlockKey> C = BlockChains.named("f1-C", 1);
    private static final long X = 100;
    private static final long Y = 101;

    @Test
    void promotionOfAKeyThatLeftTheIndexIsStaleWhileTheNewOwnerWaitsForALease() {
        StoreHarness h = new StoreHarness(TinyModel.store(4, 2));
        h.save(1, A, 0);
        h.drain();
        long unit = h.unitsOf(A).get(0);
        assertTrue(h.store.testView().isResident(unit));
        assertEquals(LeaseStatus.LEASED, h.lookup(Y, A).leaseStatus());
        h.save(2, C, 10);
        h.drain();
        LookupResult outdatedA = h.lookup(X, A);
        assertEquals(HitClass.L1, outdatedA.hitClass());
        h.release(X);

        h.save(3, B, 20);
        assertEquals(unit, h.unitsOf(B).get(0), "the ring gave A's slot to B");
        assertNull(h.store.testView().l2Entry(A.get(0)), "A left the index with its run");
        assertFalse(h.store.testView().isResident(unit), "A's L1 copy left L1 with it (Y still holds the slice)");
        assertTrue(h.pendingOf(IoOp.CopyFromGpu.class).isEmpty(), "B waits for Y's lease on unit u");

        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(X, outdatedA));
        IoOp.L2Read read = h.first(IoOp.L2Read.class);
        assertEquals(unit, read.l2Offset());
        // The harness checks invariants after the completion: R4 failed here before the fix.
        h.complete(read);

        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_STALE));
        assertEquals(0, h.store.counter(StoreCounter.PROMOTIONS_PUBLISHED));
        assertFalse(h.store.testView().isResident(unit), "nothing was published at a unit A no longer owns");
        assertEquals(List.of(new StoreEvent.AcquireDone(X, false)),
                h.events().stream().filter(e -> e instanceof StoreEvent.AcquireDone).toList());

        // Once both leases go, B stores at u and its bytes are what L2 and a fresh lookup give.
        h.release(X);
        h.release(Y);
        h.drain();
        assertEquals(new Content(B.get(0), 0), h.ledger.l2At(unit));
        assertEquals(HitClass.MISS, h.lookup(X, A).hitClass());
        LookupResult hitB = h.lookup(Y, B);
        assertEquals(HitClass.L1, hitB.hitClass());
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(Y, 30, 1));
        h.drain();
        h.release(Y);
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }
}
