package tierlab.properties;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.Geometry;
import tierlab.model.serving.PrefetchStop;
import tierlab.model.request.RequestOutcome;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.TinyModel;
import tierlab.sim.SimRuntime;
import tierlab.sim.fault.FaultInjector;
import tierlab.sim.fault.FaultSettings;
import tierlab.sim.testkit.SimRig;

/**
 * The prefetch stop policies and layer-wise loading in the simulator, where the hunt (which drives the
 * engine without a device) cannot reach layer groups: drawn seeds, L1 sizes, stop policies, layer groups
 * and engines, with failed reads, latency spikes and reordered completions, every invariant checked after
 * every event. Each run finishes every request with no wrong byte and nothing left over, every request's
 * sources add up to its prompt with the stopped and failed tokens inside its recomputed ones, and the same
 * inputs give the same decision trace (I11).
 */
class PrefetchStopLayerWiseProperties {
    static final List<PrefetchStop> STOPS = List.of(PrefetchStop.WAIT_COMPLETE, PrefetchStop.BEST_EFFORT,
            PrefetchStop.timeout(500_000, 100_000), PrefetchStop.timeout(3_000_000, 1_000_000));

    static long run(long seed, int l1Blocks, int stopIndex, int layerGroups, boolean vllmV1) {
        Geometry geometry = TinyModel.geometry(1);
        StoreSettings settings = StoreSettings.defaults(geometry, l1Blocks * geometry.blockBytes(), 64 * geometry.blockBytes());
        SchedulerSettings scheduler = SchedulerSettings.defaults(2_048).withConcurrency(4).withPrefetch(2, true)
                .withPrefetchStop(STOPS.get(stopIndex)).withLoadLayerGroups(layerGroups)
                .withEngine(vllmV1 ? "vllm-v1" : "vllm");
        SimRig rig = SimRig.of(settings, scheduler, seed);
        SimRuntime runtime = rig.runtime();
        runtime.setCheckInvariants(true);
        runtime.setCompletionFilter(new FaultInjector(new FaultSettings(0.1, 0, 0, 0.1, 2_000_000, 3_000_000, 0, 0,
                List.of()), rig.seeds().random("faults")));
        DeterminismProperties.submitWorkload(runtime, rig.seeds());
        runtime.run();
        String config = "seed " + seed + ", L1 " + l1Blocks + " blocks, " + STOPS.get(stopIndex).settingText() + ", "
                + layerGroups + " layer groups, " + scheduler.engine();
        List<RequestOutcome> finished = runtime.scheduler().finished();
        if (finished.size() != 30 || runtime.ledger().mismatches() != 0 || !runtime.store().leftovers().isEmpty()) {
            throw new AssertionError(config + ": " + finished.size() + " finished, " + runtime.ledger().mismatches()
                    + " mismatches, leftovers " + runtime.store().leftovers());
        }
        for (RequestOutcome o : finished) {
            if (o.gpuCachedTokens() + o.l1Tokens() + o.l2Tokens() + o.recomputedTokens() != o.promptTokens()
                    || o.prefetchTimeoutTokens() + o.failedReadTokens() > o.recomputedTokens()) {
                throw new AssertionError(config + ": sources do not add up in " + o);
            }
        }
        return rig.trace().hash();
    }

    @Test
    void stoppedAndLayerWiseRunsKeepEveryCheckAndAreDeterministic() {
        qt().withFixedSeed(42).withExamples(40)
                .forAll(longs().all(), integers().between(3, 24), integers().between(0, STOPS.size() - 1),
                        integers().between(1, 8))
                .check((seed, l1Blocks, stop, groups) -> {
                    boolean vllmV1 = (seed & 1) == 0;
                    return run(seed, l1Blocks, stop, groups, vllmV1) == run(seed, l1Blocks, stop, groups, vllmV1);
                });
    }
}
