package tierlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SaveTiming;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.trace.DecisionTrace;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.GpuProfile;
import tierlab.sim.device.HostProfile;
import tierlab.sim.device.PcieProfile;
import tierlab.model.util.SeedTree;

/**
 * {@code saveTiming} on a device whose every time is chosen to be computed by hand: a step takes 1 ms on
 * the GPU whatever it holds, the model thread spends 0.1 ms per host↔GPU copy call and nothing per step,
 * the link moves 8,192 B (one block of the tiny model, tp 1) in 1 µs with no latency, and the store has
 * 4 staging slots. Request A (4 full blocks, 64 tokens, one output token) and request B (the same size)
 * arrive at 0 with a 64-token step budget, so step 0 computes A and step 1 computes B.
 *
 * <p>Per-slot staging: A's save is 4 copies of one block, issued at 1.0 ms (step 0's compute ends) and
 * paid one after another on the model thread: they leave it at 1.1, 1.2, 1.3, 1.4 ms and land 1 µs later,
 * the last at 1.401 ms. Contiguous staging: one copy of 4 blocks, leaving at 1.1 ms and landing 4 µs later,
 * at 1.104 ms.
 *
 * <ul>
 *   <li>after-step: A's first token comes when step 0's compute ends, at 1.0 ms. Step 1 is issued then but
 *       waits for the copy calls issued before it on the model thread (to 1.4 ms per slot, 1.1 ms
 *       contiguous), computes for 1 ms, and B's first token comes at 2.4 / 2.1 ms.</li>
 *   <li>in-step: step 0 ends, and A's first token comes, only when A's last staging copy lands (1.401 /
 *       1.104 ms); step 1 starts then (the model thread is free), ends its compute 1 ms later (2.401 /
 *       2.104 ms), and B's copies follow: per slot they leave the model thread at 2.501, 2.601, 2.701,
 *       2.801 ms and the last lands at 2.802 ms; contiguous, one copy leaves at 2.204 ms and lands at
 *       2.208 ms. B's first token comes then.</li>
 * </ul>
 * A request with one output token finishes once its first token is out and its save staged: in both
 * timings at its last copy's landing.
 */
class SaveTimingSimTest {

    private static final Geometry TINY = new Geometry(ModelShape.TINY, 16, 1);

    private static DeviceProfile handDevice() {
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        long blockBytes = TINY.blockBytes();
        // One block in 1 µs, both directions, no latency.
        PcieProfile link = new PcieProfile(blockBytes * 1e6, 0, blockBytes * 1e6, 0);
        GpuProfile gpu = new GpuProfile("hand", 1_000_000, 0, 0, 0);
        HostProfile host = new HostProfile(0, 0).withModelThread(100_000, 0, 0);
        return new DeviceProfile("hand", preset.nvme(), link, gpu, host);
    }

    /** A's and B's outcomes by id. */
    private static Map<Long, RequestOutcome> run(SaveTiming timing, boolean contiguous) {
        StoreSettings store = StoreSettings.defaults(TINY, 64 * TINY.blockBytes(), 256 * TINY.blockBytes())
                .withStaging(4, contiguous);
        SchedulerSettings scheduler = SchedulerSettings.builder(64).maxNumSeqs(2).maxBatchedTokens(64)
                .prefetchMaxRequests(0).saveTiming(timing).build();
        DecisionTrace trace = new DecisionTrace();
        ServingEngine engine = ServingEngines.create(scheduler, new TieredStore(store, trace), trace);
        SimRuntime runtime = new SimRuntime(engine, handDevice(), new SeedTree(3));
        runtime.setCheckInvariants(true);
        runtime.submit(new RequestSpec(1, 0, 64, 1, BlockChains.ofPrompt(1, 4)));
        runtime.submit(new RequestSpec(2, 0, 64, 1, BlockChains.ofPrompt(2, 4)));
        runtime.run();
        assertEquals(0, runtime.ledger().mismatches());
        assertTrue(runtime.store().leftovers().isEmpty(), runtime.store().leftovers().toString());
        Map<Long, RequestOutcome> byId = new TreeMap<>();
        for (RequestOutcome outcome : engine.finished()) {
            byId.put(outcome.requestId(), outcome);
        }
        assertEquals(List.of(1L, 2L), List.copyOf(byId.keySet()));
        return byId;
    }

    private static void assertTimes(Map<Long, RequestOutcome> outcomes, long firstTokenA, long finishA, long firstTokenB,
                                    long finishB) {
        assertEquals(firstTokenA, outcomes.get(1L).firstTokenNs(), "A's first token");
        assertEquals(finishA, outcomes.get(1L).finishNs(), "A's finish");
        assertEquals(firstTokenB, outcomes.get(2L).firstTokenNs(), "B's first token");
        assertEquals(finishB, outcomes.get(2L).finishNs(), "B's finish");
    }

    @Test
    void afterStepEmitsAtComputeEndAndTheNextStepWaitsOnlyForEarlierCopyCalls() {
        // B's copies: per slot issued at 2.4 ms, leave the thread at 2.5..2.8 ms, the last lands at 2.801 ms;
        // contiguous issued at 2.1 ms, leaves at 2.2 ms, lands at 2.204 ms.
        assertTimes(run(SaveTiming.AFTER_STEP, false), 1_000_000, 1_401_000, 2_400_000, 2_801_000);
        assertTimes(run(SaveTiming.AFTER_STEP, true), 1_000_000, 1_104_000, 2_100_000, 2_204_000);
    }

    @Test
    void inStepHoldsTheStepUntilItsStagingCopiesLand() {
        assertTimes(run(SaveTiming.IN_STEP, false), 1_401_000, 1_401_000, 2_802_000, 2_802_000);
        assertTimes(run(SaveTiming.IN_STEP, true), 1_104_000, 1_104_000, 2_208_000, 2_208_000);
    }

    @Test
    void perSlotStagingCostsTheFirstTokenOnlyInStep() {
        // TTFT of A: per slot vs contiguous. After the step both are the compute's end; in the step the
        // difference is the 3 extra copy calls (0.3 ms) less the link time contiguous copies save (3 µs).
        long afterPerSlot = run(SaveTiming.AFTER_STEP, false).get(1L).ttftNs();
        long afterContiguous = run(SaveTiming.AFTER_STEP, true).get(1L).ttftNs();
        long inPerSlot = run(SaveTiming.IN_STEP, false).get(1L).ttftNs();
        long inContiguous = run(SaveTiming.IN_STEP, true).get(1L).ttftNs();
        assertEquals(0, afterPerSlot - afterContiguous);
        assertEquals(3 * 100_000 - 3_000, inPerSlot - inContiguous);
    }
}
