package tierlab.engine.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.PinnedArena;
import tierlab.engine.persist.IndexFile;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.ComputeTiming;
import tierlab.model.io.StoragePort;
import tierlab.model.sched.RequestSpec;
import tierlab.model.sched.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/** A clean shutdown writes the index beside the L2 file; the next start keeps the L2 cache. */
class WarmStartTest {
    @TempDir
    Path dir;

    static List<RequestSpec> prompts(long firstId) {
        List<RequestSpec> requests = new ArrayList<>();
        for (int p = 0; p < 20; p++) {
            List<BlockKey> chain = BlockChains.ofPrompt(p, 4);
            requests.add(new RequestSpec(firstId + p, p * 100_000L, 4 * 16 + 5, 1, chain));
        }
        return requests;
    }

    LiveRuntime.Report serve(StoreSettings settings, Path l2, WarmStart.Opened opened, List<RequestSpec> requests) throws Exception {
        try (PinnedArena arena = PinnedArena.allocate(settings.l1CapacityBytes(), false);
             StoragePort port = LiveRuntimeTest.open(l2, arena, settings.l2CapacityBytes())) {
            ServingEngine scheduler = ServingEngines.create(SchedulerSettings.defaults(1_024).withConcurrency(4),
                    opened.store(), opened.store().trace());
            try (LiveRuntime runtime = new LiveRuntime(scheduler, port, arena, new ComputeTiming(20_000, 100, 0, 10_000),
                    30_000_000_000L)) {
                LiveRuntime.Report report = runtime.run(requests);
                WarmStart.saveOnShutdown(opened.store(), l2);
                return report;
            }
        }
    }

    @Test
    void aWarmRestartServesTheFirstPassFromL2WithoutMismatch() throws Exception {
        Geometry geometry = TinyModel.smallGeometry();
        StoreSettings settings = StoreSettings.defaults(geometry, 32 * geometry.blockBytes(), 256 * geometry.blockBytes());
        Path l2 = dir.resolve("l2.bin");

        WarmStart.Opened cold = WarmStart.open(settings, l2, new DecisionTrace());
        assertFalse(cold.warm(), cold.message());
        LiveRuntime.Report first = serve(settings, l2, cold, prompts(0));
        assertEquals(0, first.mismatches());
        assertTrue(Files.exists(IndexFile.besideL2(l2)));

        WarmStart.Opened warm = WarmStart.open(settings, l2, new DecisionTrace());
        assertTrue(warm.warm(), warm.message());
        LiveRuntime.Report second = serve(settings, l2, warm, prompts(100));
        assertEquals(0, second.mismatches(), second.mismatchExamples().toString());
        assertEquals(20 * 4, second.loadMatches(), "every block of the second process's prompts came from the first one's L2");
        assertTrue(second.l2ReadOps() > 0);
        assertEquals(0, warm.store().counter(StoreCounter.STORE_BLOCKS_CLAIMED), "nothing needed storing again");
    }

    @Test
    void aTornIndexStartsColdWithAClearMessage() throws Exception {
        Geometry geometry = TinyModel.smallGeometry();
        StoreSettings settings = StoreSettings.defaults(geometry, 32 * geometry.blockBytes(), 256 * geometry.blockBytes());
        Path l2 = dir.resolve("l2.bin");
        serve(settings, l2, WarmStart.open(settings, l2, new DecisionTrace()), prompts(0));
        Path index = IndexFile.besideL2(l2);
        byte[] bytes = Files.readAllBytes(index);
        Files.write(index, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        WarmStart.Opened opened = WarmStart.open(settings, l2, new DecisionTrace());
        assertFalse(opened.warm());
        assertTrue(opened.message().contains(index.toString()) && opened.message().contains("starting cold"), opened.message());
        assertEquals(0, opened.store().testView().l2VisibleCount());
    }
}
