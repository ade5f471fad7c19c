package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;

class EngineSchedulerTest {

    static StoreSettings store(long l1Blocks, long l2Blocks) {
        return TinyModel.store(l1Blocks, l2Blocks);
    }

    @Test
    void coldThenWarmPassServesTheWarmPassFromTheStore() {
        EngineHarness h = new EngineHarness(store(80, 256), SchedulerSettings.defaults(512).withConcurrency(4), 1, false);
        for (int i = 0; i < 8; i++) {
            h.submit(i, 8 * 16 + 5, 1, BlockChains.named("p" + i, 8));
        }
        h.runToQuiescence(100_000);
        assertEquals(8, h.scheduler.finished().size());
        long coldComputed = h.scheduler.computedPromptTokens();
        assertEquals(8 * (8 * 16 + 5), coldComputed, "the cold pass computes every prompt token");
        for (int i = 0; i < 8; i++) {
            h.submit(100 + i, 8 * 16 + 5, 1, BlockChains.named("p" + i, 8));
        }
        h.runToQuiescence(100_000);
        assertEquals(16, h.scheduler.finished().size());
        long warmComputed = h.scheduler.computedPromptTokens() - coldComputed;
        assertEquals(8 * 5, warmComputed, "the warm pass computes only the partial last block");
        long l1Hits = h.scheduler.finished().stream().filter(o -> o.requestId() >= 100 && o.hitClass() == HitClass.L1).count();
        assertEquals(8, l1Hits, "everything fits in L1");
        assertEquals(8 * 8, h.ledger.loadMatches());
        assertEquals(0, h.ledger.mismatches());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void warmPassLargerThanL1ReadsL2BackWithoutMismatch() {
        EngineHarness h = new EngineHarness(store(24, 512), SchedulerSettings.defaults(512).withConcurrency(4), 7, true);
        for (int i = 0; i < 10; i++) {
            h.submit(i, 8 * 16, 1, BlockChains.named("p" + i, 8));
        }
        h.runToQuiescence(1_000_000);
        for (int i = 0; i < 10; i++) {
            h.submit(100 + i, 8 * 16, 1, BlockChains.named("p" + i, 8));
        }
        h.runToQuiescence(1_000_000);
        assertEquals(20, h.scheduler.finished().size());
        assertTrue(h.store.counter(StoreCounter.L2_READ_OPS) > 0, "L1 is smaller than the working set");
        assertTrue(h.ledger.loadMatches() > 0);
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
        assertTrue(h.scheduler.deferrals() > 0 || h.scheduler.prefetchCalls() > 0);
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void sameSeedSameTraceHashDifferentSeedDifferentHash() {
        long a = runShuffled(11);
        long b = runShuffled(11);
        long c = runShuffled(12);
        assertEquals(a, b);
        assertNotEquals(a, c);
    }

    private long runShuffled(long seed) {
        EngineHarness h = new EngineHarness(store(24, 512), SchedulerSettings.defaults(512).withConcurrency(3), seed, true);
        for (int i = 0; i < 12; i++) {
            List<BlockKey> chain = BlockChains.named("p" + (i % 6), 6);
            h.submit(i, 6 * 16 + 3, 2, chain);
        }
        h.runToQuiescence(1_000_000);
        assertEquals(0, h.ledger.mismatches());
        return h.trace.hash();
    }
}
