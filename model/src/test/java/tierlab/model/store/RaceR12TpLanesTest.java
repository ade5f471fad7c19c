package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.l2.L2Index;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * R12 (docs/tiered-store.md section 7): with tp = 2 each block has two lanes, committed separately by
 * their ranks. A block must stay invisible until both lanes committed, and each lane's lease range
 * is a range of its own.
 *
 * <p>One staging slot, so lane 1's copy waits for lane 0's:
 *
 * <pre>
 *   save A (1 block, tp = 2) ── CopyFromGpu(lane 0) in flight, lane 1 queued
 *   lane 0's copy completes → lane 0 commits, L2Write(lane 0); CopyFromGpu(lane 1) in flight
 *   X: lookup A                 fixed: MISS; R12 bug: a hit (MIXED: lane 0 resident, lane 1 not)
 *   [bug] X acquires → L2Read(lane 1) of a unit nobody has written → load → mismatch
 *   [fixed] lane 1 commits → lookup is an L1 hit leasing two lane ranges → load releases both
 * </pre>
 */
class RaceR12TpLanesTest {

    private static final long WRITER = 1;
    private static final long X = 10;
    private static final long LANE = TinyModel.BLOCK_BYTES / 2;

    private final List<BlockKey> a = BlockChains.named("A", 1);

    private static StoreHarness harness(Set<KnownBug> bugs) {
        return new StoreHarness(TinyModel.store(8, 16, 2).withStaging(1, true).withKnownBugs(bugs));
    }

    private static boolean isStagingOfLane(IoOp op, int lane) {
        return op instanceof IoOp.CopyFromGpu copy && copy.lane() == lane;
    }

    /** Stages and commits lane 0 of A; lane 1's staging copy is left in flight and returned. */
    private IoOp.CopyFromGpu commitLaneZeroOnly(StoreHarness h) {
        h.save(WRITER, a, 0);
        assertEquals(1, h.pendingOf(IoOp.CopyFromGpu.class).size(), "one staging slot: lane 1 waits");
        h.complete(h.first(op -> isStagingOfLane(op, 0)));
        L2Index.Entry entry = h.store.testView().l2Entry(a.get(0));
        assertEquals(0b01, entry.committedLaneMask(), "lane 0 committed, lane 1 not");
        assertTrue(h.store.testView().isResident(h.store.testView().unitOffset(entry.slot(), 0)));
        return (IoOp.CopyFromGpu) h.first(op -> isStagingOfLane(op, 1));
    }

    @Test
    void fixedModelHoldsBlockInvisibleUntilEveryLaneCommits() {
        StoreHarness h = harness(Set.of());
        IoOp.CopyFromGpu laneOneStaging = commitLaneZeroOnly(h);
        int slot = h.store.testView().l2Entry(a.get(0)).slot();

        assertNull(h.store.testView().l2Visible(a.get(0)));
        LookupResult early = h.lookup(X, a);
        assertEquals(LookupResult.HitClass.MISS, early.hitClass(), "one lane committed is not a hit");
        assertEquals(0, early.hitTokens());
        assertEquals(0, h.store.leaseCount());

        h.complete(laneOneStaging);
        assertEquals(0b11, h.store.testView().l2Entry(a.get(0)).committedLaneMask());
        LookupResult hit = h.lookup(X, a);
        assertEquals(LookupResult.HitClass.L1, hit.hitClass());
        assertEquals(LookupResult.LeaseStatus.LEASED, hit.leaseStatus());
        assertEquals(List.of(h.store.testView().unitOffset(slot, 0), h.store.testView().unitOffset(slot, 1)), hit.units(),
                "the lease holds one range per lane");
        assertEquals(List.of(new Content(a.get(0), 0), new Content(a.get(0), 1)), hit.expected());
        assertEquals(2 * LANE, h.store.leasedRemainingBytes());

        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(X, 100, 1));
        IoOp.CopyToGpu copy = h.first(IoOp.CopyToGpu.class);
        assertEquals(2, copy.segments().size(), "one grouped copy carries both lanes");
        assertNotEquals(copy.segments().get(0).l1Offset(), copy.segments().get(1).l1Offset());
        h.complete(copy);
        assertEquals(0, h.store.leasedRemainingBytes(), "both lanes' ranges are released as the load finishes");
        assertEquals(2, h.ledger.loadMatches());
        h.drain();
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
        h.release(X);
        assertEquals(List.of(), h.store.leftovers());
    }

    @Test
    void ablationBreaksBlockVisibleAfterItsFirstLane() {
        StoreHarness h = harness(Set.of(KnownBug.R12_VISIBLE_BEFORE_ALL_LANES));
        IoOp.CopyFromGpu laneOneStaging = commitLaneZeroOnly(h);
        int slot = h.store.testView().l2Entry(a.get(0)).slot();

        LookupResult early = h.lookup(X, a);
        assertTrue(early.isHit(), "the bug: a block with one of two lanes committed is a hit");
        assertEquals(LookupResult.HitClass.MIXED, early.hitClass());
        assertEquals(1, early.residentUnits());

        // Acquiring promotes lane 1 from an L2 unit no one has written yet.
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(X, early));
        IoOp.L2Read read = h.first(IoOp.L2Read.class);
        assertEquals(h.store.testView().unitOffset(slot, 1), read.l2Offset());
        assertNull(h.ledger.l2At(read.l2Offset()), "lane 1 has never been written to L2");
        h.complete(read);
        assertEquals(List.of(new StoreEvent.AcquireDone(X, true)), h.events().stream()
                .filter(e -> e instanceof StoreEvent.AcquireDone).toList());
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(X, 100, 1));
        h.complete(h.first(IoOp.CopyToGpu.class));
        assertEquals(1, h.ledger.loadMismatches(), "lane 1 of the load is not A's KV");
        assertEquals(1, h.ledger.loadMatches(), "lane 0 is");

        h.complete(laneOneStaging);
        h.drain();
        assertEquals(1, h.ledger.loadMismatches());
    }
}
