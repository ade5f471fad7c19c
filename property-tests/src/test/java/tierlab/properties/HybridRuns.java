package tierlab.properties;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;
import tierlab.sim.SimRuntime;
import tierlab.sim.testkit.HybridBytes;
import tierlab.sim.testkit.SimRig;

/**
 * One workload run in sim mode or in hybrid mode (the same simulator, but every L2 read and write
 * also moves real bytes through the best storage port, io_uring or FileChannel, between a real
 * pinned arena and a real file, and every GPU copy is verified byte for byte).
 */
final class HybridRuns {
    /** What the model decided for one request: where its hit was and how many blocks it covered. */
    record Decision(long requestId, HitClass hitClass, long hitBlocks) {}

    record Outcome(long traceHash, List<Decision> decisions, long realMatches, long realMismatches, long storageFailures,
                   long ledgerMismatches, String port, int finished) {}

    private HybridRuns() {}

    /**
     * @param sequential   timing-independent: each request arrives a virtual second after the
     *                     previous one, long after it finished, so no decision depends on when a
     *                     completion lands
     * @param reorderWindowNs delay every completion by a seeded draw below this (adversarial order); 0: none
     */
    static Outcome run(long seed, boolean hybrid, boolean sequential, long reorderWindowNs, Path dir) throws Exception {
        Geometry geometry = TinyModel.geometry(1);
        long lane = geometry.laneBytes();
        // L1 of 5 blocks and an L2 ring of 9 slots over 6 prompts of 1-5 blocks: L1 hits, L2 hits,
        // misses, evictions on both tiers and slot re-use all happen in 24 requests.
        StoreSettings settings = StoreSettings.defaults(geometry, 5 * lane, 9 * geometry.blockBytes());
        SimRig rig = SimRig.of(settings, SchedulerSettings.defaults(256).withConcurrency(3), seed);
        SimRuntime runtime = rig.runtime();
        DecisionTrace trace = rig.trace();
        runtime.setCheckInvariants(true);
        if (reorderWindowNs > 0) {
            rig.reorderCompletions(reorderWindowNs);
        }
        SplittableRandom workload = rig.seeds().random("workload");
        long t = 0;
        for (int i = 0; i < 24; i++) {
            int prompt = workload.nextInt(6);
            List<BlockKey> chain = BlockChains.ofPrompt(prompt, 1 + prompt % 5);
            t += sequential ? 1_000_000_000L : workload.nextInt(2_000_000);
            runtime.submit(new RequestSpec(i, t, chain.size() * 16L + 1 + workload.nextInt(15), 1 + workload.nextInt(2), chain));
        }
        if (!hybrid) {
            runtime.run();
            return outcome(trace, runtime, 0, 0, 0, "sim");
        }
        Path l2 = dir.resolve("l2-" + seed + "-" + System.identityHashCode(runtime) + ".bin");
        try (HybridBytes real = HybridBytes.open(settings, l2)) {
            runtime.setRealBytes(real.bytes());
            runtime.run();
            return outcome(trace, runtime, real.bytes().loadMatches(), real.bytes().mismatches(), real.bytes().storageFailures(),
                    real.port().name());
        }
    }

    private static Outcome outcome(DecisionTrace trace, SimRuntime runtime, long realMatches, long realMismatches,
                                   long storageFailures, String port) {
        List<Decision> decisions = new ArrayList<>();
        List<RequestOutcome> finished = new ArrayList<>(runtime.scheduler().finished());
        finished.sort(java.util.Comparator.comparingLong(RequestOutcome::requestId));
        for (RequestOutcome outcome : finished) {
            decisions.add(new Decision(outcome.requestId(), outcome.hitClass(), Math.ceilDiv(outcome.hitTokens(), 16)));
        }
        return new Outcome(trace.hash(), decisions, realMatches, realMismatches, storageFailures, runtime.ledger().mismatches(),
                port, finished.size());
    }
}
