package tierlab.sim.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.L2WritePolicy;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.sim.SimRuntime;
import tierlab.sim.testkit.SimRig;

/**
 * Write-back through a crash (docs/policies.md, "L2 write policies"): L1 holds dirty blocks when the
 * process dies; the recovered index has none of them, the payload ledger agrees with what it kept,
 * and nothing stale or never written is served after the restart.
 */
class CrashRestartWriteBackTest {

    @Test
    void aCrashLosesTheDirtyBlocksAndTheRecoveredStoreServesOnlyWrittenOnes() {
        Geometry geometry = Geometry.qwen3_8b();
        long block = geometry.blockBytes();
        // L1 of 60 blocks: the twelve prompts of A (~12 blocks each) overflow it, so some blocks are
        // written back and some are still dirty when the process crashes.
        StoreSettings settings = StoreSettings.defaults(geometry, 60 * block, 400 * block).toBuilder()
                .l2WritePolicy(L2WritePolicy.WRITE_BACK).build();
        SimRuntime runtime = SimRig.of(settings, SchedulerSettings.defaults(20_000).withConcurrency(4), 9).runtime();
        runtime.setCheckInvariants(true);
        runtime.setSnapshotIntervalNs(200_000_000L);
        Set<Long> ids = new TreeSet<>();
        long ms = 1_000_000L;
        for (int p = 0; p < 12; p++) {
            ids.add(submit(runtime, p, "A", p, 10 + p % 5, 50 * ms * p));
        }
        // A one-block request long after A has settled: the runtime snapshots its index as it handles
        // it, so the last snapshot before the crash sees every block of A committed, dirty or written.
        ids.add(submit(runtime, 100, "B", 0, 1, 2_000 * ms));
        long[] dirtyAtCrash = {-1};
        long[] flushedBeforeCrash = {-1};
        runtime.simulator().at(2_499 * ms, now -> {
            dirtyAtCrash[0] = runtime.store().unwrittenUnits();
            flushedBeforeCrash[0] = runtime.store().counter(StoreCounter.L2_WRITE_BACK_FLUSHES);
        });
        runtime.crashAt(2_500 * ms, 50 * ms);
        for (int p = 0; p < 12; p++) {
            ids.add(submit(runtime, 200 + p, "A", p, 10 + p % 5, 3_000 * ms + 50 * ms * p));
        }
        runtime.run();

        assertEquals(1, runtime.crashes());
        assertTrue(dirtyAtCrash[0] > 0, "L1 held dirty blocks when the process crashed");
        assertTrue(flushedBeforeCrash[0] > 0, "and L1 had written some back before");
        assertEquals(ids, CrashRestartTest.served(runtime), "every request is served, before the crash or after the restart");
        assertEquals(0, runtime.ledger().mismatches(), "nothing stale or unwritten served: " + runtime.ledger().mismatchExamples());
        assertEquals(0, runtime.store().l2Disagreements(runtime.ledger()),
                "every key of the store holds its bytes: on L2 when written, in L1 when still dirty");
        assertTrue(runtime.store().leftovers().isEmpty(), runtime.store().leftovers().toString());
        // The recovered store's own counters: the prompts written back are L2 hits, those still dirty
        // at the crash are misses (their keys were never in a snapshot).
        assertTrue(runtime.store().counter(StoreCounter.LOOKUP_L2) > 0, "the written blocks are served from L2");
        assertTrue(runtime.store().counter(StoreCounter.LOOKUP_MISS) > 0, "the dirty blocks are lost");
        assertTrue(runtime.ledger().loadMatches() > 0);
    }

    private static long submit(SimRuntime runtime, long id, String family, int prompt, int blocks, long arrivalNs) {
        List<BlockKey> chain = BlockChains.ofPrompt(family.hashCode() * 1000L + prompt, blocks);
        runtime.submit(new RequestSpec(id, arrivalNs, chain.size() * 16L + 5, 1, chain));
        return id;
    }
}
