package tierlab.properties;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.sim.SimRuntime;
import tierlab.sim.fault.FaultInjector;
import tierlab.sim.fault.FaultSettings;
import tierlab.model.util.SeedTree;
import tierlab.sim.testkit.SimRig;

/** I11 in sim mode: the same seed and inputs give the same decision trace, with faults and reordering on. */
class DeterminismProperties {
    static long traceHash(long seed, int l1Blocks) {
        Geometry geometry = TinyModel.geometry(1);
        StoreSettings settings = StoreSettings.defaults(geometry, l1Blocks * geometry.blockBytes(), 64 * geometry.blockBytes());
        SimRig rig = SimRig.of(settings, SchedulerSettings.defaults(2_048).withConcurrency(4), seed);
        SimRuntime runtime = rig.runtime();
        SeedTree seeds = rig.seeds();
        runtime.setCompletionFilter(new FaultInjector(new FaultSettings(0.1, 0.05, 0, 0.1, 2_000_000, 3_000_000, 0, 0,
                List.of()), seeds.random("faults")));
        submitWorkload(runtime, seeds);
        runtime.run();
        if (runtime.ledger().mismatches() != 0 || !runtime.store().leftovers().isEmpty()) {
            throw new AssertionError("seed " + seed + ": mismatches or leftovers");
        }
        return rig.trace().hash();
    }

    /** 30 requests over 8 prompts of 2–5 blocks, arriving up to 3 ms apart, drawn from the seed's "workload" stream. */
    static void submitWorkload(SimRuntime runtime, SeedTree seeds) {
        SplittableRandom workload = seeds.random("workload");
        long t = 0;
        for (int i = 0; i < 30; i++) {
            int prompt = workload.nextInt(8);
            List<BlockKey> chain = BlockChains.ofPrompt(prompt, 2 + prompt % 4);
            t += workload.nextInt(3_000_000);
            runtime.submit(new RequestSpec(i, t, chain.size() * 16L + 3, 1 + workload.nextInt(3), chain));
        }
    }

    @Test
    void theSameSeedGivesTheSameTraceInSimMode() {
        qt().withFixedSeed(42).withExamples(25)
                .forAll(longs().all(), integers().between(3, 24))
                .check((seed, l1Blocks) -> traceHash(seed, l1Blocks) == traceHash(seed, l1Blocks));
    }

    @Test
    void differentSeedsGiveDifferentTraces() {
        qt().withFixedSeed(42).withExamples(25)
                .forAll(longs().all(), integers().between(3, 24))
                .check((seed, l1Blocks) -> traceHash(seed, l1Blocks) != traceHash(seed + 1, l1Blocks));
    }
}
