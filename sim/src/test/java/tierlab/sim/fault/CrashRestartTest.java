package tierlab.sim.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.sim.SimRuntime;
import tierlab.sim.testkit.SimRig;

/** A process crash mid-run: L1 and GPU memory lost, the index recovered from its last snapshot and the journal. */
class CrashRestartTest {

    /** Every registered serving engine, through the same runtime: the restart creates the crashed engine's kind. */
    @ParameterizedTest
    @ValueSource(strings = {"vllm", "serial"})
    void aCrashLosesL1KeepsL2AndServesNothingStale(String engine) {
        Geometry geometry = Geometry.qwen3_8b();
        long block = geometry.blockBytes();
        // A small L2 ring, so slots are re-allocated between the snapshot and the crash.
        // 160 L2 slots: prompts A (12 × ~12 blocks) fill most of it; prompts C after the snapshot
        // wrap around onto A's oldest slots, then the process crashes.
        StoreSettings settings = StoreSettings.defaults(geometry, 80 * block, 160 * block);
        SimRuntime runtime = SimRig.of(settings, SchedulerSettings.defaults(20_000).withConcurrency(4).withEngine(engine), 9).runtime();
        ServingEngine scheduler = runtime.scheduler();
        runtime.setCheckInvariants(true);
        runtime.setSnapshotIntervalNs(1_500_000_000L);
        Set<Long> ids = new TreeSet<>();
        long ms = 1_000_000L;
        for (int p = 0; p < 12; p++) {
            ids.add(submit(runtime, p, "A", p, 50 * ms * p));
        }
        for (int p = 0; p < 3; p++) {
            ids.add(submit(runtime, 100 + p, "C", p, 1_700 * ms + 50 * ms * p));
        }
        runtime.crashAt(2_500 * ms, 50 * ms);
        for (int p = 0; p < 12; p++) {
            ids.add(submit(runtime, 200 + p, "A", p, 3_000 * ms + 50 * ms * p));
        }
        runtime.run();

        assertEquals(1, runtime.crashes());
        assertEquals(engine, runtime.scheduler().kind(), "the restarted engine is the crashed one's kind");
        assertTrue(runtime.scheduler() != scheduler, "a new engine process after the restart");
        assertEquals(ids, CrashRestartTest.served(runtime), "every request is served, before the crash or after the restart");
        assertEquals(0, runtime.ledger().mismatches(), "nothing stale after recovery: " + runtime.ledger().mismatchExamples());
        assertTrue(runtime.store().leftovers().isEmpty(), runtime.store().leftovers().toString());
        assertTrue(runtime.store().counter(StoreCounter.L2_KEYS_LOST) > 0,
                "slots re-allocated after the snapshot were dropped from the recovered index");
        assertTrue(runtime.ledger().loadMatches() > 0, "the recovered index still serves hits from L2");
    }

    private static long submit(SimRuntime runtime, long id, String family, int prompt, long arrivalNs) {
        List<BlockKey> chain = BlockChains.ofPrompt(family.hashCode() * 1000L + prompt, 10 + prompt % 5);
        runtime.submit(new RequestSpec(id, arrivalNs, chain.size() * 16L + 5, 1, chain));
        return id;
    }

    /** Every request id served, before the crash or by the restarted engine. */
    static Set<Long> served(SimRuntime runtime) {
        Set<Long> served = new TreeSet<>();
        for (RequestOutcome outcome : runtime.finishedBeforeCrashes()) {
            served.add(outcome.requestId());
        }
        for (RequestOutcome outcome : runtime.scheduler().finished()) {
            served.add(outcome.requestId());
        }
        return served;
    }
}
