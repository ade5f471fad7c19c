package tierlab.engine.cuda;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import tierlab.engine.PayloadPattern;
import tierlab.engine.cuda.CopyCompletions.Direction;
import tierlab.engine.cuda.CopyCompletions.Pending;
import tierlab.engine.PinnedArena;
import tierlab.model.io.CopyPort;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;
import tierlab.model.io.OpSink;

/**
 * The model's host↔GPU copies on a real GPU. Loads go host→device on one stream, staging copies
 * device→host on another (both {@code cudaStreamNonBlocking}, so the directions overlap on the
 * link's two copy engines and never wait for the legacy default stream); each copy is one
 * {@code cudaMemcpyAsync} per lane, followed by a {@code cudaEventRecord}. A completion thread
 * polls the oldest event of each stream with {@code cudaEventQuery} (a stream runs its work in
 * order, so only the head can be next) and reports each finished copy to the op's sink, from that
 * thread, exactly as the io_uring ring threads report L2 completions: the live runtime hands them
 * to the model thread through its queue. A copy CUDA refuses or fails is a failed completion
 * carrying CUDA's error name ({@code cudaErrorInvalidValue}, ...), never an exception.
 *
 * <h2>Layer-wise loading</h2>
 * With {@code scheduler.loadLayerGroups} = G > 1 ({@link #setLayerGroups}), a load goes to the GPU as G
 * rounds on the host-to-device stream: round g copies layer group g of every segment (the same even split
 * of the lane, remainder last, as the host-buffer path: {@link LayerGroupLoads#groupOffset},
 * {@link LayerGroupLoads#groupBytes}) and records an event; the last round's event is the load's own. The
 * completion thread reports each group's landing when its event completes, in order (the stream runs them
 * in order), the last one just before the load's completion, so the live compute stream starts group g of
 * the step that needs the load no earlier than its landing, exactly as on host buffers. A copy refused at
 * submission lands no group; a group whose event reports a fault fails the load and lands no later group.
 *
 * <h2>L1 pinning</h2>
 * The existing L1 arena (4096-aligned, mlocked, registered with io_uring) is registered with
 * {@code cudaHostRegister} rather than replaced by {@code cudaMallocHost}: NVMe reads land in the
 * same bytes the GPU then copies from, with no extra copy, and io_uring keeps its fixed buffers.
 * If registration fails the copies still work from pageable memory (the driver stages them, at a
 * fraction of the speed); {@link #pinning()} says which.
 *
 * <h2>Verification</h2>
 * With {@code verify}, a compute step writes each finished block's payload pattern into device
 * memory (a synchronous copy: verification runs are about correctness, and their compute timing is
 * an emulation anyway), a staging copy checks the bytes that arrived in L1 before it completes, and
 * a load copies each block back device→host on its own stream into a pinned scratch buffer before
 * its event (a layer-wise load: each whole block behind its last group, before the last event), then compares the scratch with the expected payload on a verifier thread, after the
 * completion was handed over (the scratch is the load's, so the model reusing the block cannot
 * change it). {@link #awaitVerification()} waits for those comparisons.
 */
public final class CudaCopyPort implements CopyPort, AutoCloseable {

    /** What the copies did; the live run's report reads it. */
    public record Counters(long loadMatches, long loadMismatches, long stagingMismatches, long copiedBytes,
                           long failedCopies, List<String> mismatchExamples) {}

    private static final String ARENA_USER = "the CUDA copy port";
    /** The event of a copy that has none: already waited for, reported as soon as the completion thread sees it. */
    static final long NO_EVENT = 0;
    private static final long[] NO_GROUP_EVENTS = {};

    final CudaApi api;
    final int device;
    private final PinnedArena l1;
    private final long laneBytes;
    final boolean verify;
    private final String pinning;
    private final boolean registered;
    final long toGpuStream;
    final long fromGpuStream;
    private final DeviceBlocks blocks;
    final ConcurrentLinkedQueue<Long> events = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Long> scratchBuffers = new ConcurrentLinkedQueue<>();
    private final List<Long> allScratch = new ArrayList<>();
    private final AtomicLong loadMatches = new AtomicLong();
    private final AtomicLong loadMismatches = new AtomicLong();
    private final AtomicLong stagingMismatches = new AtomicLong();
    final AtomicLong copiedBytes = new AtomicLong();
    final AtomicLong failedCopies = new AtomicLong();
    private final ConcurrentLinkedQueue<String> examples = new ConcurrentLinkedQueue<>();
    private final CopyCompletions completions = new CopyCompletions(this);
    private final Thread completer;
    final ExecutorService verifier;
    volatile boolean stopping;
    /**
     * Layer-wise loading (null: whole loads, the default): the layer-group split of every load and where the
     * completion thread reports each group's landing. Set before the run ({@link #setLayerGroups}).
     */
    private volatile LayerGroupLoads layerSplit;
    volatile IntConsumer layerLanded;

    /**
     * @param device the ordinal to use (already checked by {@link CudaDevice})
     * @param verify write payloads on compute, check staging copies and copy loads back to compare
     */
    public CudaCopyPort(CudaApi api, int device, PinnedArena l1, long laneBytes, int tp, boolean verify) {
        this.api = api;
        this.device = device;
        this.l1 = l1;
        this.laneBytes = laneBytes;
        this.verify = verify;
        api.setDevice(device);
        l1.retain(ARENA_USER);
        boolean ok = false;
        String pinned;
        long toGpu = 0;
        try {
            try {
                api.hostRegister(l1.baseAddress(), l1.sizeBytes(), CudaApi.HOST_REGISTER_DEFAULT);
                pinned = "L1 arena of " + (l1.sizeBytes() >> 20) + " MiB registered with cudaHostRegister";
                ok = true;
            } catch (CudaException e) {
                pinned = "L1 arena not registered (" + e.errorName() + "): copies go through pageable memory";
            }
            this.registered = ok;
            this.pinning = pinned;
            toGpu = api.streamCreate(CudaApi.STREAM_NON_BLOCKING);
            this.fromGpuStream = api.streamCreate(CudaApi.STREAM_NON_BLOCKING);
            this.toGpuStream = toGpu;
        } catch (RuntimeException e) {
            if (toGpu != 0) {
                api.streamDestroy(toGpu);
            }
            if (ok) {
                api.hostUnregister(l1.baseAddress());
            }
            l1.release(ARENA_USER);
            throw e;
        }
        this.blocks = new DeviceBlocks(api, laneBytes, tp);
        this.verifier = verify ? Executors.newSingleThreadExecutor(r -> daemon(r, "cuda-verifier")) : null;
        this.completer = daemon(completions, "cuda-completions");
        completer.start();
    }

    private static Thread daemon(Runnable body, String name) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    /** How L1 is pinned for the GPU, in words. */
    public String pinning() {
        return pinning;
    }

    public boolean l1Registered() {
        return registered;
    }

    public boolean verifies() {
        return verify;
    }

    /**
     * Copies every load from now on in {@code split}'s layer groups (null: whole loads): group g of each of the
     * load's segments is the slice at {@link LayerGroupLoads#groupOffset} of {@link LayerGroupLoads#groupBytes}
     * (the host-buffer path's split: {@code DeviceMemory.loadInGroups}), an event is recorded after each group,
     * and {@code landed.accept(g)} is called on the completion thread, in group order, when group g's event
     * completes, before the load's completion is reported. Call before the run's first load.
     */
    public void setLayerGroups(LayerGroupLoads split, IntConsumer landed) {
        if ((split == null) != (landed == null)) {
            throw new IllegalArgumentException("a layer-group split needs a landing listener, and only then");
        }
        this.layerLanded = landed;
        this.layerSplit = split;
    }

    @Override
    public void toGpu(IoOp.CopyToGpu copy, OpSink sink) {
        LayerGroupLoads split = layerSplit;
        int groups = split == null ? 1 : split.groups();
        long[] groupEvents = groups == 1 ? NO_GROUP_EVENTS : new long[groups - 1];
        int groupEventsRecorded = 0;
        String error = null;
        List<Long> scratch = verify ? new ArrayList<>() : List.of();
        try {
            error = oversizedSegment(copy);
            for (int group = 0; group < groups && error == null; group++) {
                error = copyGroup(copy, split, group);
                if (error == null && group < groups - 1) {
                    // Behind group g's copies: when it completes, compute of group g may start.
                    long event = event();
                    groupEvents[groupEventsRecorded++] = event;
                    int code = api.eventRecord(event, toGpuStream);
                    error = code == CudaApi.SUCCESS ? null : api.errorName(code);
                }
            }
            if (error == null && verify) {
                error = copyBack(copy, scratch);
            }
        } catch (CudaException e) {
            // No device memory for a block, no pinned scratch, or no event: this copy fails, the run goes on.
            error = e.errorName();
        }
        enqueue(copy, sink, Direction.TO_GPU, error, scratch, toGpuStream,
                groupEventsRecorded == groupEvents.length ? groupEvents : Arrays.copyOf(groupEvents, groupEventsRecorded));
    }

    /** A GPU block lane and a scratch buffer hold laneBytes: a longer slice would overrun both. */
    private String oversizedSegment(IoOp.CopyToGpu copy) {
        for (IoOp.GpuLoadSegment segment : copy.segments()) {
            if (segment.lengthBytes() > laneBytes) {
                return "segment of " + segment.lengthBytes() + " bytes is longer than a lane (" + laneBytes + " bytes)";
            }
        }
        return null;
    }

    /**
     * Queues layer group {@code group} of every segment of the load on the host-to-device stream (the whole
     * segments without a split); CUDA's error name if it refuses a copy.
     */
    private String copyGroup(IoOp.CopyToGpu copy, LayerGroupLoads split, int group) {
        for (IoOp.GpuLoadSegment segment : copy.segments()) {
            long from = split == null ? 0 : split.groupOffset(segment.lengthBytes(), group);
            long bytes = split == null ? segment.lengthBytes() : split.groupBytes(segment.lengthBytes(), group);
            long target = blocks.address(segment.gpuBlockId(), segment.expected().lane());
            // The driver copies from any host address: the range is checked against the arena first.
            int code = api.memcpyAsync(target + from, l1.address(segment.l1Offset() + from, bytes), bytes,
                    CudaApi.MEMCPY_HOST_TO_DEVICE, toGpuStream);
            if (code != CudaApi.SUCCESS) {
                return api.errorName(code);
            }
        }
        return null;
    }

    /** Verification: each whole segment copied back into a pinned scratch buffer, behind all its groups. */
    private String copyBack(IoOp.CopyToGpu copy, List<Long> scratch) {
        for (IoOp.GpuLoadSegment segment : copy.segments()) {
            long back = scratch();
            scratch.add(back);
            int code = api.memcpyAsync(back, blocks.address(segment.gpuBlockId(), segment.expected().lane()),
                    segment.lengthBytes(), CudaApi.MEMCPY_DEVICE_TO_HOST, toGpuStream);
            if (code != CudaApi.SUCCESS) {
                return api.errorName(code);
            }
        }
        return null;
    }

    @Override
    public void fromGpu(IoOp.CopyFromGpu copy, OpSink sink) {
        String error = null;
        try {
            for (int i = 0; i < copy.gpuBlockIds().size(); i++) {
                long source = blocks.address(copy.gpuBlockIds().get(i), copy.lane());
                int code = api.memcpyAsync(l1.address(copy.l1Offset() + i * copy.laneBytes(), copy.laneBytes()), source, copy.laneBytes(),
                        CudaApi.MEMCPY_DEVICE_TO_HOST, fromGpuStream);
                if (code != CudaApi.SUCCESS) {
                    error = api.errorName(code);
                    break;
                }
            }
        } catch (CudaException e) {
            error = e.errorName();
        }
        enqueue(copy, sink, Direction.FROM_GPU, error, List.of(), fromGpuStream, NO_GROUP_EVENTS);
    }

    /**
     * A compute step finished: with verification, its completed blocks receive their payload
     * (what the model's KV would be), so staging copies and loads can be checked.
     */
    public void computed(IoOp.Compute compute) {
        if (!verify) {
            return;
        }
        long pattern;
        try {
            pattern = scratch();
        } catch (CudaException e) {
            note("no pinned buffer to write compute step " + compute.stepIndex() + "'s payloads: " + e.getMessage());
            return;
        }
        try {
            MemorySegment host = MemorySegment.ofAddress(pattern).reinterpret(laneBytes);
            for (IoOp.ComputeItem item : compute.items()) {
                for (IoOp.GpuBlockWrite write : item.blocksCompleted()) {
                    for (int lane = 0; lane < blocks.tp(); lane++) {
                        PayloadPattern.fill(host, write.key(), lane);
                        // A block whose payload could not be written shows as a staging mismatch later.
                        try {
                            int code = api.memcpy(blocks.address(write.gpuBlockId(), lane), pattern, laneBytes,
                                    CudaApi.MEMCPY_HOST_TO_DEVICE);
                            if (code != CudaApi.SUCCESS) {
                                note("writing the payload of GPU block " + write.gpuBlockId() + " failed: " + api.errorName(code));
                            }
                        } catch (CudaException e) {
                            note("writing the payload of GPU block " + write.gpuBlockId() + " failed: " + e.getMessage());
                        }
                    }
                }
            }
        } finally {
            scratchBuffers.add(pattern);
        }
    }

    /**
     * Records the copy's event behind its copies and hands it to the completion thread. Without an
     * event (none could be created or recorded) nothing would say when the copies already queued are
     * done, so this waits for the stream and reports the copy failed at once.
     */
    private void enqueue(IoOp op, OpSink sink, Direction direction, String error, List<Long> scratch, long stream,
                         long[] groupEvents) {
        completions.begin();
        long event = NO_EVENT;
        String failure = error;
        try {
            event = event();
            int code = api.eventRecord(event, stream);
            if (code != CudaApi.SUCCESS) {
                failure = failure != null ? failure : api.errorName(code);
                events.add(event);
                event = NO_EVENT;
            }
        } catch (CudaException e) {
            failure = failure != null ? failure : e.errorName();
        }
        if (event == NO_EVENT) {
            api.streamSynchronize(stream);
        }
        completions.add(new Pending(op, sink, direction, event, failure, scratch, groupEvents));
    }

    private long event() {
        Long event = events.poll();
        return event != null ? event : api.eventCreate(CudaApi.EVENT_DISABLE_TIMING);
    }

    private long scratch() {
        Long buffer = scratchBuffers.poll();
        if (buffer != null) {
            return buffer;
        }
        long allocated = api.mallocHost(laneBytes);
        synchronized (allScratch) {
            allScratch.add(allocated);
        }
        return allocated;
    }

    /** The L1 bytes a staging copy delivered hold the payloads the model expected. */
    void checkStaging(IoOp.CopyFromGpu staging) {
        for (int i = 0; i < staging.gpuBlockIds().size(); i++) {
            IoOp.Content expected = staging.expected().get(i);
            MemorySegment arrived = l1.slice(staging.l1Offset() + i * staging.laneBytes(), staging.laneBytes());
            if (!PayloadPattern.matches(arrived, expected.key(), expected.lane())) {
                stagingMismatches.incrementAndGet();
                note("staging of request " + staging.requestId() + " read a GPU block not holding " + expected);
            }
        }
    }

    /** The bytes copied back from each loaded GPU block are the payload the request expects. */
    void checkLoad(IoOp.CopyToGpu load, List<Long> scratch) {
        for (int i = 0; i < scratch.size(); i++) {
            IoOp.GpuLoadSegment segment = load.segments().get(i);
            MemorySegment back = MemorySegment.ofAddress(scratch.get(i)).reinterpret(segment.lengthBytes());
            if (PayloadPattern.matches(back, segment.expected().key(), segment.expected().lane())) {
                loadMatches.incrementAndGet();
            } else {
                loadMismatches.incrementAndGet();
                note("load of request " + load.requestId() + " did not receive " + segment.expected() + " on the GPU");
            }
        }
        scratchBuffers.addAll(scratch);
    }

    void note(String example) {
        if (examples.size() < 20) {
            examples.add(example);
        }
    }

    /** Waits until every load handed over so far has been compared (no-op without verification). */
    public void awaitVerification() {
        if (verifier == null) {
            return;
        }
        try {
            verifier.submit(() -> { }).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            note("verifier: " + e.getCause());
        }
    }

    public Counters counters() {
        return new Counters(loadMatches.get(), loadMismatches.get(), stagingMismatches.get(), copiedBytes.get(),
                failedCopies.get(), List.copyOf(examples));
    }

    /** Copies submitted and not yet reported. */
    public long inFlight() {
        return completions.inFlight();
    }

    /** Device regions are distinct; nothing is reported twice (in flight never negative). */
    public void checkInvariants() {
        blocks.checkInvariants();
        if (completions.inFlight() < 0) {
            throw new IllegalStateException("more copies reported than submitted: " + completions.inFlight());
        }
    }

    /**
     * Waits for the copies in flight, then frees the streams, events, device blocks and scratch
     * buffers and unregisters L1 (which the caller frees after this).
     */
    @Override
    public void close() {
        stopping = true;
        try {
            completer.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (verifier != null) {
            verifier.shutdown();
            try {
                verifier.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            api.streamSynchronize(toGpuStream);
            api.streamSynchronize(fromGpuStream);
            api.streamDestroy(toGpuStream);
            api.streamDestroy(fromGpuStream);
            Long event;
            while ((event = events.poll()) != null) {
                api.eventDestroy(event);
            }
            blocks.close();
            synchronized (allScratch) {
                for (long buffer : allScratch) {
                    api.freeHost(buffer);
                }
                allScratch.clear();
            }
            if (registered) {
                api.hostUnregister(l1.baseAddress());
            }
        } finally {
            l1.release(ARENA_USER);
        }
    }
}
