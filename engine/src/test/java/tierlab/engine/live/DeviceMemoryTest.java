package tierlab.engine.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.engine.PayloadPattern;
import tierlab.engine.PinnedArena;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;

/**
 * The device-side buffers write a computed payload only when a staging copy reads it: what reaches
 * the arena must be byte for byte the payload the compute step gave the block, a staging of a block
 * that holds another key must still be counted, and a load must still replace what a compute step
 * left there.
 */
class DeviceMemoryTest {
    private static final long LANE_BYTES = 64 << 10;
    private static final int TP = 2;
    private static final BlockKey A = BlockKey.fromTraceId(BlockKey.ROOT, 1, 0);
    private static final BlockKey B = BlockKey.fromTraceId(BlockKey.ROOT, 2, 0);

    private static IoOp.Compute computeStep(long gpuBlockId, BlockKey key) {
        return new IoOp.Compute(1, 1, List.of(new IoOp.ComputeItem(1, 16, 0, List.of(new IoOp.GpuBlockWrite(gpuBlockId, key)))));
    }

    private static IoOp.CopyFromGpu stage(long gpuBlockId, int lane, long l1Offset, BlockKey expected) {
        return new IoOp.CopyFromGpu(2, 1, l1Offset, LANE_BYTES, lane, List.of(gpuBlockId), List.of(new IoOp.Content(expected, lane)));
    }

    private static IoOp.CopyToGpu load(long gpuBlockId, int lane, long l1Offset, BlockKey expected) {
        return new IoOp.CopyToGpu(3, 1, List.of(new IoOp.GpuLoadSegment(l1Offset, LANE_BYTES, gpuBlockId, new IoOp.Content(expected, lane))));
    }

    @Test
    void aComputedBlockIsStagedAsItsExactPayloadOnEveryLane() {
        try (PinnedArena arena = PinnedArena.allocate(4 * LANE_BYTES, false);
             DeviceMemory device = new DeviceMemory(arena, LANE_BYTES, TP)) {
            device.computed(computeStep(7, A));
            for (int lane = 0; lane < TP; lane++) {
                device.stage(stage(7, lane, lane * LANE_BYTES, A));
                assertTrue(PayloadPattern.matches(arena.slice(lane * LANE_BYTES, LANE_BYTES), A, lane), "lane " + lane);
                assertFalse(PayloadPattern.matches(arena.slice(lane * LANE_BYTES, LANE_BYTES), A, 1 - lane), "lane " + lane);
            }
            assertEquals(0, device.mismatches());
            assertEquals(TP * LANE_BYTES, device.copiedBytes());
        }
    }

    @Test
    void stagingABlockThatHoldsAnotherKeyIsCountedAndCopiesWhatTheBlockHolds() {
        try (PinnedArena arena = PinnedArena.allocate(2 * LANE_BYTES, false);
             DeviceMemory device = new DeviceMemory(arena, LANE_BYTES, 1)) {
            device.computed(computeStep(3, A));
            device.computed(computeStep(3, B));   // block 3 was reused: it now holds B
            device.stage(stage(3, 0, 0, A));
            assertEquals(1, device.stagingMismatches());
            assertTrue(PayloadPattern.matches(arena.slice(0, LANE_BYTES), B, 0), "the arena receives what the block holds");
            assertEquals(1, device.mismatchExamples().size());
        }
    }

    @Test
    void aLoadReplacesAComputedPayloadAndIsVerified() {
        try (PinnedArena arena = PinnedArena.allocate(2 * LANE_BYTES, false);
             DeviceMemory device = new DeviceMemory(arena, LANE_BYTES, 1)) {
            device.computed(computeStep(5, A));
            PayloadPattern.fill(arena.slice(0, LANE_BYTES), B, 0);
            device.load(load(5, 0, 0, B));
            assertEquals(1, device.loadMatches());
            // Staging block 5 now copies the loaded bytes (B), not A's computed payload.
            device.stage(stage(5, 0, LANE_BYTES, B));
            assertEquals(0, device.mismatches());
            assertTrue(PayloadPattern.matches(arena.slice(LANE_BYTES, LANE_BYTES), B, 0));
            // A torn load (the second half of another key's bytes) is a load mismatch.
            PayloadPattern.fill(arena.slice(0, LANE_BYTES), A, 0);
            arena.slice(LANE_BYTES / 2, LANE_BYTES / 2).copyFrom(arena.slice(LANE_BYTES + LANE_BYTES / 2, LANE_BYTES / 2));
            device.load(load(5, 0, 0, A));
            assertEquals(1, device.loadMismatches());
        }
    }

    @Test
    void aWipeLosesComputedPayloads() {
        try (PinnedArena arena = PinnedArena.allocate(LANE_BYTES, false);
             DeviceMemory device = new DeviceMemory(arena, LANE_BYTES, 1)) {
            device.computed(computeStep(9, A));
            device.wipe();
            device.stage(stage(9, 0, 0, A));
            assertEquals(1, device.stagingMismatches());
            assertTrue(arena.slice(0, LANE_BYTES).asByteBuffer().equals(java.nio.ByteBuffer.allocate((int) LANE_BYTES)),
                    "a wiped block reads as zeros");
        }
    }

    /**
     * Layer-wise loading on host buffers: group g lands as exactly its slice of the lane (64 KiB lanes in 3
     * groups: 21,845, 21,845 and 21,846 bytes, the split the CUDA copy port makes too), the groups land in
     * order, and the whole load is verified once.
     */
    @Test
    void aLoadInLayerGroupsLandsSliceBySliceInOrderAndIsVerifiedOnce() {
        try (PinnedArena arena = PinnedArena.allocate(3 * LANE_BYTES, false);
             DeviceMemory device = new DeviceMemory(arena, LANE_BYTES, 1)) {
            PayloadPattern.fill(arena.slice(0, LANE_BYTES), A, 0);
            List<Integer> landed = new ArrayList<>();
            long[] groupEnds = {21_845, 43_690, LANE_BYTES};
            device.loadInGroups(load(4, 0, 0, A), new LayerGroupLoads(3), group -> {
                landed.add(group);
                // Stage block 4 into slot 2: the bytes up to this group's end are A's, the rest still zeros.
                device.stage(stage(4, 0, 2 * LANE_BYTES, A));
                long end = groupEnds[group];
                assertEquals(-1, arena.slice(0, end).mismatch(arena.slice(2 * LANE_BYTES, end)), "group " + group);
                if (end < LANE_BYTES) {
                    assertEquals(-1, arena.slice(2 * LANE_BYTES + end, LANE_BYTES - end)
                            .mismatch(arena.slice(LANE_BYTES, LANE_BYTES - end)), "group " + group + ": nothing beyond it yet");
                }
            });
            assertEquals(List.of(0, 1, 2), landed);
            assertEquals(1, device.loadMatches());
            assertEquals(0, device.loadMismatches());
        }
    }
}
