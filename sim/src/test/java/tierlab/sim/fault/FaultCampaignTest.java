package tierlab.sim.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.sim.SimRuntime;
import tierlab.model.util.SeedTree;
import tierlab.sim.testkit.SimRig;

/**
 * Fault campaigns: whatever the device does, nothing wrong is served, requests fall back to
 * recompute, and no reservation, lease or slice leaks (checked after every event and at the end).
 */
class FaultCampaignTest {

    static SimRuntime campaign(FaultSettings faults, long seed, int prefetch) {
        Geometry geometry = Geometry.qwen3_8b();
        long block = geometry.blockBytes();
        StoreSettings settings = StoreSettings.defaults(geometry, 100 * block, 2_000 * block);
        SimRig rig = SimRig.of(settings, SchedulerSettings.defaults(20_000).withConcurrency(6).withPrefetch(prefetch, true), seed);
        SimRuntime runtime = rig.runtime();
        SeedTree seeds = rig.seeds();
        FaultInjector injector = new FaultInjector(faults, seeds.random("faults"));
        runtime.setCompletionFilter(injector);
        runtime.setCheckInvariants(true);
        submitWorkload(runtime, seeds);
        runtime.run();
        assertEquals(45, runtime.scheduler().finished().size(), "every request finished (I10)");
        assertTrue(runtime.store().leftovers().isEmpty(), runtime.store().leftovers().toString());
        assertEquals(0, runtime.ledger().mismatches(), "nothing wrong is served: " + runtime.ledger().mismatchExamples());
        runtime.scheduler().checkInvariants();
        return runtime;
    }

    /** The campaign's 45 requests: three passes over 15 prompts of 12 to 20 blocks, arrivals drawn from {@code seeds}. */
    static void submitWorkload(SimRuntime runtime, SeedTree seeds) {
        SplittableRandom arrivals = seeds.random("arrivals");
        long t = 0;
        for (int pass = 0; pass < 3; pass++) {
            for (int p = 0; p < 15; p++) {
                t += (long) (arrivals.nextDouble() * 30_000_000);
                int blocks = 12 + p % 9;
                List<BlockKey> chain = BlockChains.ofPrompt(p, blocks);
                runtime.submit(new RequestSpec(pass * 100L + p, t, blocks * 16L + 3, 2, chain));
            }
        }
    }

    @Test
    void readErrorsFallBackToRecomputeAndNeverServeWrongBytes() {
        for (int prefetch : new int[] {0, 2}) {
            SimRuntime clean = campaign(FaultSettings.none(), 3, prefetch);
            SimRuntime faulty = campaign(FaultSettings.readErrors(0.2), 3, prefetch);
            assertTrue(faulty.store().counter(StoreCounter.PROMOTIONS_FAILED) > 0, "faults were injected");
            if (prefetch == 0) {
                // A failed synchronous read gives up the hit: the request computes those tokens.
                assertTrue(faulty.scheduler().computedPromptTokens() > clean.scheduler().computedPromptTokens(),
                        "failed reads are recomputed");
            } else {
                // A failed prefetch releases its lease and looks the request up again: what is still
                // stored is retried, so the faulty run computes at least as much, never less.
                assertTrue(faulty.scheduler().computedPromptTokens() >= clean.scheduler().computedPromptTokens());
                assertTrue(faulty.scheduler().prefetchCalls() > clean.scheduler().prefetchCalls(), "failed prefetches are retried");
            }
        }
    }

    @Test
    void writeErrorsLoseKeysInsteadOfServingGarbage() {
        SimRuntime faulty = campaign(new FaultSettings(0, 0.3, 0, 0, 0, 0, 0, 0, List.of()), 4, 2);
        assertTrue(faulty.store().counter(StoreCounter.L2_WRITE_FAILURES) > 0);
    }

    @Test
    void reorderedDelayedShortAndStuckCompletionsKeepEveryInvariant() {
        FaultSettings chaos = new FaultSettings(0.05, 0.05, 0.05, 0.1, 5_000_000, 2_000_000, 0.02, 50_000_000, List.of());
        for (long seed = 10; seed < 14; seed++) {
            campaign(chaos, seed, (int) (seed % 3));
        }
    }
}
