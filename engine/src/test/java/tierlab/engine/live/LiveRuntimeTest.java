package tierlab.engine.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.PinnedArena;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.ComputeTiming;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.PromptMix;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/** A live run on this machine: real io_uring reads and writes, real memcpys, verified payloads. */
class LiveRuntimeTest {
    @TempDir
    Path dir;

    @Test
    void aFewHundredRequestsWithL1SmallerThanTheWorkingSetServeNoWrongByte() throws Exception {
        runAndVerify(SchedulerSettings.defaults(4_096).withConcurrency(8));
    }

    /**
     * The same run with loads copied in 4 layer groups (each lane's bytes in four slices, verified once all
     * are in) and prefetches stopped at the next engine step: reads landing after the stop are dropped on
     * real bytes, and no load delivers a wrong byte.
     */
    @Test
    void layerWiseLoadsAndBestEffortPrefetchesServeNoWrongByte() throws Exception {
        runAndVerify(SchedulerSettings.defaults(4_096).withConcurrency(8).withLoadLayerGroups(4)
                .withPrefetchStop(tierlab.model.serving.PrefetchStop.BEST_EFFORT));
    }

    private void runAndVerify(SchedulerSettings schedulerSettings) throws Exception {
        // 2 KiB per token, 16-token blocks of 32 KiB; L1 of 48 blocks, 400 requests over 40 prompts of
        // 3–10 blocks (about 260 distinct blocks), so most warm hits come back from L2.
        Geometry geometry = TinyModel.smallGeometry();
        long block = geometry.blockBytes();
        StoreSettings settings = StoreSettings.defaults(geometry, 48 * block, 1_024 * block);
        List<RequestSpec> requests = PromptMix.requests(2026, 400, 40, 8, 300_000);
        try (PinnedArena arena = PinnedArena.allocate(settings.l1CapacityBytes(), true);
             StoragePort port = open(dir.resolve("l2.bin"), arena, settings.l2CapacityBytes())) {
            DecisionTrace trace = new DecisionTrace();
            ServingEngine scheduler = ServingEngines.create(schedulerSettings,
                    new TieredStore(settings, trace), trace);
            try (LiveRuntime runtime = new LiveRuntime(scheduler, port, arena,
                    new ComputeTiming(50_000, 200, 0.01, 20_000), 30_000_000_000L)) {
                LiveRuntime.Report report = runtime.run(requests);
                System.out.printf("live run on %s: %d requests in %.2f s, %d loads verified, %d L2 reads (%d MiB), %d L2 writes (%d MiB),"
                                + " %d mismatches%n", port.name(), report.finished().size(), report.wallNs() / 1e9,
                        report.loadMatches(), report.l2ReadOps(), report.l2ReadBytes() >> 20, report.l2WriteOps(),
                        report.l2WriteBytes() >> 20, report.mismatches());
                assertEquals(400, report.finished().size());
                assertEquals(0, report.mismatches(), report.mismatchExamples().toString());
                assertEquals(0, report.l2Failures());
                assertTrue(report.l2ReadOps() > 0, "L1 is smaller than the working set: L2 is read back");
                assertTrue(report.loadMatches() > 0);
                assertTrue(scheduler.store().leftovers().isEmpty(), scheduler.store().leftovers().toString());
                scheduler.checkInvariants();
            }
        }
    }

    static StoragePort open(Path l2, PinnedArena arena, long l2Bytes) throws Exception {
        return tierlab.engine.StoragePorts.open(l2, arena, l2Bytes);
    }
}
