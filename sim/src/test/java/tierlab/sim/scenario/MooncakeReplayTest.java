package tierlab.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreSettings;
import tierlab.sim.SimRuntime;
import tierlab.metrics.CounterSnapshot;
import tierlab.metrics.PassMetric;
import tierlab.metrics.PassMetrics;
import tierlab.sim.testkit.SimRig;
import tierlab.workload.MooncakeWorkload;

/** The Mooncake trace in data/ replays end to end in sim mode, with zero payload mismatches. */
class MooncakeReplayTest {
    /** The trace that ships in the repository, from the module folder (tests run there). */
    static final Path TRACE = Path.of("../data/mooncake_synthetic_trace.jsonl");

    @Test
    void theSharedTraceReplaysEndToEnd() {
        replay(1.0);
    }

    /**
     * The trace was recorded in front of a cluster: on one simulated GPU its arrival rate is about
     * 4.5 times what prefill can serve. Stretched 5 times, the engine keeps up.
     */
    @Test
    void theSharedTraceStretchedToOneGpusRate() {
        replay(5.0);
        // Again in the same JVM: the first run also pays for class loading and JIT compilation.
        replay(5.0);
    }

    private void replay(double timeScale) {
        // The trace's own 512-token blocks (72 MiB of Qwen3-8B KV each): one block per trace hash id.
        Geometry geometry = new Geometry(tierlab.model.geometry.ModelShape.QWEN3_8B, 512, 1);
        List<RequestSpec> requests = MooncakeWorkload.load(TRACE, geometry, new MooncakeWorkload.Options(0, timeScale));
        StoreSettings settings = StoreSettings.defaults(geometry, 512L << 30, 4096L << 30);
        SimRuntime runtime = SimRig.of(settings, SchedulerSettings.builder(12_000).maxNumSeqs(64)
                .maxBatchedTokens(16_384).build(), 1).runtime();
        requests.forEach(runtime::submit);
        CounterSnapshot start = runtime.counterSnapshot();
        long wallStart = System.nanoTime();
        runtime.run();
        long wallNs = System.nanoTime() - wallStart;
        PassMetrics metrics = PassMetrics.of("mooncake", runtime.scheduler().finished(), start, runtime.counterSnapshot());
        System.out.printf("mooncake x%.0f: %.0f requests, simulated %.1f s in %.2f s wall (%.0fx), %d events (%.2f M events/s),"
                        + " external hit ratio %.3f, L1 hit ratio %.3f, TTFT p50 %.0f ms p99 %.0f ms%n",
                timeScale, metrics.value(PassMetric.REQUESTS), runtime.simulator().nowNs() / 1e9, wallNs / 1e9, runtime.simulator().nowNs() / (double) wallNs,
                runtime.simulator().eventsFired(), runtime.simulator().eventsFired() / (wallNs / 1e3),
                metrics.value(PassMetric.EXTERNAL_HIT_RATIO), metrics.value(PassMetric.L1_HIT_RATIO),
                metrics.value(PassMetric.TTFT_P50_MS), metrics.value(PassMetric.TTFT_P99_MS));
        System.out.printf("lookups %d, steps %d, hit tokens %d%n", runtime.store().counter(tierlab.model.store.StoreCounter.LOOKUPS), runtime.computeSteps(), runtime.store().counter(tierlab.model.store.StoreCounter.HIT_TOKENS));
        assertEquals(3_993, metrics.value(PassMetric.REQUESTS));
        assertEquals(0, runtime.ledger().mismatches());
        assertTrue(runtime.store().leftovers().isEmpty());
        assertTrue(metrics.value(PassMetric.EXTERNAL_HIT_RATIO) > 0.3, "the trace shares prefixes");
    }
}
