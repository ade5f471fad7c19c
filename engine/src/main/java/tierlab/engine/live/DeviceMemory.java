package tierlab.engine.live;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import tierlab.engine.PayloadPattern;
import tierlab.engine.PinnedArena;
import tierlab.engine.uring.Libc;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;

/**
 * The GPU side of live and hybrid mode on a machine without a GPU: one device-side buffer per
 * (GPU block, lane). A compute step gives each finished block its deterministic payload; a staging
 * copy moves the buffer's content into the pinned arena and checks it is the payload the model
 * expects there; a load moves arena bytes into buffers and verifies them against the payload the
 * request expects, so every stale, torn or misplaced byte is counted as a mismatch.
 *
 * <p><b>Computed payloads are written when they are first read, not when they are computed.</b>
 * A compute step only records which payload (key and lane) each finished buffer now holds. The
 * first staging copy out of that buffer writes that payload straight into the arena (one pass over
 * the bytes) and checks the recorded payload is the one expected; a load into the buffer replaces
 * the record with real bytes. The bytes that reach the arena, and so the L2 file, are exactly those
 * an eager fill followed by a memcpy would give, and a staging of the wrong block is caught as
 * before (the record names another key), but a cold pass no longer writes every computed byte
 * twice and reads it twice more: on a loaded 2-core host the eager fill on the compute stream took
 * longer than the compute time it was meant to hide in (docs/performance.md). A GPU does not fill
 * anything either; its KV is simply there.
 *
 * <p>Safe for the live runtime's three device streams at once (each buffer is only ever used by one
 * operation at a time: the model orders the operations on a block, and the hand-off of an operation
 * through the completion queue orders its writes before the next operation's reads); hybrid mode
 * calls it from its one thread.
 */
public final class DeviceMemory implements AutoCloseable {
    private record GpuLane(long gpuBlockId, int lane) {}

    /**
     * One device-side buffer: either its bytes are real ({@code computedPayload} null: loaded, or
     * never written and so zeros) or it holds the computed payload named by {@code computedPayload},
     * which is not written anywhere until a staging copy reads it. The memory is mapped on first use.
     */
    private final class Buffer {
        private MemorySegment bytes;
        private volatile IoOp.Content computedPayload;

        MemorySegment bytes() {
            if (bytes == null) {
                bytes = allocate();
            }
            return bytes;
        }
    }

    private final PinnedArena l1;
    private final long laneBytes;
    private final int tp;
    private final Arena memory = Arena.ofShared();
    private final Map<GpuLane, Buffer> buffers = new ConcurrentHashMap<>();
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

    /**
     * A compute step finished: its completed blocks now hold their KV. Records which payload each
     * lane holds; the bytes are written by the first staging copy that reads them (see above).
     */
    public void computed(IoOp.Compute compute) {
        for (IoOp.ComputeItem item : compute.items()) {
            for (IoOp.GpuBlockWrite write : item.blocksCompleted()) {
                for (int lane = 0; lane < tp; lane++) {
                    buffer(write.gpuBlockId(), lane).computedPayload = new IoOp.Content(write.key(), lane);
                }
            }
        }
    }

    /** GPU → pinned memory: copies whatever the blocks hold, and counts blocks that hold another request's KV. */
    public void stage(IoOp.CopyFromGpu copy) {
        for (int i = 0; i < copy.gpuBlockIds().size(); i++) {
            Buffer source = buffer(copy.gpuBlockIds().get(i), copy.lane());
            MemorySegment target = l1.slice(copy.l1Offset() + i * laneBytes, laneBytes);
            IoOp.Content expected = copy.expected().get(i);
            IoOp.Content computedPayload = source.computedPayload;
            boolean holdsExpected;
            if (computedPayload != null) {
                // The buffer holds a computed payload: write it where the copy would have put it.
                PayloadPattern.fill(target, computedPayload.key(), computedPayload.lane());
                holdsExpected = computedPayload.equals(expected);
            } else {
                MemorySegment bytes = source.bytes();
                target.copyFrom(bytes);
                holdsExpected = PayloadPattern.matches(bytes, expected.key(), expected.lane());
            }
            copiedBytes.addAndGet(laneBytes);
            if (!holdsExpected) {
                stagingMismatches.incrementAndGet();
                note("staging of request " + copy.requestId() + " read a GPU block not holding " + expected);
            }
        }
    }

    /** Pinned memory → GPU: one grouped copy, every segment verified. */
    public void load(IoOp.CopyToGpu copy) {
        for (IoOp.GpuLoadSegment segment : copy.segments()) {
            Buffer buffer = buffer(segment.gpuBlockId(), segment.expected().lane());
            MemorySegment target = buffer.bytes();
            target.copyFrom(l1.slice(segment.l1Offset(), laneBytes));
            // The buffer now holds these bytes, whatever payload a compute step gave it before.
            buffer.computedPayload = null;
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
     * Pinned memory → GPU in layer groups (layer-wise loading): group g copies its share of every
     * segment's lane ({@code split}'s {@link LayerGroupLoads#groupOffset} and {@link LayerGroupLoads#groupBytes}
     * of the lane: an even split, the remainder in the last group; the CUDA copy port splits the same way),
     * then reports {@code landed.accept(g)}; every segment is verified once all its groups are in.
     */
    public void loadInGroups(IoOp.CopyToGpu copy, LayerGroupLoads split, IntConsumer landed) {
        for (int group = 0; group < split.groups(); group++) {
            long from = split.groupOffset(laneBytes, group);
            long bytes = split.groupBytes(laneBytes, group);
            for (IoOp.GpuLoadSegment segment : copy.segments()) {
                Buffer buffer = buffer(segment.gpuBlockId(), segment.expected().lane());
                buffer.bytes().asSlice(from, bytes).copyFrom(l1.slice(segment.l1Offset() + from, bytes));
                // The buffer now holds loaded bytes, whatever payload a compute step gave it before.
                buffer.computedPayload = null;
                copiedBytes.addAndGet(bytes);
            }
            landed.accept(group);
        }
        for (IoOp.GpuLoadSegment segment : copy.segments()) {
            MemorySegment target = buffer(segment.gpuBlockId(), segment.expected().lane()).bytes();
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
        for (Buffer buffer : buffers.values()) {
            buffer.computedPayload = null;
            if (buffer.bytes != null) {
                buffer.bytes.fill((byte) 0);
            }
        }
    }

    private Buffer buffer(long gpuBlockId, int lane) {
        return buffers.computeIfAbsent(new GpuLane(gpuBlockId, lane), k -> new Buffer());
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
