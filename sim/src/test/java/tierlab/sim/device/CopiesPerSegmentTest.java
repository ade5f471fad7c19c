package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;

/**
 * {@code host.copiesPerSegment}: a load reaches the link as one copy per segment (per segment and layer
 * group), as tierlab's CUDA copy port issues it. Hand-computed on a link of 1 byte per ns with 1,000 ns
 * per copy, and a model thread that pays 100 ns per copy call.
 */
class CopiesPerSegmentTest {

    private static IoOp.CopyToGpu load(int segments, long segmentBytes) {
        List<IoOp.GpuLoadSegment> list = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            IoOp.Content content = new IoOp.Content(BlockKey.fromTraceId(BlockKey.ROOT, i + 1, 0), 0);
            list.add(new IoOp.GpuLoadSegment(i * segmentBytes, segmentBytes, i, content));
        }
        return new IoOp.CopyToGpu(1, 7, list);
    }

    /**
     * The load's completion; when split, {@code stepEnd[0]} gets the end of a step of {@code computeNs}
     * started at 0 that uses the load (its chain shows when each group landed).
     */
    private static long loadEnd(boolean perSegment, int groups, long computeNs, long[] stepEnd) {
        LayerGroupLoadsTest.FixedClock clock = new LayerGroupLoadsTest.FixedClock();
        HostProfile host = new HostProfile(0, 0, 100, 0, 0).withCopiesPerSegment(perSegment);
        SimCopyPort copies = new SimCopyPort(new CopyEngine(1e9, 1000), new CopyEngine(1e9, 1000), clock, new HostThread(host));
        LayerGroupLoads loads = null;
        if (groups > 1) {
            loads = new LayerGroupLoads(groups);
            copies.setLayerGroups(loads);
        }
        copies.toGpu(load(3, 1000), (op, completion) -> { });
        if (loads != null) {
            stepEnd[0] = loads.stepEndNs(0, computeNs);
        }
        return clock.completionNs.get(1L);
    }

    @Test
    void oneCopyPerLoadPaysTheLinkLatencyOnce() {
        // Issued at 100 (one call), then 1,000 + 3,000 ns on the link.
        assertEquals(4_100, loadEnd(false, 1, 0, new long[1]));
    }

    @Test
    void oneCopyPerSegmentPaysItPerSegment() {
        // Issued at 100, then three copies of 1,000 + 1,000 ns back to back: 2,100, 4,100, 6,100.
        assertEquals(6_100, loadEnd(true, 1, 0, new long[1]));
    }

    @Test
    void splitPerSegmentPaysTheCallsPerGroupAndTheLatencyPerSegmentAndGroup() {
        // Group 0 issued at 100: three copies of 500 bytes, 1,500 ns each: 1,600, 3,100, 4,600.
        // Group 1 issued at 200 (the model thread's second call), behind them on the link: 6,100, 7,600, 9,100.
        long[] stepEnd = new long[1];
        assertEquals(9_100, loadEnd(true, 2, 0, stepEnd));
        assertEquals(9_100, stepEnd[0], "with no compute the chain ends at the last group's landing");
        // 10,000 ns of compute per group: group 0 landed at 4,600, so 14,600; group 1 then 24,600.
        loadEnd(true, 2, 20_000, stepEnd);
        assertEquals(24_600, stepEnd[0]);
        // Without per-segment copies the split pays one latency per group: 100 + 2 x (1,000 + 1,500) = 5,100.
        assertEquals(5_100, loadEnd(false, 2, 0, stepEnd));
    }

    @Test
    void theFlagRoundTripsThroughTheProfileAndDefaultsOff() {
        assertEquals(false, new HostProfile(1, 2, 3, 4, 5).copiesPerSegment());
        assertEquals(true, new HostProfile(1, 2, 3, 4, 5).withCopiesPerSegment(true).withIoRings(8).withCopiesOnStreams(true)
                .withModelThread(6, 7, 8).copiesPerSegment());
    }
}
