package tierlab.engine.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.PinnedArena;
import tierlab.engine.StoragePorts;
import tierlab.engine.live.LiveRuntime;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.ComputeTiming;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.PromptMix;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * A live run whose GPU copies go through the CUDA copy port (over {@link FakeCuda}): the runtime
 * hands them out and takes their completions back from the CUDA completion thread like storage
 * completions, every load is verified on the device side, and nothing is left behind.
 */
class CudaLiveRunTest {
    @TempDir
    Path dir;

    @Test
    void aLiveRunThroughTheCudaPortServesEveryRequestAndVerifiesEveryLoad() throws Exception {
        run(1);
    }

    /**
     * Layer-wise loading on the CUDA path: every load goes to the GPU as 4 slices per segment with an
     * event after each group, and the run is served and verified as with whole loads.
     */
    @Test
    void aLayerWiseLiveRunThroughTheCudaPortSplitsEveryLoadAndVerifiesIt() throws Exception {
        run(4);
    }

    private void run(int layerGroups) throws Exception {
        Geometry geometry = TinyModel.smallGeometry();
        long block = geometry.blockBytes();
        StoreSettings settings = StoreSettings.defaults(geometry, 48 * block, 1_024 * block);
        List<RequestSpec> requests = PromptMix.requests(2027, 200, 30, 8, 300_000);
        FakeCuda cuda = new FakeCuda(true);
        try (PinnedArena arena = PinnedArena.allocate(settings.l1CapacityBytes(), false)) {
            try (CudaCopyPort copies = new CudaCopyPort(cuda, 0, arena, geometry.laneBytes(), geometry.tp(), true);
                 StoragePort port = StoragePorts.open(dir.resolve("l2.bin"), arena, settings.l2CapacityBytes())) {
                DecisionTrace trace = new DecisionTrace();
                ServingEngine scheduler = ServingEngines.create(
                        SchedulerSettings.defaults(4_096).withConcurrency(8).withLoadLayerGroups(layerGroups),
                        new TieredStore(settings, trace), trace);
                try (LiveRuntime runtime = new LiveRuntime(scheduler, port, arena, new ComputeTiming(50_000, 200, 0.01, 20_000),
                        30_000_000_000L, copies)) {
                    LiveRuntime.Report report = runtime.run(requests);
                    System.out.printf("live run through the CUDA port (fake device, %d layer groups): %d requests in %.2f s, %d loads verified"
                                    + " on the device side, %d MiB copied, %d L2 reads%n", layerGroups, report.finished().size(),
                            report.wallNs() / 1e9, report.loadMatches(), report.gpuCopyBytes() >> 20, report.l2ReadOps());
                    assertEquals(200, report.finished().size());
                    assertEquals(0, report.mismatches(), report.mismatchExamples().toString());
                    assertTrue(report.l2ReadOps() > 0, "L1 is smaller than the working set: L2 is read back");
                    assertTrue(report.loadMatches() > 0, "loads were verified on the device side");
                    assertEquals(0, copies.counters().failedCopies());
                    assertEquals(0, copies.inFlight());
                    assertTrue(scheduler.store().leftovers().isEmpty(), scheduler.store().leftovers().toString());
                    scheduler.checkInvariants();
                    copies.checkInvariants();
                    // On the H2D stream: each loaded segment copied in G slices adding up to its lane, and copied back once (verify).
                    List<FakeCuda.Queued> toGpu = cuda.queued(cuda.streamHandles().get(0));
                    long slices = toGpu.stream().filter(w -> !w.isEvent() && w.kind() == CudaApi.MEMCPY_HOST_TO_DEVICE).count();
                    long copiedBack = toGpu.stream().filter(w -> !w.isEvent() && w.kind() == CudaApi.MEMCPY_DEVICE_TO_HOST).count();
                    assertEquals(report.loadMatches(), copiedBack);
                    assertEquals(layerGroups * copiedBack, slices);
                    assertEquals(geometry.laneBytes() * copiedBack,
                            toGpu.stream().filter(w -> w.kind() == CudaApi.MEMCPY_HOST_TO_DEVICE).mapToLong(FakeCuda.Queued::bytes).sum());
                }
            }
            assertTrue(cuda.leaksNothing(), cuda.leftovers());
        }
    }

    /**
     * With payload verification off nothing compares loaded bytes with their key's payload; the
     * runtime still checks every L2 read of a unit this run wrote against the unit's checksum at
     * write. A storage port that returns wrong bytes for some reads is caught.
     */
    @Test
    void withVerificationOffWrongBytesFromL2AreStillCaughtByTheirChecksum() throws Exception {
        Geometry geometry = TinyModel.smallGeometry();
        long block = geometry.blockBytes();
        StoreSettings settings = StoreSettings.defaults(geometry, 48 * block, 1_024 * block);
        List<RequestSpec> requests = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            // 30 prompts of 6 blocks, each sent four times: later sends read L2 once L1 (48 blocks) has evicted them.
            requests.add(new RequestSpec(i, i * 200_000L, 6 * 16L + 5, 1, BlockChains.ofPrompt(i % 30, 6)));
        }
        FakeCuda cuda = new FakeCuda(true);
        try (PinnedArena arena = PinnedArena.allocate(settings.l1CapacityBytes(), false)) {
            for (boolean corrupt : new boolean[] {false, true}) {
                try (CudaCopyPort copies = new CudaCopyPort(cuda, 0, arena, geometry.laneBytes(), geometry.tp(), false);
                     StoragePort real = StoragePorts.open(dir.resolve("l2-" + corrupt + ".bin"), arena, settings.l2CapacityBytes())) {
                    StoragePort port = corrupt ? new EveryThirdReadCorrupted(real, arena) : real;
                    DecisionTrace trace = new DecisionTrace();
                    ServingEngine scheduler = ServingEngines.create(SchedulerSettings.defaults(4_096).withConcurrency(4),
                            new TieredStore(settings, trace), trace);
                    try (LiveRuntime runtime = new LiveRuntime(scheduler, port, arena, new ComputeTiming(50_000, 200, 0.01, 20_000),
                            30_000_000_000L, copies)) {
                        LiveRuntime.Report report = runtime.run(requests);
                        assertTrue(report.l2ReadOps() > 0, "L2 was read back");
                        assertEquals(0, report.loadMatches(), "no payload checks with verification off");
                        if (corrupt) {
                            // Before: 0 mismatches, whatever the reads returned.
                            assertTrue(report.l2ChecksumMismatches() > 0, "the corrupted reads were caught");
                            assertEquals(report.l2ChecksumMismatches(), report.mismatches());
                            assertTrue(report.mismatchExamples().getFirst().contains("returned CRC32C"), report.mismatchExamples().toString());
                        } else {
                            assertEquals(0, report.mismatches(), report.mismatchExamples().toString());
                        }
                    }
                }
            }
        }
    }

    /** A storage port whose every third read puts a wrong byte into L1 before it reports success. */
    private static final class EveryThirdReadCorrupted implements StoragePort {
        private final StoragePort real;
        private final PinnedArena arena;
        private final java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();

        EveryThirdReadCorrupted(StoragePort real, PinnedArena arena) {
            this.real = real;
            this.arena = arena;
        }

        @Override
        public void submit(List<? extends tierlab.model.io.IoOp.L2Op> ops, CompletionSink sink) {
            real.submit(ops, (op, completion) -> {
                if (op instanceof tierlab.model.io.IoOp.L2Read read && completion.succeeded() && reads.incrementAndGet() % 3 == 0) {
                    var first = arena.slice(read.l1Offset(), 1);
                    first.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) ~first.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
                }
                sink.completed(op, completion);
            });
        }

        @Override
        public String name() {
            return "corrupting " + real.name();
        }

        @Override
        public void close() {
        }
    }
}
