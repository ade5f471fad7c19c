package tierlab.engine.live;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tierlab.engine.PayloadPattern;
import tierlab.engine.PinnedArena;
import tierlab.model.io.IoOp;

/**
 * The GPU side of live and hybrid mode on a machine without a GPU: one device-side buffer per
 * (GPU block, lane). A compute step writes each finished block's deterministic payload into its
 * buffers; a staging copy moves buffer bytes into the pinned arena; a load moves arena bytes into
 * buffers and verifies them against the payload the request expects, so every stale, torn or
 * misplaced byte is counted as a mismatch.
 *
 * <p>Not thread-safe: the runtime's model thread is its only user.
 */
public final class DeviceMemory implements AutoCloseable {
    private record GpuLane(long gpuBlockId, int lane) {}

    private final PinnedArena l1;
    private final long laneBytes;
    private final int tp;
    private final Arena memory = Arena.ofShared();
    private final Map<GpuLane, MemorySegment> buffers = new HashMap<>();
    private long loadMatches;
    private long loadMismatches;
    private long stagingMismatches;
    private long copiedBytes;
    private final List<String> mismatchExamples = new ArrayList<>();

    public DeviceMemory(PinnedArena l1, long laneBytes, int tp) {
        this.l1 = l1;
        this.laneBytes = laneBytes;
        this.tp = tp;
    }

    /** A compute step finished: its completed blocks now hold their KV. */
    public void computed(IoOp.Compute compute) {
        for (IoOp.ComputeItem item : compute.items()) {
            for (IoOp.GpuBlockWrite write : item.blocksCompleted()) {
                for (int lane = 0; lane < tp; lane++) {
                    PayloadPattern.fill(buffer(write.gpuBlockId(), lane), write.key(), lane);
                }
            }
        }
    }

    /** GPU → pinned memory: copies whatever the blocks hold, and counts blocks that hold another request's KV. */
    public void stage(IoOp.CopyFromGpu copy) {
        for (int i = 0; i < copy.gpuBlockIds().size(); i++) {
            MemorySegment source = buffer(copy.gpuBlockIds().get(i), copy.lane());
            l1.slice(copy.l1Offset() + i * laneBytes, laneBytes).copyFrom(source);
            copiedBytes += laneBytes;
            IoOp.Content expected = copy.expected().get(i);
            if (!PayloadPattern.matches(source, expected.key(), expected.lane())) {
                stagingMismatches++;
                note("staging of request " + copy.requestId() + " read a GPU block not holding " + expected);
            }
        }
    }

    /** Pinned memory → GPU: one grouped copy, every segment verified. */
    public void load(IoOp.CopyToGpu copy) {
        for (IoOp.GpuLoadSegment segment : copy.segments()) {
            MemorySegment target = buffer(segment.gpuBlockId(), segment.expected().lane());
            target.copyFrom(l1.slice(segment.l1Offset(), laneBytes));
            copiedBytes += laneBytes;
            if (PayloadPattern.matches(target, segment.expected().key(), segment.expected().lane())) {
                loadMatches++;
            } else {
                loadMismatches++;
                note("load of request " + copy.requestId() + " did not receive " + segment.expected());
            }
        }
    }

    /** A process crash: device memory is gone. */
    public void wipe() {
        for (MemorySegment buffer : buffers.values()) {
            buffer.fill((byte) 0);
        }
    }

    private MemorySegment buffer(long gpuBlockId, int lane) {
        return buffers.computeIfAbsent(new GpuLane(gpuBlockId, lane), k -> memory.allocate(laneBytes, 4096));
    }

    private void note(String example) {
        if (mismatchExamples.size() < 20) {
            mismatchExamples.add(example);
        }
    }

    public long loadMatches() { return loadMatches; }
    public long loadMismatches() { return loadMismatches; }
    public long stagingMismatches() { return stagingMismatches; }
    public long mismatches() { return loadMismatches + stagingMismatches; }
    public long copiedBytes() { return copiedBytes; }
    public List<String> mismatchExamples() { return List.copyOf(mismatchExamples); }

    @Override
    public void close() {
        memory.close();
    }
}
