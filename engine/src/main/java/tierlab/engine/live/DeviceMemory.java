package tierlab.engine.live;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import tierlab.engine.PayloadPattern;
import tierlab.engine.PinnedArena;
import tierlab.engine.uring.Libc;
import tierlab.model.io.IoOp;

/**
 * The GPU side of live and hybrid mode on a machine without a GPU: one device-side buffer per
 * (GPU block, lane). A compute step writes each finished block's deterministic payload into its
 * buffers; a staging copy moves buffer bytes into the pinned arena; a load moves arena bytes into
 * buffers and verifies them against the payload the request expects, so every stale, torn or
 * misplaced byte is counted as a mismatch.
 *
 * <p>Safe for the live runtime's three device streams at once (each buffer is only ever used by one
 * operation at a time: the model orders the operations on a block); hybrid mode calls it from its
 * one thread.
 */
public final class DeviceMemory implements AutoCloseable {
    private record GpuLane(long gpuBlockId, int lane) {}

    private final PinnedArena l1;
    private final long laneBytes;
    private final int tp;
    private final Arena memory = Arena.ofShared();
    private final Map<GpuLane, MemorySegment> buffers = new ConcurrentHashMap<>();
    /** Addresses of the buffers mapped by {@link #allocate}, unmapped at close. */
    private final List<Long> mapped = Collections.synchronizedList(new ArrayList<>());
    /** Shared by the streams' mmap calls: errno is never read from it (a failed mapping falls back, see {@link #allocate}). */
    private final MemorySegment errnoState = Libc.newErrnoState(memory);
    private final AtomicLong loadMatches = new AtomicLong();
    private final AtomicLong loadMismatches = new AtomicLong();
    private final AtomicLong stagingMismatches = new AtomicLong();
    private final AtomicLong copiedBytes = new AtomicLong();
    private final List<String> mismatchExamples = Collections.synchronizedList(new ArrayList<>());

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
            copiedBytes.addAndGet(laneBytes);
            IoOp.Content expected = copy.expected().get(i);
            if (!PayloadPattern.matches(source, expected.key(), expected.lane())) {
                stagingMismatches.incrementAndGet();
                note("staging of request " + copy.requestId() + " read a GPU block not holding " + expected);
            }
        }
    }

    /** Pinned memory → GPU: one grouped copy, every segment verified. */
    public void load(IoOp.CopyToGpu copy) {
        for (IoOp.GpuLoadSegment segment : copy.segments()) {
            MemorySegment target = buffer(segment.gpuBlockId(), segment.expected().lane());
            target.copyFrom(l1.slice(segment.l1Offset(), laneBytes));
            copiedBytes.addAndGet(laneBytes);
            if (PayloadPattern.matches(target, segment.expected().key(), segment.expected().lane())) {
                loadMatches.incrementAndGet();
            } else {
                loadMismatches.incrementAndGet();
                note("load of request " + copy.requestId() + " did not receive " + segment.expected());
            }
        }
    }

    /**
     * Pinned memory → GPU in {@code groups} layer groups (layer-wise loading): group g copies its share of
     * every segment's lane (an even split of the lane's bytes, the remainder in the last group), then
     * reports {@code landed.accept(g)}; every segment is verified once all its groups are in.
     */
    public void loadInGroups(IoOp.CopyToGpu copy, int groups, java.util.function.IntConsumer landed) {
        long share = laneBytes / groups;
        for (int group = 0; group < groups; group++) {
            long from = group * share;
            long bytes = group == groups - 1 ? laneBytes - from : share;
            for (IoOp.GpuLoadSegment segment : copy.segments()) {
                MemorySegment target = buffer(segment.gpuBlockId(), segment.expected().lane());
                target.asSlice(from, bytes).copyFrom(l1.slice(segment.l1Offset() + from, bytes));
                copiedBytes.addAndGet(bytes);
            }
            landed.accept(group);
        }
        for (IoOp.GpuLoadSegment segment : copy.segments()) {
            MemorySegment target = buffer(segment.gpuBlockId(), segment.expected().lane());
            if (PayloadPattern.matches(target, segment.expected().key(), segment.expected().lane())) {
                loadMatches.incrementAndGet();
            } else {
                loadMismatches.incrementAndGet();
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
        return buffers.computeIfAbsent(new GpuLane(gpuBlockId, lane), k -> allocate());
    }

    /**
     * A lane buffer of fresh anonymous memory. Not {@code Arena.allocate}, which zeroes what it
     * hands out: an engine cycles through all its GPU blocks (the free list is first-freed first),
     * so a live run's buffers grow to every block it has, and the zeroing pass over them was a
     * large share of a cold pass (docs/performance.md). Every buffer is written (by a compute
     * step or a load) before it is read; fresh pages read as zeros anyway.
     */
    private MemorySegment allocate() {
        long address = Libc.mmap(errnoState, laneBytes, Libc.PROT_READ | Libc.PROT_WRITE,
                Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS | Libc.MAP_NORESERVE, -1, 0);
        if (address == -1L) {
            // Without the mapping (a strict overcommit policy), the zeroing allocation still works.
            return memory.allocate(laneBytes, 4096);
        }
        mapped.add(address);
        return MemorySegment.ofAddress(address).reinterpret(laneBytes);
    }

    private void note(String example) {
        synchronized (mismatchExamples) {
            if (mismatchExamples.size() < 20) {
                mismatchExamples.add(example);
            }
        }
    }

    public long loadMatches() { return loadMatches.get(); }
    public long loadMismatches() { return loadMismatches.get(); }
    public long stagingMismatches() { return stagingMismatches.get(); }
    public long mismatches() { return loadMismatches.get() + stagingMismatches.get(); }
    public long copiedBytes() { return copiedBytes.get(); }

    public List<String> mismatchExamples() {
        synchronized (mismatchExamples) {
            return List.copyOf(mismatchExamples);
        }
    }

    @Override
    public void close() {
        synchronized (mapped) {
            for (long address : mapped) {
                Libc.munmap(errnoState, address, laneBytes);
            }
            mapped.clear();
        }
        buffers.clear();
        memory.close();
    }
}
