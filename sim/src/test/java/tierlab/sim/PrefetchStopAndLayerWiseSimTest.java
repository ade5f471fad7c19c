package tierlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.serving.PrefetchStop;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.trace.DecisionTrace;
import tierlab.sim.device.DeviceProfile;
import tierlab.model.util.SeedTree;

/**
 * The prefetch stop policies and layer-wise loading in the simulator, on the H100 preset: two passes over
 * 24 prompts of 20–40 Qwen3-8B blocks with an L1 of 150 blocks, so the second pass prefetches most of its
 * KV from NVMe. Every invariant is checked after every event and every load's payload is verified.
 */
class PrefetchStopAndLayerWiseSimTest {

    record Run(List<RequestOutcome> outcomes, long mismatches, long virtualNs) {
        long prefetchTimeoutTokens() {
            return outcomes.stream().mapToLong(RequestOutcome::prefetchTimeoutTokens).sum();
        }

        double meanTtftNs() {
            return outcomes.stream().mapToLong(RequestOutcome::ttftNs).average().orElseThrow();
        }
    }

    static Run run(SchedulerSettings scheduler) {
        Geometry geometry = Geometry.qwen3_8b();
        long block = geometry.blockBytes();
        StoreSettings settings = StoreSettings.defaults(geometry, 150 * block, 4_000 * block);
        DecisionTrace trace = new DecisionTrace();
        ServingEngine engine = ServingEngines.create(scheduler, new TieredStore(settings, trace), trace);
        SimRuntime runtime = new SimRuntime(engine, DeviceProfile.preset("qwen3-8b-h100"), new SeedTree(11));
        runtime.setCheckInvariants(true);
        List<RequestSpec> requests = new ArrayList<>();
        for (int pass = 0; pass < 2; pass++) {
            for (int p = 0; p < 24; p++) {
                int blocks = 20 + p % 21;
                List<BlockKey> chain = BlockChains.ofPrompt(p, blocks);
                requests.add(new RequestSpec(pass * 100L + p, 0, blocks * 16L + 3, 2, chain));
            }
        }
        runtime.submitClosedLoop(requests, 4, 0);
        runtime.run();
        assertEquals(48, engine.finished().size());
        assertTrue(runtime.store().leftovers().isEmpty(), runtime.store().leftovers().toString());
        return new Run(engine.finished(), runtime.ledger().mismatches(), runtime.simulator().nowNs());
    }

    private static SchedulerSettings base() {
        return SchedulerSettings.defaults(20_000).withConcurrency(4).withPrefetch(2, true);
    }

    @Test
    void stoppedPrefetchesRecomputeWhatDidNotArriveAndServeNoWrongByte() {
        Run waiting = run(base());
        Run bestEffort = run(base().withPrefetchStop(PrefetchStop.BEST_EFFORT));
        Run timeout = run(base().withPrefetchStop(PrefetchStop.timeout(1_000_000, 0)));
        System.out.printf("sim stop policies: mean TTFT wait-complete %.1f ms, best-effort %.1f ms (%d tokens stopped),"
                        + " timeout:1+0 %.1f ms (%d tokens stopped)%n", waiting.meanTtftNs() / 1e6, bestEffort.meanTtftNs() / 1e6,
                bestEffort.prefetchTimeoutTokens(), timeout.meanTtftNs() / 1e6, timeout.prefetchTimeoutTokens());
        assertEquals(0, waiting.prefetchTimeoutTokens(), "wait-complete never stops");
        assertTrue(bestEffort.prefetchTimeoutTokens() > 0, "best-effort stops prefetches");
        assertTrue(timeout.prefetchTimeoutTokens() > 0, "a 1 ms timeout stops prefetches of tens of blocks");
        for (Run run : List.of(waiting, bestEffort, timeout)) {
            assertEquals(0, run.mismatches());
            for (RequestOutcome o : run.outcomes()) {
                assertEquals(o.promptTokens(), o.gpuCachedTokens() + o.l1Tokens() + o.l2Tokens() + o.recomputedTokens());
                assertTrue(o.prefetchTimeoutTokens() <= o.recomputedTokens(), o.toString());
            }
        }
    }

    @Test
    void layerWiseLoadingShortensStepsThatLoadAndChangesNoByte() {
        Run whole = run(base());
        Run layered = run(base().withLoadLayerGroups(6));
        System.out.printf("sim layer-wise loading: mean TTFT whole blocks %.2f ms, 6 layer groups %.2f ms;"
                + " run %.3f s vs %.3f s%n", whole.meanTtftNs() / 1e6, layered.meanTtftNs() / 1e6, whole.virtualNs() / 1e9,
                layered.virtualNs() / 1e9);
        assertEquals(0, layered.mismatches());
        assertTrue(layered.meanTtftNs() < whole.meanTtftNs(), "copy and compute overlap");
        assertTrue(layered.virtualNs() < whole.virtualNs());
    }
}
