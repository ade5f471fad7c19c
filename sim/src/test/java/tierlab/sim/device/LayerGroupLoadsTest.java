package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;
import tierlab.model.io.OpSink;

/**
 * Layer-wise loading in the device ports, by hand. The H2D engine copies 1 byte per ns with no latency,
 * so a 400-byte load takes 400 ns (100 ns per group of 4); a step costs its overhead alone.
 */
class LayerGroupLoadsTest {

    /** A clock that stands still at {@code nowNs} and remembers when each operation would complete. */
    static final class FixedClock implements CompletionTimeline {
        long nowNs;
        final Map<Long, Long> completionNs = new HashMap<>();

        @Override
        public long nowNs() {
            return nowNs;
        }

        @Override
        public void completeAt(IoOp op, long atNs, OpSink sink) {
            completionNs.put(op.ticket(), atNs);
        }
    }

    private static IoOp.CopyToGpu load(long ticket, long bytes) {
        IoOp.Content content = new IoOp.Content(BlockKey.fromTraceId(BlockKey.ROOT, 1, 0), 0);
        return new IoOp.CopyToGpu(ticket, 7, List.of(new IoOp.GpuLoadSegment(0, bytes, 0, content)));
    }

    private static IoOp.Compute step(long ticket) {
        return new IoOp.Compute(ticket, 0, List.of(new IoOp.ComputeItem(7, 16, 0, List.of())));
    }

    /** Loads {@code bytes} at 0, then steps (costing {@code computeNs}) when the load completed; the step's end. */
    private static long loadThenStep(int groups, long bytes, long computeNs) {
        FixedClock clock = new FixedClock();
        CopyEngine h2d = new CopyEngine(1e9, 0);
        SimCopyPort copies = new SimCopyPort(h2d, new CopyEngine(1e9, 0), clock);
        GpuModel gpu = new GpuModel(new GpuProfile("test", computeNs, 0, 0, 0), clock);
        if (groups > 1) {
            LayerGroupLoads loads = new LayerGroupLoads(groups);
            copies.setLayerGroups(loads);
            gpu.setLayerGroups(loads);
        }
        copies.toGpu(load(1, bytes), (op, completion) -> { });
        clock.nowNs = clock.completionNs.get(1L);
        assertEquals(bytes, clock.nowNs, "the load's copies end when its bytes are through, split or not");
        assertEquals(groups, h2d.copies(), "one copy per layer group");
        gpu.step(step(2), (op, completion) -> { });
        return clock.completionNs.get(2L);
    }

    @Test
    void oneGroupIsCopyThenCompute() {
        assertEquals(400 + 200, loadThenStep(1, 400, 200));
    }

    @Test
    void copyBoundStepEndsOneComputeGroupAfterTheCopy() {
        // Groups land at 100, 200, 300, 400; 50 ns of compute each: 150, 250, 350, 450 = 400 + 200 / 4.
        assertEquals(450, loadThenStep(4, 400, 200));
    }

    @Test
    void computeBoundStepEndsOneCopyGroupAfterTheComputeStarts() {
        // Groups land at 100, 200, 300, 400; 200 ns of compute each: 300, 500, 700, 900 = 400 / 4 + 800.
        assertEquals(900, loadThenStep(4, 400, 800));
    }

    @Test
    void unevenSplitsPutTheRemainderOnTheLastGroup() {
        // 403 bytes in 4 groups: 100, 100, 100, 103 (landing 100, 200, 300, 403); 201 ns of compute: 50, 50, 50, 51.
        LayerGroupLoads loads = new LayerGroupLoads(4);
        List<Long> bytes = new ArrayList<>();
        for (int g = 0; g < 4; g++) {
            bytes.add(loads.groupBytes(403, g));
        }
        assertEquals(List.of(100L, 100L, 100L, 103L), bytes);
        assertEquals(403 + 51, loadThenStep(4, 403, 201));
    }

    @Test
    void aStepWithoutALoadSinceTheLastIsNotShortened() {
        LayerGroupLoads loads = new LayerGroupLoads(2);
        loads.landed(0, 10);
        loads.landed(1, 20);
        assertEquals(30, loads.stepEndNs(20, 20), "groups land at 10 and 20; 10 ns each: 20, 30");
        assertEquals(100 + 20, loads.stepEndNs(100, 20), "the loads were used by the step before");
    }

    @Test
    void twoLoadsOfOneStepGateEachGroupOnTheLaterOne() {
        // Two 200-byte loads issued at 0 on one engine: A's groups land at 100, 200; B's at 300, 400.
        // Group 0 waits for B's group 0 (300), group 1 for B's group 1 (400); 100 ns each: 400, 500.
        FixedClock clock = new FixedClock();
        SimCopyPort copies = new SimCopyPort(new CopyEngine(1e9, 0), new CopyEngine(1e9, 0), clock);
        GpuModel gpu = new GpuModel(new GpuProfile("test", 200, 0, 0, 0), clock);
        LayerGroupLoads loads = new LayerGroupLoads(2);
        copies.setLayerGroups(loads);
        gpu.setLayerGroups(loads);
        copies.toGpu(load(1, 200), (op, completion) -> { });
        copies.toGpu(load(2, 200), (op, completion) -> { });
        clock.nowNs = 400;
        gpu.step(step(3), (op, completion) -> { });
        assertEquals(500, clock.completionNs.get(3L));
    }
}
