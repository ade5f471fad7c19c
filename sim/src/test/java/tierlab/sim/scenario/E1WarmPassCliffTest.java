package tierlab.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.sim.SimRuntime;
import tierlab.model.util.SeedTree;
import tierlab.metrics.CounterSnapshot;
import tierlab.metrics.PassMetric;
import tierlab.metrics.PassMetrics;
import tierlab.sim.testkit.SimRig;

/**
 * E1's shape: 200 long prompts (about 72.7 GiB of Qwen3-8B KV) against a 64 GiB L1, a cold pass
 * then a warm pass in the same order, 16 requests in flight, prefetch off (E1 predates E2's
 * prefetch window, so L2 misses are read synchronously during the load). A cyclic replay of a working set slightly larger than L1
 * is LRU's worst case; headroom promotions and scan-resistant insertion win part of it back.
 */
class E1WarmPassCliffTest {
    static final long GIB = 1L << 30;

    record Result(PassMetrics cold, PassMetrics warm) {}

    static List<RequestSpec> prompts(long firstId, long arrivalNs) {
        SplittableRandom lengths = new SeedTree(42).random("e1-lengths");
        List<RequestSpec> specs = new ArrayList<>();
        for (int p = 0; p < 200; p++) {
            long tokens = 2000 + lengths.nextInt(1301);
            List<BlockKey> chain = BlockChains.ofPrompt(p, (int) (tokens / 16));
            specs.add(new RequestSpec(firstId + p, arrivalNs, tokens, 1, chain));
        }
        return specs;
    }

    static Result run(String policy, boolean promotionsAsHeadroom) {
        StoreSettings settings = StoreSettings.defaults(Geometry.qwen3_8b(), 64 * GIB, 256 * GIB)
                .withPolicy(policy).withPromotionsAsHeadroom(promotionsAsHeadroom);
        return runWith(settings, SchedulerSettings.defaults(24_000).withConcurrency(16).withPrefetch(0, true), false);
    }

    static Result runWith(StoreSettings settings, SchedulerSettings schedulerSettings, boolean l2Free) {
        SimRuntime runtime = SimRig.of(settings, schedulerSettings, 42).runtime();
        runtime.setL2Free(l2Free);
        CounterSnapshot start = runtime.counterSnapshot();
        prompts(0, 0).forEach(runtime::submit);
        runtime.run();
        CounterSnapshot afterCold = runtime.counterSnapshot();
        List<RequestOutcome> coldOutcomes = new ArrayList<>(runtime.scheduler().finished());
        long warmStart = runtime.simulator().nowNs() + 1_000_000_000L;
        prompts(1000, warmStart).forEach(runtime::submit);
        runtime.run();
        CounterSnapshot end = runtime.counterSnapshot();
        List<RequestOutcome> warmOutcomes = runtime.scheduler().finished().stream().filter(o -> o.requestId() >= 1000).toList();
        assertEquals(0, runtime.ledger().mismatches());
        assertTrue(runtime.store().leftovers().isEmpty());
        return new Result(PassMetrics.of("cold", coldOutcomes, start, afterCold), PassMetrics.of("warm", warmOutcomes, afterCold, end));
    }

    @Test
    void baselinesBracketTheStore() {
        Geometry geometry = Geometry.qwen3_8b();
        // No offload: every prompt computed twice. All in host memory: an L1 that holds everything, free writes.
        Result noOffload = runWith(StoreSettings.defaults(geometry, 64 * GIB, 256 * GIB),
                SchedulerSettings.defaults(24_000).withConcurrency(16).withoutOffload(), false);
        Result hostMemory = runWith(StoreSettings.defaults(geometry, 256 * GIB, 256 * GIB),
                SchedulerSettings.defaults(24_000).withConcurrency(16).withPrefetch(0, true), true);
        Result tiered = run("lru", true);
        System.out.printf("no offload warm %.2f s, host memory warm %.2f s (l1 %.3f), tiered warm %.2f s%n",
                noOffload.warm().value(PassMetric.ELAPSED_S), hostMemory.warm().value(PassMetric.ELAPSED_S), hostMemory.warm().value(PassMetric.L1_HIT_RATIO),
                tiered.warm().value(PassMetric.ELAPSED_S));
        assertEquals(0.0, noOffload.warm().value(PassMetric.EXTERNAL_HIT_RATIO), "the no-offload engine never hits");
        assertEquals(1.0, hostMemory.warm().value(PassMetric.L1_HIT_RATIO), 1e-9, "everything is in host memory");
        assertEquals(0.0, hostMemory.warm().value(PassMetric.L2_READ_OPS));
        assertTrue(hostMemory.warm().value(PassMetric.ELAPSED_S) < tiered.warm().value(PassMetric.ELAPSED_S));
        assertTrue(tiered.warm().value(PassMetric.ELAPSED_S) < noOffload.warm().value(PassMetric.ELAPSED_S));
    }

    @Test
    void lruWithPromotionsAsOrdinaryEntriesCollapsesAndHeadroomOrBipWinBack() {
        long t0 = System.nanoTime();
        Result lruOrdinary = run("lru", false);
        Result lruHeadroom = run("lru", true);
        Result bipOrdinary = run("bip", false);
        for (var r : List.of(lruOrdinary, lruHeadroom, bipOrdinary)) {
            System.out.printf("cold %.2f s %.0f tok/s | warm %.2f s %.0f tok/s l1HitRatio %.3f l2 reads %.0f enters %.0f%n",
                    r.cold().value(PassMetric.ELAPSED_S), r.cold().value(PassMetric.PROMPT_TOKENS_PER_S), r.warm().value(PassMetric.ELAPSED_S),
                    r.warm().value(PassMetric.PROMPT_TOKENS_PER_S), r.warm().value(PassMetric.L1_HIT_RATIO), r.warm().value(PassMetric.L2_READ_OPS), r.warm().value(PassMetric.IO_URING_ENTERS));
        }
        System.out.printf("wall %.1f s%n", (System.nanoTime() - t0) / 1e9);
        // Measured: lru 0.000, lru with headroom promotions 0.807, bip 0.807.
        assertTrue(lruOrdinary.warm().value(PassMetric.L1_HIT_RATIO) < 0.1, "the cliff: " + lruOrdinary.warm().value(PassMetric.L1_HIT_RATIO));
        assertTrue(lruHeadroom.warm().value(PassMetric.L1_HIT_RATIO) > lruOrdinary.warm().value(PassMetric.L1_HIT_RATIO) + 0.3);
        assertTrue(bipOrdinary.warm().value(PassMetric.L1_HIT_RATIO) > lruOrdinary.warm().value(PassMetric.L1_HIT_RATIO) + 0.3);
    }
}
