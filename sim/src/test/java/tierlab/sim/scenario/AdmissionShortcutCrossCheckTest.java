package tierlab.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.EngineScheduler;
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

    @Test
    void everyShortcutAnswerMatchesTheSlowPathOnAnOverloadedReplay() {
        Geometry geometry = new Geometry(ModelShape.QWEN3_8B, 512, 1);
        List<RequestSpec> requests = MooncakeWorkload.load(MooncakeReplayTest.TRACE, geometry, new MooncakeWorkload.Options(0, 1.0))
                .subList(0, 1_200);
        Replay plain = replay(geometry, requests, false);
        Replay checked = replay(geometry, requests, true);
        assertEquals(plain.hash(), checked.hash(), "the cross-check changes no decision");
        assertEquals(1_200, checked.finished());
        assertTrue(checked.parkedSkips() > 10_000 && checked.runSkips() > 100,
                "the replay parks requests, so the shortcuts are exercised: " + checked);
    }

    private record Replay(long hash, int finished, long parkedSkips, long runSkips) {}

    private static Replay replay(Geometry geometry, List<RequestSpec> requests, boolean crossCheck) {
        DecisionTrace trace = new DecisionTrace();
        TieredStore store = new TieredStore(StoreSettings.defaults(geometry, 512L << 30, 4096L << 30), trace);
        EngineScheduler scheduler = new EngineScheduler(SchedulerSettings.builder(12_000).maxNumSeqs(64)
                .maxBatchedTokens(16_384).build(), store, trace);
        scheduler.setCrossCheck(crossCheck);
        SimRuntime runtime = new SimRuntime(scheduler, DeviceProfile.preset("qwen3-8b-h100"), new SeedTree(1));
        requests.forEach(runtime::submit);
        runtime.run();
        return new Replay(trace.hash(), runtime.scheduler().finished().size(), scheduler.parkedSkips(),
                scheduler.runSkips());
    }
}
