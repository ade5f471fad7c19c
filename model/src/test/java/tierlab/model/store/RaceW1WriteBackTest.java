package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * W1 (docs/policies.md, "Races of the write policies"): write-back evicts a dirty block and issues
 * its write; a request hits the block on L2 before that write lands. The promotion must wait for the
 * write; with the switch on it reads L2 at once and the load delivers bytes that were never written.
 */
class RaceW1WriteBackTest {

    /**
     * 20 single-block stores into an L1 of 21 blocks (save admission keeps 19 resident): the 20th
     * evicts p-0, whose write-back stays in flight, and one block stays free for a promotion.
     */
    private static StoreHarness evictedWithWriteInFlight(Set<KnownBug> bugs) {
        StoreHarness h = new StoreHarness(TinyModel.store(21, 100).toBuilder()
                .l2WritePolicy(L2WritePolicy.WRITE_BACK).knownBugs(bugs).build());
        for (int i = 0; i < 19; i++) {
            h.save(i, BlockChains.named("p-" + i, 1), i);
            h.drain();
        }
        h.save(19, BlockChains.named("p-19", 1), 19);
        h.complete(h.stagingOf(19));
        assertEquals(1, h.pendingOf(IoOp.L2Write.class).size(), "p-0's write-back is in flight");
        assertEquals(TinyModel.BLOCK_BYTES, h.store.testView().l1FreeBytes(), "one block is free: no promotion waits for space");
        return h;
    }

    private static void hitOnL2(StoreHarness h, List<BlockKey> chain) {
        LookupResult hit = h.lookup(50, chain);
        assertEquals(HitClass.L2, hit.hitClass());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(50, hit));
    }

    @Test
    void thePromotionWaitsForTheWriteBackAndLoadsItsBytes() {
        StoreHarness h = evictedWithWriteInFlight(Set.of());
        List<BlockKey> p0 = BlockChains.named("p-0", 1);
        hitOnL2(h, p0);
        assertEquals(0, h.pendingOf(IoOp.L2Read.class).size(), "the read waits for the write-back");
        h.complete(h.first(IoOp.L2Write.class));
        h.complete(h.first(IoOp.L2Read.class));
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(50, 500, 1));
        h.drain();
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.mismatches());
    }

    @Test
    void withTheSwitchOnThePromotionReadsUnwrittenBytes() {
        StoreHarness h = evictedWithWriteInFlight(Set.of(KnownBug.W1_PROMOTE_DURING_WRITE_BACK));
        hitOnL2(h, BlockChains.named("p-0", 1));
        assertEquals(1, h.pendingOf(IoOp.L2Read.class).size(), "the bug: the read goes at once");
        h.complete(h.first(IoOp.L2Read.class));
        h.load(50, 500, 1);
        h.drain();
        assertTrue(h.ledger.loadMismatches() > 0, "the load delivered bytes L2 never held for p-0");
    }
}
