package tierlab.sim.hybrid;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tierlab.engine.BlockingStorage;
import tierlab.engine.PayloadPattern;
import tierlab.engine.PinnedArena;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;

/**
 * Hybrid mode's data path: every operation the simulator completes is carried out on real bytes
 * at that virtual instant. L2 reads and writes go through a real storage port (the io_uring
 * engine, or the FileChannel fallback) between a real pinned arena and a real file; GPU copies
 * are memcpys between the arena and per-block "device" buffers; a compute step writes each
 * finished block's deterministic payload into its GPU buffer. Every load and every staging copy
 * is verified byte for byte against the payload its request expects.
 *
 * <p>Because the simulator picks when (and in which order) operations complete, adversarial
 * completion orders meet real bytes: a stale or torn read is a counted mismatch here.
 */
public final class RealBytes implements AutoCloseable {
    private record GpuLane(long gpuBlockId, int lane) {}

    private final PinnedArena l1;
    private final BlockingStorage storage;
    private final long laneBytes;
    private final int tp;
    private final Arena gpuMemory = Arena.ofConfined();
    private final Map<GpuLane, MemorySegment> gpuBuffers = new HashMap<>();
    private long loadMatches;
    private long loadMismatches;
    private long stagingMismatches;
    private long storageFailures;
    private final List<String> mismatchExamples = new ArrayList<>();

    public RealBytes(PinnedArena l1, BlockingStorage storage, long laneBytes, int tp) {
        this.l1 = l1;
        this.storage = storage;
        this.laneBytes = laneBytes;
        this.tp = tp;
    }

    /**
     * Carries out a completed operation. Returns whether it succeeded: a real read or write can
     * fail even when the simulator did not inject a fault.
     */
    public boolean apply(IoOp op, boolean succeeded) {
        if (!succeeded) {
            return false;
        }
        switch (op) {
            case IoOp.L2Op l2 -> {
                IoCompletion completion = storage.execute(l2);
                if (!completion.succeeded()) {
                    storageFailures++;
                    note("L2 " + op + " failed: " + completion.errorName());
                    return false;
                }
            }
            case IoOp.CopyFromGpu copy -> {
                for (int i = 0; i < copy.gpuBlockIds().size(); i++) {
                    MemorySegment source = gpu(copy.gpuBlockIds().get(i), copy.lane());
                    l1.slice(copy.l1Offset() + i * laneBytes, laneBytes).copyFrom(source);
                    IoOp.Content expected = copy.expected().get(i);
                    if (!PayloadPattern.matches(source, expected.key(), expected.lane())) {
                        stagingMismatches++;
                        note("staging of request " + copy.requestId() + " read a GPU block not holding " + expected);
                    }
                }
            }
            case IoOp.CopyToGpu copy -> {
                for (IoOp.GpuLoadSegment segment : copy.segments()) {
                    MemorySegment target = gpu(segment.gpuBlockId(), segment.expected().lane());
                    target.copyFrom(l1.slice(segment.l1Offset(), laneBytes));
                    if (PayloadPattern.matches(target, segment.expected().key(), segment.expected().lane())) {
                        loadMatches++;
                    } else {
                        loadMismatches++;
                        note("load of request " + copy.requestId() + " did not receive " + segment.expected());
                    }
                }
            }
            case IoOp.Compute compute -> {
                for (IoOp.ComputeItem item : compute.items()) {
                    for (IoOp.GpuBlockWrite write : item.blocksCompleted()) {
                        for (int lane = 0; lane < tp; lane++) {
                            PayloadPattern.fill(gpu(write.gpuBlockId(), lane), write.key(), lane);
                        }
                    }
                }
            }
        }
        return true;
    }

    private MemorySegment gpu(long gpuBlockId, int lane) {
        return gpuBuffers.computeIfAbsent(new GpuLane(gpuBlockId, lane), k -> gpuMemory.allocate(laneBytes, 4096));
    }

    private void note(String example) {
        if (mismatchExamples.size() < 20) {
            mismatchExamples.add(example);
        }
    }

    /** A process crash: GPU memory is gone (the arena's contents are garbage to the new process anyway). */
    public void crash() {
        for (MemorySegment buffer : gpuBuffers.values()) {
            buffer.fill((byte) 0);
        }
    }

    public long loadMatches() { return loadMatches; }
    public long loadMismatches() { return loadMismatches; }
    public long stagingMismatches() { return stagingMismatches; }
    public long mismatches() { return loadMismatches + stagingMismatches; }
    public long storageFailures() { return storageFailures; }
    public List<String> mismatchExamples() { return List.copyOf(mismatchExamples); }

    @Override
    public void close() {
        gpuMemory.close();
    }
}
