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
 * R2: a slice that is the source of a pending L2 write is not reused until the write completes;
 * the store that needs the space waits (docs/tiered-store.md section 7).
 *
 * <p>L1 holds exactly one block; L2 has room for both keys, so only L1 is contended.
 *
 * <pre>
 *   store A: stage, commit → A resident in slice s, its L2 write W_A (s → unit a) pending
 *   store B: needs one block of L1, and the only block is s
 *     fixed:   s cannot be freed while W_A reads it: B waits, no staging copy for B
 *              W_A completes → s is evicted and freed → B reserves s, stages, commits
 *              L2 unit a holds A's bytes; a later load of A from L2 matches
 *     R2 bug:  A is evicted and s is freed at once; B reserves s and stages into it
 *              B's staging copy lands before W_A → W_A writes B's bytes to unit a
 *              a later load of A from L2 gets B's bytes
 * </pre>
 *
 * <p>Second pair: the slice leaves the L1 index while its write is pending (L1 of 2 blocks):
 * <pre>
 *   store A: commit, W_A pending;  store C: commit, W_C pending; save admission evicts A from L1
 *     fixed:   A's slice stays held as W_A's source (pending write only): no free byte
 *              store B waits; W_A completes → B stages into A's old slice
 *     R2 bug:  A's slice is freed at the eviction; B stages into it before W_A → same damage
 * </pre>
 */
class RaceR02PendingWriteSliceTest {

    private static final List<BlockKey> A = BlockChains.named("r2-A", 1);
    private static final List<BlockKey> B = BlockChains.named("r2-B", 1);
    private static final List<BlockKey> C = BlockChains.named("r2-C", 1);
    private static final long X = 100;

    /** Store A up to its pending write; returns W_A. */
    private static IoOp.L2Write storeAWithPendingWrite(StoreHarness h) {
        h.save(1, A, 0);
        h.complete(h.stagingOf(1));
        IoOp.L2Write writeA = h.first(IoOp.L2Write.class);
        assertEquals(h.unitsOf(A).get(0), writeA.l2Offset());
        assertTrue(h.store.testView().isResident(writeA.l2Offset()));
        return writeA;
    }

    /** Store A with W_A pending, then store C, whose save admission evicts A from the L1 index. */
    private static IoOp.L2Write evictAWhileItsWriteIsPending(StoreHarness h) {
        IoOp.L2Write writeA = storeAWithPendingWrite(h);
        h.save(2, C, 10);
        h.complete(h.stagingOf(2));
        assertFalse(h.store.testView().isResident(writeA.l2Offset()), "save admission evicted A from the L1 index");
        assertTrue(h.pending.contains(writeA), "W_A is still pending");
        return writeA;
    }

    /** Looks A up from L2 for request X, promotes it and loads it; the ledger tells what arrived. */
    private static void loadAFromL2(StoreHarness h) {
        h.promoteAndLoad(X, A, 40);
    }

    @Test
    void fixedModelHoldsPendingWriteSliceUntilTheWriteCompletes() {
        StoreHarness h = new StoreHarness(TinyModel.store(1, 8));
        IoOp.L2Write writeA = storeAWithPendingWrite(h);
        long unitA = writeA.l2Offset();

        h.save(2, B, 10);
        assertEquals(1, h.store.counter(StoreCounter.STORE_RESERVATION_WAITS), "B waits for L1 space");
        assertFalse(h.hasStaging(2), "no staging copy for B while A's write reads the only slice");
        assertTrue(h.store.testView().isResident(unitA), "A keeps its slice while its write is pending");
        assertEquals(0, h.store.testView().l1FreeBytes());

        h.complete(writeA);
        IoOp.CopyFromGpu stageB = h.stagingOf(2);
        assertEquals(writeA.l1Offset(), stageB.l1Offset(), "B reuses the slice only after W_A completed");
        assertFalse(h.store.testView().isResident(unitA));
        h.complete(stageB);
        h.drain();

        assertEquals(new Content(A.get(0), 0), h.ledger.l2At(unitA));
        assertEquals(new Content(B.get(0), 0), h.ledger.l2At(h.unitsOf(B).get(0)));
        loadAFromL2(h);
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(0, h.ledger.stagingMismatches());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksPendingWriteSliceIsReusedAndL2GetsTheWrongBytes() {
        StoreHarness h = new StoreHarness(TinyModel.store(1, 8).withKnownBugs(Set.of(KnownBug.R2_REUSE_PENDING_WRITE_SLICE)));
        IoOp.L2Write writeA = storeAWithPendingWrite(h);
        long unitA = writeA.l2Offset();

        h.save(2, B, 10);
        assertEquals(0, h.store.counter(StoreCounter.STORE_RESERVATION_WAITS), "B did not wait");
        IoOp.CopyFromGpu stageB = h.stagingOf(2);
        assertEquals(writeA.l1Offset(), stageB.l1Offset(), "B stages into the slice W_A still reads");
        assertFalse(h.store.testView().isResident(unitA));

        h.complete(stageB);
        h.complete(writeA);
        Content inL2 = h.ledger.l2At(unitA);
        assertNotEquals(new Content(A.get(0), 0), inL2, "W_A wrote the bytes of another key");
        assertEquals(new Content(B.get(0), 0), inL2);
        h.drain();

        loadAFromL2(h);
        assertEquals(1, h.ledger.loadMismatches(), "the load of A from L2 delivers B's bytes");
        assertEquals(0, h.ledger.loadMatches());
    }

    @Test
    void fixedModelHoldsSliceEvictedFromTheIndexWhileItsWriteIsPending() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 8));
        IoOp.L2Write writeA = evictAWhileItsWriteIsPending(h);
        long unitA = writeA.l2Offset();
        assertEquals(0, h.store.testView().l1FreeBytes(), "A's slice is still held by W_A");

        h.save(3, B, 20);
        assertEquals(1, h.store.counter(StoreCounter.STORE_RESERVATION_WAITS));
        assertFalse(h.hasStaging(3), "B waits: the only slice that could be freed is W_A's source");
        h.complete(writeA);
        assertEquals(writeA.l1Offset(), h.stagingOf(3).l1Offset(), "B gets A's old slice once W_A completed");
        h.drain();

        assertEquals(new Content(A.get(0), 0), h.ledger.l2At(unitA));
        loadAFromL2(h);
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksSliceEvictedFromTheIndexIsFreedUnderItsWrite() {
        StoreHarness h = new StoreHarness(TinyModel.store(2, 8).withKnownBugs(Set.of(KnownBug.R2_REUSE_PENDING_WRITE_SLICE)));
        IoOp.L2Write writeA = evictAWhileItsWriteIsPending(h);
        long unitA = writeA.l2Offset();
        assertEquals(TinyModel.BLOCK_BYTES, h.store.testView().l1FreeBytes(), "A's slice went back to the pool under W_A");

        h.save(3, B, 20);
        assertEquals(0, h.store.counter(StoreCounter.STORE_RESERVATION_WAITS));
        IoOp.CopyFromGpu stageB = h.stagingOf(3);
        assertEquals(writeA.l1Offset(), stageB.l1Offset(), "B stages into the slice W_A still reads");
        h.complete(stageB);
        h.complete(writeA);
        assertEquals(new Content(B.get(0), 0), h.ledger.l2At(unitA), "W_A wrote B's bytes to A's unit");
        h.drain();

        loadAFromL2(h);
        assertEquals(1, h.ledger.loadMismatches());
        assertEquals(0, h.ledger.loadMatches());
    }
}
