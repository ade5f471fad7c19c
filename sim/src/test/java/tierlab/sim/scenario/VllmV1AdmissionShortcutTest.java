package tierlab.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.EngineScheduler;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.sim.SimRuntime;
import tierlab.sim.device.DeviceProfile;
import tierlab.model.util.SeedTree;
import tierlab.workload.MooncakeWorkload;

/**
 * vllm-v1 keeps the admission shortcuts of the vllm engine (a parked request's witness, the skipped run
 * of parked requests), although its GPU prefix cache moves where a parked request's store lookup starts:
 * the witness is re-derived when the start moved, and a run is skipped only when the GPU pool has not
 * changed since the pass that found it. On the overloaded Mooncake replay every shortcut answer is
 * recomputed the slow way (which throws on the first disagreement) and the decisions are the same as
 * without the cross-check, while the GPU cache serves and evicts.
 */
class VllmV1AdmissionShortcutTest {

    @Test
    void everyShortcutAnswerMatchesTheSlowPathWithTheGpuPrefixCacheOn() {
        Geometry geometry = new Geometry(ModelShape.QWEN3_8B, 512, 1);
        List<RequestSpec> requests = MooncakeWorkload.load(MooncakeReplayTest.TRACE, geometry, new MooncakeWorkload.Options(0, 1.0))
                .subList(0, 800);
        Replay plain = replay(geometry, requests, false);
        Replay checked = replay(geometry, requests, true);
        assertEquals(plain.hash(), checked.hash(), "the cross-check changes no decision");
        assertEquals(800, checked.outcomes().size());
        assertEquals(plain.outcomes(), checked.outcomes());
        assertTrue(checked.engine().parkedSkips() > 1_000 && checked.engine().runSkips() > 100,
                "the replay parks requests, so the shortcuts are exercised: " + checked.engine().parkedSkips() + " parked skips, "
                        + checked.engine().runSkips() + " run skips");
        long gpuCached = checked.outcomes().stream().mapToLong(RequestOutcome::gpuCachedTokens).sum();
        assertTrue(gpuCached > 0 && checked.engine().gpuBlocksEvicted() > 0,
                "the GPU cache serves (" + gpuCached + " tokens) and evicts (" + checked.engine().gpuBlocksEvicted() + " blocks)");
    }

    private record Replay(long hash, List<RequestOutcome> outcomes, EngineScheduler engine) {}

    private static Replay replay(Geometry geometry, List<RequestSpec> requests, boolean crossCheck) {
        DecisionTrace trace = new DecisionTrace();
        TieredStore store = new TieredStore(StoreSettings.defaults(geometry, 512L << 30, 4096L << 30), trace);
        EngineScheduler engine = (EngineScheduler) ServingEngines.create(
                SchedulerSettings.builder(12_000).maxNumSeqs(64).maxBatchedTokens(16_384)
                        .engine(ServingEngines.VLLM_V1).build(), store, trace);
        engine.setCrossCheck(crossCheck);
        SimRuntime runtime = new SimRuntime(engine, DeviceProfile.preset("qwen3-8b-h100"), new SeedTree(1));
        requests.forEach(runtime::submit);
        runtime.run();
        return new Replay(trace.hash(), engine.finished(), engine);
    }
}
