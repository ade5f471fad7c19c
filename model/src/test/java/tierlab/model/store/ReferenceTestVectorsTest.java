package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.l2.L2Snapshot;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/** The three test vectors of docs/tiered-store.md section 6, from the reference system. */
class ReferenceTestVectorsTest {

    @Test
    void twentySingleBlockStoresInTwentyBlocksLeaveNineteenResident() {
        StoreHarness h = new StoreHarness(TinyModel.store(20, 100));
        assertEquals(TinyModel.BLOCK_BYTES, h.store.settings().headroomBytes(), "5% of 20 blocks rounds to one block");
        for (int i = 0; i < 20; i++) {
            h.save(i, BlockChains.named("prompt-" + i, 1), i);
            h.drain();
        }
        assertEquals(19, h.store.residentCount());
        assertEquals(19 * TinyModel.BLOCK_BYTES, h.store.l1UsedBytes());
        // LRU: the first store is the one that went.
        List<Long> first = h.unitsOf(BlockChains.named("prompt-0", 1));
        assertFalse(h.store.testView().isResident(first.get(0)));
        assertTrue(h.store.testView().isResident(h.unitsOf(BlockChains.named("prompt-19", 1)).get(0)));
    }

    @Test
    void groupedFiveSlotStoreInFiveBlocksEvictsTheSuffix() {
        StoreHarness h = new StoreHarness(TinyModel.store(5, 100));
        List<BlockKey> chain = BlockChains.named("grouped", 5);
        h.save(1, chain, 0);
        assertEquals(1, h.pendingOf(tierlab.model.io.IoOp.CopyFromGpu.class).size(), "one contiguous staging copy");
        h.complete(h.first(tierlab.model.io.IoOp.CopyFromGpu.class));
        List<Long> units = h.unitsOf(chain);
        for (int slot = 0; slot < 4; slot++) {
            assertTrue(h.store.testView().isResident(units.get(slot)), "slot " + slot + " stays resident");
        }
        assertFalse(h.store.testView().isResident(units.get(4)), "slot 4, the suffix, is evicted");
        h.drain();
        assertEquals(4, h.store.residentCount());
        assertEquals(4 * TinyModel.BLOCK_BYTES, h.store.l1UsedBytes(), "the evicted slot's memory returns once its write lands");
        assertEquals(1, h.store.counter(StoreCounter.L2_WRITE_OPS), "five adjacent slots are one contiguous write");
    }

    @Test
    void promotionsFillToFullAndTheNextPromotionEvictsTheHeadroomEntry() {
        StoreSettings settings = TinyModel.store(5, 100);
        // e and f live only in L2: store them, snapshot the index, restart with an empty L1.
        StoreHarness before = new StoreHarness(settings);
        List<BlockKey> e = BlockChains.named("e", 1);
        List<BlockKey> f = BlockChains.named("f", 1);
        before.save(1, e, 0);
        before.save(2, f, 1);
        before.drain();
        L2Snapshot snapshot = before.store.snapshot();
        StoreHarness h = new StoreHarness(TieredStore.restore(settings, snapshot, new DecisionTrace()), before.ledger);
        assertEquals(0, h.store.residentCount());
        String[] names = {"a", "b", "c", "d"};
        for (int i = 0; i < names.length; i++) {
            h.save(10 + i, BlockChains.named(names[i], 1), 10 + i);
            h.drain();
        }
        assertEquals(4, h.store.residentCount());

        LookupResult hitE = h.lookup(20, e);
        assertEquals(LookupResult.HitClass.L2, hitE.hitClass());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(20, hitE));
        h.drain();
        assertEquals(5, h.store.residentCount(), "a promotion may fill L1 to 100%");
        assertTrue(h.store.testView().isHeadroom(hitE.units().get(0)));
        h.release(20);

        LookupResult hitF = h.lookup(21, f);
        h.acquire(21, hitF);
        h.drain();
        assertEquals(5, h.store.residentCount());
        assertFalse(h.store.testView().isResident(hitE.units().get(0)), "e, the headroom entry, is evicted");
        for (String name : names) {
            assertTrue(h.store.testView().isResident(h.unitsOf(BlockChains.named(name, 1)).get(0)), name + " stays");
        }
        assertEquals(0, h.ledger.mismatches());
    }
}
