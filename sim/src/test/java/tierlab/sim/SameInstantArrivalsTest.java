package tierlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.trace.DecisionTrace;
import tierlab.sim.device.DeviceProfile;
import tierlab.model.util.SeedTree;

/**
 * Why the E1-like warm pass of {@code tierlab validate} read 16.7% more from L2 simulated than
 * live (docs/validation.md): a warm pass of prompts that all arrive at once, whose L1 admits two
 * leases of one prompt each. The live loop hands every arrival that is due to the engine and then
 * ticks once, so the first four are looked up together: two get leases, two wait for admission and
 * recompute. The simulator by default ticks the engine after each arrival, so the first prompt is
 * looked up, leased and started alone, and the next three are looked up only when it has finished:
 * two of those get leases, one more request loads from L2 than live, and its prompt's blocks are
 * read again.
 */
class SameInstantArrivalsTest {
    private static final int PROMPTS = 8;
    private static final int BLOCKS_PER_PROMPT = 24;

    /** Lookups of the warm pass: {request, virtual time}; and the L2 reads it made. */
    private record WarmPass(List<long[]> lookups, long l2Reads) {}

    private static WarmPass warmPass(boolean together) {
        Geometry geometry = Geometry.qwen3_8b();
        long laneBytes = geometry.laneBytes();
        // L1 holds two prompts' leases (2 × 24 lanes) but not three; L2 holds everything.
        StoreSettings settings = StoreSettings.defaults(geometry, 60 * laneBytes, 4_000 * laneBytes).withPromotionsAsHeadroom(false);
        SimRuntime[] runtime = new SimRuntime[1];
        List<long[]> lookups = new ArrayList<>();
        boolean[] warm = {false};
        DecisionTrace trace = new DecisionTrace(0, (kind, values) -> {
            if (warm[0] && kind.equals("lookup")) {
                lookups.add(new long[] {values[0], runtime[0].nowNs()});
            }
        });
        TieredStore store = new TieredStore(settings, trace);
        ServingEngine engine = ServingEngines.create(SchedulerSettings.defaults(2_000).withConcurrency(4).withPrefetch(0, false),
                store, trace);
        runtime[0] = new SimRuntime(engine, DeviceProfile.preset("qwen3-8b-h100"), new SeedTree(3));
        runtime[0].setSameInstantArrivalsTogether(together);
        runtime[0].setCheckInvariants(true);
        long promptTokens = BLOCKS_PER_PROMPT * (long) geometry.blockTokens();
        for (int p = 0; p < PROMPTS; p++) {
            runtime[0].submit(new RequestSpec(p, 0, promptTokens, 1, BlockChains.ofPrompt(p, BLOCKS_PER_PROMPT)));
        }
        runtime[0].run();
        long readsBefore = store.counter(StoreCounter.L2_READ_OPS);
        warm[0] = true;
        long warmStartNs = runtime[0].nowNs() + 1_000_000_000L;
        for (int p = 0; p < PROMPTS; p++) {
            runtime[0].submit(new RequestSpec(100 + p, warmStartNs, promptTokens, 1, BlockChains.ofPrompt(p, BLOCKS_PER_PROMPT)));
        }
        runtime[0].run();
        assertEquals(2 * PROMPTS, engine.finished().size());
        assertEquals(0, runtime[0].ledger().mismatches());
        List<long[]> relative = lookups.stream().map(l -> new long[] {l[0], l[1] - warmStartNs}).toList();
        return new WarmPass(relative, store.counter(StoreCounter.L2_READ_OPS) - readsBefore);
    }

    private static long lookupsAtStart(WarmPass pass) {
        return pass.lookups().stream().filter(l -> l[1] == 0).count();
    }

    @Test
    void theLiveLoopsArrivalHandlingLooksUpFourAtOnceAndLeasesTwo() {
        WarmPass together = warmPass(true);
        assertEquals(4, lookupsAtStart(together), "the engine's four slots are filled from one tick");
        // Per group of four: two leases (2 × 24 reads), two admission waits that recompute.
        assertEquals(2 * 2 * BLOCKS_PER_PROMPT, together.l2Reads());
    }

    @Test
    void tickingAfterEachArrivalStartsTheFirstPromptAloneAndReadsOnePromptMore() {
        WarmPass oneByOne = warmPass(false);
        assertEquals(1, lookupsAtStart(oneByOne), "the first arrival is scheduled before the others are handed over");
        assertEquals(100, oneByOne.lookups().getFirst()[0]);
        long secondLookupNs = oneByOne.lookups().get(1)[1];
        assertTrue(secondLookupNs > 0, "request 101 is looked up only when request 100 has finished");
        // Leases: request 100 alone, then two of 101–104, then two of 105–107: five prompts read
        // back instead of four.
        assertEquals(5 * BLOCKS_PER_PROMPT, oneByOne.l2Reads());
    }
}
