package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.l2.L2Index;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/** A store handed an {@link L2Pool} from outside keeps its L2 state there, and only there. */
class L2PoolTest {
    private static final int TP = 2;
    private static final int L2_SLOTS = 64;

    /** Completes the harness's pending operations one at a time, checking the pool after each. */
    private static void drainCheckingPool(StoreHarness h, L2Pool pool) {
        while (!h.pending.isEmpty()) {
            h.complete(h.pending.getFirst());
            pool.checkInvariants();
        }
    }

    @Test
    void thePoolHoldsWhatTheStoreCommitted() {
        StoreSettings settings = TinyModel.store(16, L2_SLOTS, TP);
        L2Pool pool = L2Pool.empty(settings);
        pool.checkInvariants();
        StoreHarness h = new StoreHarness(new TieredStore(settings, new DecisionTrace(), pool));
        assertSame(pool, h.store.l2Pool());
        List<BlockKey> chain = BlockChains.named("pooled", 4);

        h.save(1, chain, 0);
        pool.checkInvariants();
        // Claimed on fresh slots, not visible before every lane's staging copy landed.
        assertEquals(4, pool.ring().usedSlots());
        for (BlockKey key : chain) {
            assertNotNull(pool.index().entry(key), "claimed " + key);
            assertNull(pool.index().visible(key), "not yet committed " + key);
        }
        assertEquals(0, pool.storeEpoch());

        drainCheckingPool(h, pool);
        // One store epoch per committed unit: 4 blocks of 2 lanes.
        assertEquals(4 * TP, pool.storeEpoch());
        assertEquals(4, pool.index().visibleCount());
        Set<Long> versions = new HashSet<>();
        for (BlockKey key : chain) {
            L2Index.Entry entry = pool.index().visible(key);
            assertNotNull(entry, "committed " + key);
            assertSame(entry, pool.index().atSlot(entry.slot()));
            assertEquals(entry.runId(), pool.ring().ownerOf(entry.slot()));
            long newestLane = 0;
            for (int lane = 0; lane < TP; lane++) {
                long unitEpoch = pool.unitEpoch(lane * L2_SLOTS + entry.slot());
                assertTrue(unitEpoch > 0 && unitEpoch <= pool.storeEpoch(), "lane " + lane + " of " + key + ": " + unitEpoch);
                newestLane = Math.max(newestLane, unitEpoch);
            }
            assertEquals(newestLane, entry.version(), "a block's version is its last lane commit");
            versions.add(entry.version());
        }
        assertEquals(4, versions.size(), "every block committed at its own epoch");
        assertEquals(chain, h.store.snapshot().entries().stream().map(L2Index.EntryRecord::key).toList());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void aPoolRestoredFromASnapshotServesANewStoreFromL2() {
        StoreSettings settings = TinyModel.store(16, L2_SLOTS, TP);
        L2Pool pool = L2Pool.empty(settings);
        StoreHarness first = new StoreHarness(new TieredStore(settings, new DecisionTrace(), pool));
        List<BlockKey> chain = BlockChains.named("restored", 3);
        first.save(1, chain, 0);
        drainCheckingPool(first, pool);

        L2Pool restored = L2Pool.restore(settings, first.store.snapshot());
        restored.checkInvariants();
        assertEquals(pool.storeEpoch(), restored.storeEpoch(), "the epoch continues after the newest entry");
        assertEquals(pool.ring().runs(), restored.ring().runs());
        StoreHarness second = new StoreHarness(new TieredStore(settings, new DecisionTrace(), restored), first.ledger);
        LookupResult hit = second.lookup(2, chain);
        assertEquals(HitClass.L2, hit.hitClass());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, second.acquire(2, hit));
        drainCheckingPool(second, restored);
        assertEquals(TieredStore.LoadOutcome.STARTED, second.load(2, 100, chain.size()));
        drainCheckingPool(second, restored);
        second.release(2);
        restored.checkInvariants();
        assertEquals(3 * 16, hit.hitTokens());
        assertEquals(0, second.ledger.mismatches(), second.ledger.mismatchExamples().toString());
        assertTrue(second.ledger.loadMatches() > 0);
        // The pools are separate objects: what the second store commits lands in its pool only.
        long firstEpoch = pool.storeEpoch();
        List<BlockKey> other = BlockChains.named("other", 2);
        second.save(3, other, 200);
        drainCheckingPool(second, restored);
        assertNotNull(restored.index().visible(other.getFirst()));
        assertNull(pool.index().visible(other.getFirst()));
        assertEquals(firstEpoch, pool.storeEpoch());
        assertEquals(firstEpoch + 2 * TP, restored.storeEpoch());
    }

    @Test
    void aPoolOfAnotherSizeIsRefusedNamingBoth() {
        L2Pool pool = L2Pool.empty(TinyModel.store(16, L2_SLOTS, TP));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new TieredStore(TinyModel.store(16, 32, TP), new DecisionTrace(), pool));
        assertEquals("L2 pool: it holds 64 slots of " + TinyModel.BLOCK_BYTES / TP + " B lanes with tp=2, but the store"
                + " has 32 slots of " + TinyModel.BLOCK_BYTES / TP + " B with tp=2", refused.getMessage());
    }
}
