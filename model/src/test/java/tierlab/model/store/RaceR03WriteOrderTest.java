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
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * R3: two stores to the same L2 range in flight; L2 must end with the last store's bytes (I7).
 *
 * <p>L1 holds 2 blocks, L2 holds 2 slots. A is stored first, so the FIFO ring gives A's slot
 * (unit u) to B while A's write is still pending.
 *
 * <pre>
 *   store A → slot 0 (unit u): commit, W_A pending
 *   store F → slot 1: commit (save admission evicts A from L1; A's slice stays as W_A's source), W_F done
 *   store B: ring evicts A's run, B claims slot 0 = unit u; stage; commit
 *     fixed:   W_B is chained after W_A (only W_A is pending); W_A completes → W_B issued → completes
 *              L2 unit u holds B's bytes
 *     R3 bug:  W_B is issued at once; both writes pending; W_B completes, then W_A
 *              L2 unit u holds A's bytes although B is the last store
 *   store D → slot 1 (evicts F's run); save admission evicts B from L1
 *   X: lookup(B) = L2 → promote u → load: fixed gets B's bytes, R3 bug gets A's
 * </pre>
 */
class RaceR03WriteOrderTest {

    private static final List<BlockKey> A = BlockChains.named("r3-A", 1);
    private static final List<BlockKey> F = BlockChains.named("r3-F", 1);
    private static final List<BlockKey> B = BlockChains.named("r3-B", 1);
    private static final List<BlockKey> D = BlockChains.named("r3-D", 1);
    private static final long X = 100;

    private static List<IoOp.L2Write> writesTo(StoreHarness h, long unit) {
        return h.pendingOf(IoOp.L2Write.class).stream().filter(w -> w.l2Offset() == unit).toList();
    }

    /** Stores A, F and B so that B's write to unit u is issued while A's write to u is pending; returns u. */
    private static long twoStoresToOneRange(StoreHarness h) {
        h.save(1, A, 0);
        h.complete(h.stagingOf(1));
        long unit = h.unitsOf(A).get(0);
        assertEquals(1, writesTo(h, unit).size());

        h.save(2, F, 10);
        h.complete(h.stagingOf(2));
        h.complete(writesTo(h, h.unitsOf(F).get(0)).get(0));
        assertFalse(h.store.testView().isResident(unit), "save admission evicted A from L1; W_A still reads its slice");

        h.save(3, B, 20);
        assertEquals(unit, h.unitsOf(B).get(0), "the ring gave A's slot to B");
        h.complete(h.stagingOf(3));
        assertTrue(h.store.testView().isResident(unit), "B is committed and resident");
        return unit;
    }

    /** Stores D (pushing B out of L1 but not out of L2), then loads B from L2 for request X. */
    private static void loadBFromL2(StoreHarness h, long unit) {
        h.save(4, D, 30);
        h.drain();
        assertFalse(h.store.testView().isResident(unit), "save admission evicted B from L1");
        LookupResult hit = h.promoteAndLoad(X, B, 40);
        assertEquals(List.of(unit), hit.units());
    }

    @Test
    void fixedModelHoldsLastStoreWinsInL2() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 2));
        long unit = twoStoresToOneRange(h);

        assertEquals(1, h.store.counter(StoreCounter.WRITES_CHAINED));
        List<IoOp.L2Write> pending = writesTo(h, unit);
        assertEquals(1, pending.size(), "B's write is chained, not issued");
        IoOp.L2Write writeA = pending.get(0);
        assertEquals(new Content(A.get(0), 0), h.ledger.l1At(writeA.l1Offset()), "the pending write is A's");

        h.complete(writeA);
        List<IoOp.L2Write> afterA = writesTo(h, unit);
        assertEquals(1, afterA.size(), "W_A's completion issues W_B");
        assertEquals(new Content(B.get(0), 0), h.ledger.l1At(afterA.get(0).l1Offset()));
        h.complete(afterA.get(0));
        assertEquals(new Content(B.get(0), 0), h.ledger.l2At(unit), "I7: L2 holds the last store's bytes");

        loadBFromL2(h, unit);
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(new Content(B.get(0), 0), h.ledger.l2At(unit));
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksLastStoreWinsWhenWritesCompleteOutOfOrder() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 2).withKnownBugs(Set.of(KnownBug.R3_UNCHAINED_OVERLAPPING_WRITES)));
        long unit = twoStoresToOneRange(h);

        assertEquals(0, h.store.counter(StoreCounter.WRITES_CHAINED));
        List<IoOp.L2Write> pending = writesTo(h, unit);
        assertEquals(2, pending.size(), "both writes to unit u are in flight at once");
        IoOp.L2Write writeA = pending.get(0);
        IoOp.L2Write writeB = pending.get(1);
        assertEquals(new Content(A.get(0), 0), h.ledger.l1At(writeA.l1Offset()));
        assertEquals(new Content(B.get(0), 0), h.ledger.l1At(writeB.l1Offset()));

        h.complete(writeB);
        h.complete(writeA);
        assertEquals(new Content(A.get(0), 0), h.ledger.l2At(unit), "I7 broken: the older store's bytes won");

        loadBFromL2(h, unit);
        assertEquals(1, h.ledger.loadMismatches(), "B loaded from L2 delivers A's bytes");
        assertEquals(0, h.ledger.loadMatches());
    }
}
