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
 * The admission shortcuts (a parked request's witness, the skipped run of parked requests at the
 * front of the queue) answer exactly what the slow path would: the overloaded Mooncake replay
 * (its own arrival rate, so thousands of requests park) runs with every shortcut answer
 * recomputed the slow way, which throws on the first disagreement, and its decisions are the same
 * as without the cross-check. The first 1,200 requests keep it to a couple of seconds.
 */
class AdmissionShortcutCrossCheckTest {

    private static final Geometry GEOMETRY = new Geometry(ModelShape.QWEN3_8B, 512, 1);

    @Test
    void everyShortcutAnswerMatchesTheSlowPathOnAnOverloadedReplay() {
        List<RequestSpec> requests = overloadedRequests(1_200);
        Replay plain = replay(ServingEngines.VLLM, requests, false);
        Replay checked = replay(ServingEngines.VLLM, requests, true);
        assertEquals(plain.hash(), checked.hash(), "the cross-check changes no decision");
        assertEquals(1_200, checked.outcomes().size());
        assertTrue(checked.engine().parkedSkips() > 10_000 && checked.engine().runSkips() > 100,
                "the replay parks requests, so the shortcuts are exercised: " + checked.engine().parkedSkips()
                        + " parked skips, " + checked.engine().runSkips() + " run skips");
    }

    /** One replay's decision-trace hash, its finished requests and the engine (for its skip counters). */
    record Replay(long hash, List<RequestOutcome> outcomes, EngineScheduler engine) {}

    /** The Mooncake trace's first {@code count} requests at the trace's own rate, so thousands park. */
    static List<RequestSpec> overloadedRequests(int count) {
        return MooncakeWorkload.load(MooncakeReplayTest.TRACE, GEOMETRY, new MooncakeWorkload.Options(0, 1.0)).subList(0, count);
    }

    /** Replays {@code requests} on {@code engineName} (64 sequences, 16,384 batched tokens) with the cross-check on or off. */
    static Replay replay(String engineName, List<RequestSpec> requests, boolean crossCheck) {
        DecisionTrace trace = new DecisionTrace();
        TieredStore store = new TieredStore(StoreSettings.defaults(GEOMETRY, 512L << 30, 4096L << 30), trace);
        EngineScheduler engine = (EngineScheduler) ServingEngines.create(
                SchedulerSettings.builder(12_000).maxNumSeqs(64).maxBatchedTokens(16_384).engine(engineName).build(),
                store, trace);
        engine.setCrossCheck(crossCheck);
        SimRuntime runtime = new SimRuntime(engine, DeviceProfile.preset("qwen3-8b-h100"), new SeedTree(1));
        requests.forEach(runtime::submit);
        runtime.run();
        return new Replay(trace.hash(), engine.finished(), engine);
    }
}
