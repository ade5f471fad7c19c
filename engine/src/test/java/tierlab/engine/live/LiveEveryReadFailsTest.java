package tierlab.engine.live;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.PinnedArena;
import tierlab.model.drive.ProgressWatchdog;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.ComputeTiming;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.EngineScheduler;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * A device that fails every read, in live mode: with a real EIO on every L2 read (ext4 forced shut down) a live run
 * spun at ~95% CPU for as long as it was left, and the stall detector never fired (completions kept
 * coming). Here a fault-injecting storage port fails every read of the real port with EIO.
 */
class LiveEveryReadFailsTest {

    @TempDir
    Path dir;

    /** The real port for writes; every read completes at once with EIO, as a shut-down file system answers. */
    private record FailingReads(StoragePort real) implements StoragePort {
        @Override
        public void submit(List<? extends IoOp.L2Op> ops, CompletionSink sink) {
            List<IoOp.L2Op> writes = new ArrayList<>();
            for (IoOp.L2Op op : ops) {
                if (op instanceof IoOp.L2Read) {
                    sink.completed(op, IoCompletion.failed(op.ticket(), "EIO"));
                } else {
                    writes.add(op);
                }
            }
            if (!writes.isEmpty()) {
                real.submit(writes, sink);
            }
        }

        @Override
        public String name() {
            return "failing-reads(" + real.name() + ")";
        }

        @Override
        public void close() {
            real.close();
        }
    }

    /** Two passes over 30 prompts with an L1 of 16 blocks: the second pass must read L2. */
    private static List<RequestSpec> twoPasses() {
        List<RequestSpec> requests = new ArrayList<>();
        for (int pass = 0; pass < 2; pass++) {
            for (int p = 0; p < 30; p++) {
                List<BlockKey> chain = new ArrayList<>();
                BlockKey parent = BlockKey.ROOT;
                for (int b = 0; b < 6; b++) {
                    parent = BlockKey.fromTraceId(parent, p, b);
                    chain.add(parent);
                }
                requests.add(new RequestSpec(pass * 100L + p, pass * 200_000_000L + p * 1_000_000L, 6 * 16 + 3, 1, chain));
            }
        }
        return requests;
    }

    private long runUntilStopped(ProgressWatchdog watchdog, int failedPrefetchLimit, String expected) throws Exception {
        Geometry geometry = new Geometry(TinyModel.SMALL, 16, 1);
        long block = geometry.blockBytes();
        StoreSettings settings = StoreSettings.defaults(geometry, 16 * block, 1_024 * block);
        try (PinnedArena arena = PinnedArena.allocate(settings.l1CapacityBytes(), false);
             StoragePort port = new FailingReads(LiveRuntimeTest.open(dir.resolve("l2.bin"), arena, settings.l2CapacityBytes()))) {
            DecisionTrace trace = new DecisionTrace();
            EngineScheduler engine = (EngineScheduler) ServingEngines.create(
                    SchedulerSettings.defaults(4_096).withConcurrency(4).withPrefetch(2, true), new TieredStore(settings, trace), trace);
            engine.retryBound().setLimit(failedPrefetchLimit);
            try (LiveRuntime runtime = new LiveRuntime(engine, port, arena, new ComputeTiming(20_000, 100, 0.01, 10_000),
                    30_000_000_000L)) {
                runtime.setWatchdog(watchdog);
                long start = System.nanoTime();
                ProgressWatchdog.RunStopped stopped = assertThrows(ProgressWatchdog.RunStopped.class, () -> runtime.run(twoPasses()));
                long tookMs = (System.nanoTime() - start) / 1_000_000;
                assertTrue(stopped.getMessage().contains(expected), stopped.getMessage());
                System.out.printf("live, every read fails: stopped after %d ms: %s%n", tookMs, stopped.getMessage());
                return tookMs;
            }
        }
    }

    @Test
    void aDeviceThatFailsEveryReadEndsTheLiveRunWithTheCause() throws Exception {
        long tookMs = runUntilStopped(ProgressWatchdog.defaults(), 4, "the L2 device failed every read: 64 in a row, none"
                + " succeeded (last error: EIO)");
        assertTrue(tookMs < 10_000, "bounded: " + tookMs + " ms");
    }

    @Test
    void theLiveProgressWatchdogEndsASpinOnFailedReads() throws Exception {
        // Unbounded retries are the spin of the issue; the watchdog ends it though completions keep coming.
        long tookMs = runUntilStopped(new ProgressWatchdog(10_000, Integer.MAX_VALUE), Integer.MAX_VALUE,
                "no progress: 10000 completions without a compute step");
        assertTrue(tookMs < 10_000, "bounded: " + tookMs + " ms");
    }
}
