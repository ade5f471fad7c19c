package tierlab.engine.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tierlab.engine.PayloadPattern;
import tierlab.engine.PinnedArena;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;

/**
 * The copy port on a real GPU: a compute step's payloads staged into the registered L1 arena and
 * loaded into other device blocks, verified both ways. Skipped, with the reason printed, on a host
 * without a usable CUDA device (this VM: no driver).
 */
class CudaGpuTest {

    private static CudaDevice device;

    @BeforeAll
    static void probe() {
        device = CudaDevice.probe();
        if (!device.available()) {
            System.out.println("CudaGpuTest skipped: no CUDA device: " + device.description());
            Assumptions.abort("no CUDA device: " + device.description());
        }
        System.out.println("CUDA device: " + device.description());
    }

    @Test
    void blocksRoundTripThroughTheGpuAndVerify() throws Exception {
        long laneBytes = 9L << 18;
        BlockKey key = new BlockKey(7, 77);
        LinkedBlockingQueue<IoCompletion> completions = new LinkedBlockingQueue<>();
        try (PinnedArena l1 = PinnedArena.allocate(laneBytes * 4, true);
             CudaCopyPort port = new CudaCopyPort(device.api().orElseThrow(), device.device(), l1, laneBytes, 1, true)) {
            System.out.println(port.pinning());
            assertTrue(port.l1Registered(), port.pinning());
            port.computed(new IoOp.Compute(1, 0, List.of(new IoOp.ComputeItem(1, 16, 0, List.of(new IoOp.GpuBlockWrite(3, key))))));
            port.fromGpu(new IoOp.CopyFromGpu(2, 1, 0, laneBytes, 0, List.of(3L), List.of(new IoOp.Content(key, 0))),
                    (op, completion) -> completions.add(completion));
            IoCompletion staged = completions.poll(30, TimeUnit.SECONDS);
            assertTrue(staged != null && staged.succeeded(), String.valueOf(staged));
            assertTrue(PayloadPattern.matches(l1.slice(0, laneBytes), key, 0));
            port.toGpu(new IoOp.CopyToGpu(3, 1, List.of(new IoOp.GpuLoadSegment(0, laneBytes, 8, new IoOp.Content(key, 0)))),
                    (op, completion) -> completions.add(completion));
            IoCompletion loaded = completions.poll(30, TimeUnit.SECONDS);
            assertTrue(loaded != null && loaded.succeeded(), String.valueOf(loaded));
            port.awaitVerification();
            assertEquals(1, port.counters().loadMatches());
            assertEquals(0, port.counters().loadMismatches() + port.counters().stagingMismatches(),
                    port.counters().mismatchExamples().toString());
        }
    }

    /**
     * Layer-wise loading on the GPU: two 2.25 MiB lanes loaded in 4 layer groups (4 × 589,824 bytes each),
     * each group's landing reported in order from the completion thread before the load's completion,
     * and both blocks copied back whole and verified.
     */
    @Test
    void aLayerWiseLoadLandsGroupByGroupAndVerifies() throws Exception {
        long laneBytes = 9L << 18;
        BlockKey first = new BlockKey(8, 88);
        BlockKey second = new BlockKey(9, 99);
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        LinkedBlockingQueue<IoCompletion> completions = new LinkedBlockingQueue<>();
        try (PinnedArena l1 = PinnedArena.allocate(laneBytes * 4, true);
             CudaCopyPort port = new CudaCopyPort(device.api().orElseThrow(), device.device(), l1, laneBytes, 1, true)) {
            port.setLayerGroups(new LayerGroupLoads(4), group -> seen.add("group " + group));
            PayloadPattern.fill(l1.slice(laneBytes, laneBytes), first, 0);
            PayloadPattern.fill(l1.slice(3 * laneBytes, laneBytes), second, 0);
            port.toGpu(new IoOp.CopyToGpu(4, 1, List.of(
                            new IoOp.GpuLoadSegment(laneBytes, laneBytes, 10, new IoOp.Content(first, 0)),
                            new IoOp.GpuLoadSegment(3 * laneBytes, laneBytes, 11, new IoOp.Content(second, 0)))),
                    (op, completion) -> {
                        seen.add("completed");
                        completions.add(completion);
                    });
            IoCompletion loaded = completions.poll(30, TimeUnit.SECONDS);
            assertTrue(loaded != null && loaded.succeeded(), String.valueOf(loaded));
            assertEquals(List.of("group 0", "group 1", "group 2", "group 3", "completed"), seen);
            port.awaitVerification();
            assertEquals(2, port.counters().loadMatches());
            assertEquals(0, port.counters().loadMismatches(), port.counters().mismatchExamples().toString());
            assertEquals(2 * laneBytes, port.counters().copiedBytes());
        }
    }
}
