package tierlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.sim.testkit.SimRig;

class SimRuntimeTest {
    /** Cold then warm pass of 40 Qwen3-8B prompts over an L1 that holds about half of them. */
    static SimRuntime run(long seed, boolean check) {
        Geometry geometry = Geometry.qwen3_8b();
        long blockBytes = geometry.blockBytes();
        StoreSettings settings = StoreSettings.defaults(geometry, 600 * blockBytes, 4_000 * blockBytes);
        SimRig rig = SimRig.of(settings, SchedulerSettings.defaults(20_000).withConcurrency(8), seed);
        SimRuntime runtime = rig.runtime();
        runtime.setCheckInvariants(check);
        SplittableRandom arrivals = rig.seeds().random("arrivals");
        long t = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int p = 0; p < 40; p++) {
                t += (long) (arrivals.nextDouble() * 50_000_000);
                int blocks = 20 + (int) (p % 7);
                runtime.submit(new RequestSpec(pass * 1000 + p, t, blocks * 16L + 9, 1, BlockChains.ofPrompt(p, blocks)));
            }
        }
        runtime.run();
        return runtime;
    }

    @Test
    void coldThenWarmPassRunsToQuiescenceWithoutMismatch() {
        SimRuntime runtime = run(1, true);
        assertEquals(80, runtime.scheduler().finished().size());
        assertTrue(runtime.store().leftovers().isEmpty(), runtime.store().leftovers().toString());
        assertEquals(0, runtime.ledger().mismatches(), runtime.ledger().mismatchExamples().toString());
        assertTrue(runtime.ledger().loadMatches() > 0, "the warm pass loads from the store");
        assertTrue(runtime.storage().device().readOps() > 0, "L1 is smaller than the working set, so L2 is read back");
        assertTrue(runtime.simulator().nowNs() > 0);
    }

    @Test
    void sameSeedSameTraceDifferentSeedDifferentTrace() {
        long a = run(5, false).store().trace().hash();
        long b = run(5, false).store().trace().hash();
        long c = run(6, false).store().trace().hash();
        assertEquals(a, b);
        assertNotEquals(a, c);
    }
}
