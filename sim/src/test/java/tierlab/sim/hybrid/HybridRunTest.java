package tierlab.sim.hybrid;

import tierlab.model.request.RequestOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.sim.SimRuntime;
import tierlab.sim.testkit.HybridBytes;
import tierlab.sim.testkit.SimRig;

/**
 * Hybrid mode: the simulator orders completions adversarially (a wide reorder window) while every
 * read, write and copy moves real bytes through the io_uring engine (FileChannel where io_uring is
 * refused), a real pinned arena and a real O_DIRECT file. The fixed model serves no wrong byte;
 * with a race's fix switched off, the same run does.
 */
class HybridRunTest {
    @TempDir
    Path dir;

    record Outcome(long realMismatches, long realMatches, long ledgerMismatches, long storageFailures, String port, int finished,
                   long prefetchTimeoutTokens) {}

    Outcome run(Set<KnownBug> bugs, long seed) throws Exception {
        return run(bugs, seed, false);
    }

    Outcome run(Set<KnownBug> bugs, long seed, boolean slotReuse) throws Exception {
        return run(bugs, seed, slotReuse, SchedulerSettings.defaults(4_096).withConcurrency(4));
    }

    Outcome run(Set<KnownBug> bugs, long seed, boolean slotReuse, SchedulerSettings scheduler) throws Exception {
        Geometry geometry = TinyModel.geometry(1);
        long lane = geometry.laneBytes();
        // slotReuse: an L1 of 2 blocks and a ring of 3 slots, so a slot is re-used while the write of
        // its previous owner may still be in flight, and every repeat is read back from L2.
        StoreSettings settings = slotReuse
                ? StoreSettings.defaults(geometry, 2 * lane, 3 * geometry.blockBytes()).withKnownBugs(bugs)
                : StoreSettings.defaults(geometry, 24 * lane, 40 * geometry.blockBytes()).withKnownBugs(bugs);
        Path l2 = dir.resolve("l2-" + seed + "-" + bugs.size() + ".bin");
        try (HybridBytes real = HybridBytes.open(settings, l2)) {
            SimRig rig = SimRig.of(settings, scheduler, seed);
            SimRuntime runtime = rig.runtime();
            runtime.setRealBytes(real.bytes());
            // Adversarial order: every completion is delayed by up to 5 ms (30 ms with slot re-use, several
            // engine steps), so completions that were close together arrive in any order.
            long windowNs = slotReuse ? 30_000_000L : 5_000_000L;
            rig.reorderCompletions(windowNs);
            SplittableRandom random = rig.seeds().random("workload");
            long t = 0;
            if (slotReuse) {
                // Round k: a new one-block prompt, then the previous round's prompt again.
                for (int k = 0; k < 40; k++) {
                    t += 200_000 + random.nextInt(800_000);
                    runtime.submit(new RequestSpec(1000L + k, t, 16 + 3, 1, BlockChains.ofPrompt(k, 1)));
                    if (k > 0) {
                        t += 200_000 + random.nextInt(800_000);
                        runtime.submit(new RequestSpec(2000L + k, t, 16 + 3, 1, BlockChains.ofPrompt(k - 1, 1)));
                    }
                }
            } else {
                for (int pass = 0; pass < 3; pass++) {
                    for (int p = 0; p < 12; p++) {
                        t += random.nextInt(2_000_000);
                        List<BlockKey> chain = BlockChains.ofPrompt(p, 2 + p % 5);
                        runtime.submit(new RequestSpec(pass * 100L + p, t, chain.size() * 16L + 3, 2, chain));
                    }
                }
            }
            runtime.run();
            return new Outcome(real.bytes().mismatches(), real.bytes().loadMatches(), runtime.ledger().mismatches(),
                    real.bytes().storageFailures(), real.port().name(), runtime.scheduler().finished().size(),
                    runtime.scheduler().finished().stream().mapToLong(tierlab.model.request.RequestOutcome::prefetchTimeoutTokens).sum());
        }
    }

    @Test
    void adversarialOrderOnRealBytesServesNothingWrong() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            Outcome fixed = run(Set.of(), seed);
            assertEquals(36, fixed.finished());
            Outcome reuse = run(Set.of(), seed, true);
            assertEquals(79, reuse.finished());
            assertTrue(reuse.realMatches() > 0);
            assertEquals(0, reuse.realMismatches(), "slot re-use under adversarial order: no wrong byte");
            assertEquals(0, fixed.storageFailures(), fixed.port());
            assertTrue(fixed.realMatches() > 0, "loads were verified on real bytes (" + fixed.port() + ")");
            assertEquals(0, fixed.realMismatches(), "no wrong byte on " + fixed.port());
            assertEquals(0, fixed.ledgerMismatches());
        }
    }

    /**
     * Prefetch stop policies and layer-wise loads on real bytes under the same adversarial order: reads
     * that land after their request stopped waiting write into slices nobody is served from, and no
     * load delivers a wrong byte.
     */
    @Test
    void stoppedPrefetchesAndLayerWiseLoadsServeNothingWrongOnRealBytes() throws Exception {
        SchedulerSettings base = SchedulerSettings.defaults(4_096).withConcurrency(4);
        long stoppedTokens = 0;
        for (long seed = 1; seed <= 3; seed++) {
            for (SchedulerSettings scheduler : List.of(
                    base.withPrefetchStop(tierlab.model.serving.PrefetchStop.BEST_EFFORT).withLoadLayerGroups(4),
                    base.withPrefetchStop(tierlab.model.serving.PrefetchStop.timeout(1_000_000, 0)).withLoadLayerGroups(2))) {
                Outcome outcome = run(Set.of(), seed, false, scheduler);
                assertEquals(36, outcome.finished());
                assertTrue(outcome.realMatches() > 0);
                assertEquals(0, outcome.realMismatches(), "no wrong byte on " + outcome.port());
                assertEquals(0, outcome.ledgerMismatches());
                stoppedTokens += outcome.prefetchTimeoutTokens();
                Outcome reuse = run(Set.of(), seed, true, scheduler);
                assertEquals(79, reuse.finished());
                assertEquals(0, reuse.realMismatches(), "slot re-use: no wrong byte");
                stoppedTokens += reuse.prefetchTimeoutTokens();
            }
        }
        assertTrue(stoppedTokens > 0, "prefetches were stopped with reads in flight");
    }

    @Test
    void theSameRunWithPendingWriteSlicesReusedServesWrongBytes() throws Exception {
        long wrong = 0;
        for (long seed = 1; seed <= 3; seed++) {
            Outcome broken = run(Set.of(KnownBug.R2_REUSE_PENDING_WRITE_SLICE), seed, true);
            wrong += broken.realMismatches();
            assertEquals(broken.ledgerMismatches(), broken.realMismatches(),
                    "the symbolic ledger and the real bytes agree on every mismatch");
        }
        // R2's fix off: a slice whose L2 write is still in flight is evicted and re-used by the next
        // staging copy, so the write carries the new block's bytes to the old block's slot.
        assertTrue(wrong > 0, "R2 off: L2 receives another block's bytes and a later load returns them");
    }
}
