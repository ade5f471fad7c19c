package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.l2.L2Snapshot;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * The L2 write policies and the admission filter (docs/policies.md, "L2 write policies"), each on a
 * case small enough to work out by hand. L1 holds 20 blocks; save admission keeps 19 resident
 * (5% headroom is one block), so the 20th single-block store evicts the least recent one.
 */
class L2WritePoliciesTest {

    private static StoreSettings settings(L2WritePolicy policy, L2Admission admission) {
        return TinyModel.store(20, 100).toBuilder().l2WritePolicy(policy).l2Admission(admission).build();
    }

    private static List<BlockKey> block(String name) {
        return BlockChains.named(name, 1);
    }

    /** Saves single-block prompts {@code prefix-0 .. prefix-(n-1)} one after the other, each drained. */
    private static void saveMany(StoreHarness h, String prefix, int n, long firstRequestId) {
        for (int i = 0; i < n; i++) {
            h.save(firstRequestId + i, block(prefix + "-" + i), firstRequestId + i);
            h.drain();
        }
    }

    /** An L1 hit on {@code name}: lookup (the lease is the hit), load, release, drain. */
    private static void hit(StoreHarness h, long requestId, String name) {
        LookupResult result = h.lookup(requestId, block(name));
        assertEquals(HitClass.L1, result.hitClass(), name + " is an L1 hit");
        h.release(requestId);
        h.drain();
    }

    @Test
    void writeThroughWritesEveryBlockAtCommit() {
        StoreHarness h = new StoreHarness(settings(L2WritePolicy.WRITE_THROUGH, L2Admission.NONE));
        saveMany(h, "p", 3, 1);
        assertEquals(3, h.store.counter(StoreCounter.L2_WRITE_OPS));
        assertEquals(0, h.store.unwrittenUnits());
        assertEquals(0, h.store.counter(StoreCounter.L2_WRITES_DEFERRED));
        assertEquals(3, h.store.snapshot().entries().size(), "all three are on disk");
    }

    @Test
    void writeBackWritesOnlyWhatL1Evicts() {
        StoreHarness h = new StoreHarness(settings(L2WritePolicy.WRITE_BACK, L2Admission.NONE));
        saveMany(h, "p", 19, 1);
        assertEquals(0, h.store.counter(StoreCounter.L2_WRITE_OPS), "nothing left L1, nothing written");
        assertEquals(19, h.store.unwrittenUnits());
        assertEquals(0, h.store.l2Disagreements(h.ledger), "the dirty units' L1 copies hold their keys' bytes");

        h.save(20, block("p-19"), 20);
        h.complete(h.stagingOf(20));
        // Save admission trims to 19 resident: the least recent, p-0, is evicted and written back.
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_BACK_FLUSHES));
        IoOp.L2Write write = h.first(IoOp.L2Write.class);
        assertEquals(h.unitsOf(block("p-0")).get(0), write.l2Offset());
        // While the write is in flight p-0 is not in a snapshot; once it lands, it is.
        assertEquals(0, h.store.snapshot().entries().size());
        h.drain();
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_OPS));
        assertEquals(19, h.store.unwrittenUnits());
        L2Snapshot snapshot = h.store.snapshot();
        assertEquals(1, snapshot.entries().size(), "only p-0 is on disk");
        assertEquals(block("p-0").get(0), snapshot.entries().get(0).key());

        // p-0 is read back from L2 with its own bytes.
        h.promoteAndLoad(30, block("p-0"), 100);
        assertEquals(0, h.ledger.mismatches());
        assertEquals(0, h.store.l2Disagreements(h.ledger));
    }

    @Test
    void aCrashLosesExactlyTheDirtyBlocksAndNeverServesThem() {
        StoreSettings settings = settings(L2WritePolicy.WRITE_BACK, L2Admission.NONE);
        StoreHarness h = new StoreHarness(settings);
        saveMany(h, "p", 20, 1);
        // p-0 was written back; p-1 .. p-19 are dirty. Snapshot now, then crash.
        L2Snapshot snapshot = h.store.snapshot();
        TieredStore recovered = TieredStore.recover(settings, snapshot, h.store.allocationsSince(snapshot.nextRunId()),
                new DecisionTrace());
        h.ledger.crash();
        StoreHarness after = new StoreHarness(recovered, h.ledger);
        assertEquals(HitClass.L2, after.lookup(40, block("p-0")).hitClass(), "the written block survives");
        after.release(40);
        for (int i = 1; i < 20; i++) {
            assertEquals(HitClass.MISS, after.lookup(41 + i, block("p-" + i)).hitClass(), "dirty p-" + i + " is lost");
        }
        assertEquals(0, recovered.l2Disagreements(h.ledger), "every key the recovered index holds has its bytes on L2");
        after.promoteAndLoad(70, block("p-0"), 200);
        assertEquals(0, h.ledger.mismatches());
    }

    @Test
    void aReservationInAnL1FullOfDirtyBlocksWritesOneBackAndWaitsForIt() {
        // x lives only on L2 (written by a write-through store, then restored into a write-back one).
        StoreHarness before = new StoreHarness(TinyModel.store(20, 100));
        before.save(1, block("x"), 1);
        before.save(2, block("y"), 2);
        before.drain();
        StoreSettings settings = settings(L2WritePolicy.WRITE_BACK, L2Admission.NONE);
        StoreHarness h = new StoreHarness(TieredStore.restore(settings, before.store.snapshot(), new DecisionTrace()),
                before.ledger);
        saveMany(h, "p", 19, 10);
        // x is promoted into the last free block and stays leased; L1 is full.
        LookupResult x = h.lookup(50, block("x"));
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(50, x));
        h.drain();
        assertEquals(20, h.store.residentCount());
        // y's promotion finds only dirty victims: the least recent (p-0) is written back, and the
        // promotion waits for that write instead of writing back all nineteen.
        LookupResult y = h.lookup(51, block("y"));
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(51, y));
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_BACK_FLUSHES));
        assertEquals(1, h.pendingOf(IoOp.L2Write.class).size());
        assertEquals(0, h.pendingOf(IoOp.L2Read.class).size(), "no space yet: y's read waits");
        h.complete(h.first(IoOp.L2Write.class));
        assertEquals(1, h.pendingOf(IoOp.L2Read.class).size(), "p-0's memory returned: y's read goes");
        h.drain();
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_BACK_FLUSHES));
        assertEquals(18, h.store.unwrittenUnits());
        h.release(50);
        h.release(51);
        h.drain();
        assertEquals(List.of(), h.store.leftovers(), "everything drains (I10)");
        assertEquals(0, h.ledger.mismatches());
    }

    @Test
    void writeAfterHitsWritesOnTheNthHitAndDropsWhatIsEvictedBefore() {
        StoreHarness h = new StoreHarness(settings(L2WritePolicy.writeAfterHits(2), L2Admission.NONE));
        h.save(1, block("b"), 1);
        h.save(2, block("a"), 2);
        h.drain();
        assertEquals(2, h.store.counter(StoreCounter.L2_WRITES_DEFERRED));
        hit(h, 10, "a");
        assertEquals(0, h.store.counter(StoreCounter.L2_WRITE_OPS), "one hit is not two");
        hit(h, 11, "a");
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITES_AFTER_HITS));
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_OPS), "the second hit writes a");
        hit(h, 12, "a");
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_OPS), "a is written once");

        // 18 more stores: 20 resident would exceed 19, so the least recent, b (never hit), is evicted
        // unwritten: its key leaves the index.
        saveMany(h, "f", 18, 100);
        assertEquals(1, h.store.counter(StoreCounter.L2_UNWRITTEN_DROPPED));
        assertNull(h.store.testView().l2Entry(block("b").get(0)));
        assertEquals(HitClass.MISS, h.lookup(200, block("b")).hitClass());
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_OPS), "b was never written");
        assertEquals(0, h.store.l2Disagreements(h.ledger));
    }

    @Test
    void theDoorkeeperWritesABlockFromItsSecondSighting() {
        StoreHarness h = new StoreHarness(settings(L2WritePolicy.WRITE_THROUGH, L2Admission.DOORKEEPER));
        h.save(1, block("a"), 1);
        h.drain();
        // The save is a's first sighting: the doorkeeper takes it, the estimate is 1 < 2.
        assertEquals(1, h.store.counter(StoreCounter.L2_ADMISSION_REJECTS));
        assertEquals(0, h.store.counter(StoreCounter.L2_WRITE_OPS));
        hit(h, 2, "a");
        // The hit is the second: the sketch counts it, estimate 1 + 1 (doorkeeper) = 2.
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_OPS));
        assertEquals(0, h.store.unwrittenUnits());
    }

    @Test
    void theFilterRemembersABlockAcrossItsL1Lifetimes() {
        StoreHarness h = new StoreHarness(settings(L2WritePolicy.WRITE_THROUGH, L2Admission.frequency(2)));
        h.save(1, block("a"), 1);
        h.drain();
        saveMany(h, "f", 19, 10);
        // a (sighted once, refused) was evicted unwritten and its key dropped; so was every filler's.
        assertNull(h.store.testView().l2Entry(block("a").get(0)));
        assertEquals(0, h.store.counter(StoreCounter.L2_WRITE_OPS));
        long dropped = h.store.counter(StoreCounter.L2_UNWRITTEN_DROPPED);
        assertEquals(1, dropped);
        // a is computed and saved again: its second sighting, written at commit.
        h.save(50, block("a"), 50);
        h.drain();
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_OPS));
        assertEquals(block("a").get(0), h.store.snapshot().entries().get(0).key());
    }

    @Test
    void writeBackBehindAFrequencyFilterDropsTheRarelyHitAndWritesTheOftenHit() {
        StoreHarness h = new StoreHarness(settings(L2WritePolicy.WRITE_BACK, L2Admission.frequency(3)));
        h.save(1, block("rare"), 1);
        h.save(2, block("hot"), 2);
        h.drain();
        hit(h, 3, "rare");          // rare: 2 sightings
        hit(h, 4, "hot");
        hit(h, 5, "hot");           // hot: 3 sightings
        // Make rare, then hot, the least recent: 18 more stores evict rare (19 resident), a 19th evicts hot.
        saveMany(h, "f", 18, 100);
        assertEquals(1, h.store.counter(StoreCounter.L2_UNWRITTEN_DROPPED), "rare: 2 < 3, dropped");
        assertEquals(0, h.store.counter(StoreCounter.L2_WRITE_OPS));
        h.save(200, block("f-18"), 200);
        h.drain();
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_BACK_FLUSHES), "hot: 3 >= 3, written back");
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_OPS));
        assertFalse(h.store.testView().isResident(h.unitsOf(block("hot")).get(0)));
        assertEquals(HitClass.L2, h.lookup(300, block("hot")).hitClass());
    }

    @Test
    void settingsAreReadFromTheirTextAndBadTextIsOneMessage() {
        assertEquals(L2WritePolicy.WRITE_THROUGH, L2WritePolicy.parse("write-through"));
        assertEquals(L2WritePolicy.WRITE_BACK, L2WritePolicy.parse("write-back"));
        assertEquals(L2WritePolicy.writeAfterHits(3), L2WritePolicy.parse("write-after-hits:3"));
        assertEquals(L2WritePolicy.WRITE_THROUGH, L2WritePolicy.parse("write-after-hits:0"), "no hits to wait for");
        assertEquals("write-after-hits:3", L2WritePolicy.parse("write-after-hits:3").label());
        assertEquals(L2Admission.NONE, L2Admission.parse("none"));
        assertEquals(L2Admission.DOORKEEPER, L2Admission.parse("doorkeeper"));
        assertEquals(L2Admission.frequency(2), L2Admission.parse("frequency:2"));
        assertEquals("l2WritePolicy: 'write-around' is not one of write-through, write-back, write-after-hits:N"
                + " (N a whole number of hits)",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> L2WritePolicy.parse("write-around")).getMessage());
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> L2Admission.parse("frequency:16")).getMessage().startsWith("l2Admission: frequency:N needs N within [1, 15]"));
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> L2WritePolicy.parse("write-after-hits:-1")).getMessage().startsWith("l2WritePolicy:"));
        assertEquals("l2WritePolicy: 'write-after-hits:99999999999999': N must be within [0, 1,000,000] hits, was 99999999999999",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> L2WritePolicy.parse("write-after-hits:99999999999999")).getMessage());
        assertEquals(L2WritePolicy.writeAfterHits(1_000_000), L2WritePolicy.parse("write-after-hits:1000000"), "the limit itself");
        assertEquals("l2WritePolicy: 'write-after-hits:1000001': N must be within [0, 1,000,000] hits, was 1000001",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> L2WritePolicy.parse("write-after-hits:1000001")).getMessage());
        StoreSettings defaults = TinyModel.store(20, 100);
        assertEquals(L2WritePolicy.WRITE_THROUGH, defaults.l2WritePolicy());
        assertEquals(L2Admission.NONE, defaults.l2Admission());
    }
}
