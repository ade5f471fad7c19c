package tierlab.engine.cuda;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import tierlab.engine.PayloadPattern;
import tierlab.engine.PinnedArena;
import tierlab.model.io.CopyPort;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
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
 * its event, then compares the scratch with the expected payload on a verifier thread, after the
 * completion was handed over (the scratch is the load's, so the model reusing the block cannot
 * change it). {@link #awaitVerification()} waits for those comparisons.
 */
public final class CudaCopyPort implements CopyPort, AutoCloseable {

    /** What the copies did; the live run's report reads it. */
    public record Counters(long loadMatches, long loadMismatches, long stagingMismatches, long copiedBytes,
                           long failedCopies, List<String> mismatchExamples) {}

    private enum Direction { TO_GPU, FROM_GPU }

    /** A copy in flight: the event recorded after it, and the scratch buffers its verification reads. */
    private record Pending(IoOp op, OpSink sink, Direction direction, long event, String submitError,
                           List<Long> scratch) {}

    private static final String ARENA_USER = "the CUDA copy port";
    /** Polls that find nothing before the completion thread parks instead of spinning. */
    private static final int SPINS_BEFORE_PARK = 2_000;
    private static final long PARK_NS = 20_000;
    /** The event of a copy that has none: already waited for, reported as soon as the completion thread sees it. */
    private static final long NO_EVENT = 0;

    private final CudaApi api;
    private final int device;
    private final PinnedArena l1;
    private final long laneBytes;
    private final boolean verify;
    private final String pinning;
    private final boolean registered;
    private final long toGpuStream;
    private final long fromGpuStream;
    private final DeviceBlocks blocks;
    private final ConcurrentLinkedQueue<Long> events = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Long> scratchBuffers = new ConcurrentLinkedQueue<>();
    private final List<Long> allScratch = new ArrayList<>();
    private final LinkedBlockingQueue<Pending> submitted = new LinkedBlockingQueue<>();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong loadMatches = new AtomicLong();
    private final AtomicLong loadMismatches = new AtomicLong();
    private final AtomicLong stagingMismatches = new AtomicLong();
    private final AtomicLong copiedBytes = new AtomicLong();
    private final AtomicLong failedCopies = new AtomicLong();
    private final ConcurrentLinkedQueue<String> examples = new ConcurrentLinkedQueue<>();
    private final Thread completer;
    private final ExecutorService verifier;
    private volatile boolean stopping;

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
        this.completer = daemon(this::completeLoop, "cuda-completions");
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

    @Override
    public void toGpu(IoOp.CopyToGpu copy, OpSink sink) {
        String error = null;
        List<Long> scratch = verify ? new ArrayList<>() : List.of();
        try {
            for (IoOp.GpuLoadSegment segment : copy.segments()) {
                if (segment.lengthBytes() > laneBytes) {
                    // A GPU block lane and a scratch buffer hold laneBytes: a longer slice would overrun both.
                    error = "segment of " + segment.lengthBytes() + " bytes is longer than a lane (" + laneBytes + " bytes)";
                    break;
                }
                long target = blocks.address(segment.gpuBlockId(), segment.expected().lane());
                int code = api.memcpyAsync(target, l1.baseAddress() + segment.l1Offset(), segment.lengthBytes(),
                        CudaApi.MEMCPY_HOST_TO_DEVICE, toGpuStream);
                if (code == CudaApi.SUCCESS && verify) {
                    long back = scratch();
                    scratch.add(back);
                    code = api.memcpyAsync(back, target, segment.lengthBytes(), CudaApi.MEMCPY_DEVICE_TO_HOST, toGpuStream);
                }
                if (code != CudaApi.SUCCESS) {
                    error = api.errorName(code);
                    break;
                }
            }
        } catch (CudaException e) {
            // No device memory for a block, or no pinned scratch: this copy fails, the run goes on.
            error = e.errorName();
        }
        enqueue(copy, sink, Direction.TO_GPU, error, scratch, toGpuStream);
    }

    @Override
    public void fromGpu(IoOp.CopyFromGpu copy, OpSink sink) {
        String error = null;
        try {
            for (int i = 0; i < copy.gpuBlockIds().size(); i++) {
                long source = blocks.address(copy.gpuBlockIds().get(i), copy.lane());
                int code = api.memcpyAsync(l1.baseAddress() + copy.l1Offset() + i * copy.laneBytes(), source, copy.laneBytes(),
                        CudaApi.MEMCPY_DEVICE_TO_HOST, fromGpuStream);
                if (code != CudaApi.SUCCESS) {
                    error = api.errorName(code);
                    break;
                }
            }
        } catch (CudaException e) {
            error = e.errorName();
        }
        enqueue(copy, sink, Direction.FROM_GPU, error, List.of(), fromGpuStream);
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
    private void enqueue(IoOp op, OpSink sink, Direction direction, String error, List<Long> scratch, long stream) {
        inFlight.incrementAndGet();
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
        submitted.add(new Pending(op, sink, direction, event, failure, scratch));
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

    /** The completion thread: polls the head event of each stream, reports finished copies in stream order. */
    private void completeLoop() {
        try {
            api.setDevice(device);
        } catch (CudaException e) {
            // The model thread set the same device; a failure here shows as failed copies below.
            note("completion thread: " + e.getMessage());
        }
        ArrayDeque<Pending> toGpu = new ArrayDeque<>();
        ArrayDeque<Pending> fromGpu = new ArrayDeque<>();
        int idle = 0;
        while (!stopping || inFlight.get() > 0) {
            Pending next;
            while ((next = submitted.poll()) != null) {
                (next.direction() == Direction.TO_GPU ? toGpu : fromGpu).add(next);
            }
            boolean progress = drain(toGpu) | drain(fromGpu);
            if (progress) {
                idle = 0;
            } else if (toGpu.isEmpty() && fromGpu.isEmpty()) {
                try {
                    next = submitted.poll(10, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
                if (next != null) {
                    (next.direction() == Direction.TO_GPU ? toGpu : fromGpu).add(next);
                }
            } else if (++idle < SPINS_BEFORE_PARK) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(PARK_NS);
            }
        }
    }

    /** Completes the finished copies at the head of one stream's queue; whether any finished. */
    private boolean drain(ArrayDeque<Pending> queue) {
        boolean progress = false;
        Pending head;
        while ((head = queue.peek()) != null) {
            int code;
            try {
                code = head.event() == NO_EVENT ? CudaApi.SUCCESS : api.eventQuery(head.event());
            } catch (RuntimeException e) {
                // The completion thread must survive anything: this copy fails, the others go on.
                note("cudaEventQuery of request " + requestId(head.op()) + "'s copy: " + e);
                try {
                    // Its bytes may still be moving: wait for its stream before the model reuses them.
                    api.streamSynchronize(head.direction() == Direction.TO_GPU ? toGpuStream : fromGpuStream);
                } catch (RuntimeException ignored) {
                    // Nothing more can be done from here; the copy is reported failed either way.
                }
                head = new Pending(head.op(), head.sink(), head.direction(), head.event(),
                        head.submitError() != null ? head.submitError() : e.getClass().getSimpleName(), head.scratch());
                code = CudaApi.SUCCESS;
            }
            if (code == CudaApi.ERROR_NOT_READY) {
                return progress;
            }
            queue.poll();
            progress = true;
            finish(head, code);
        }
        return progress;
    }

    private void finish(Pending pending, int eventCode) {
        IoOp op = pending.op();
        String error = pending.submitError() != null ? pending.submitError()
                : eventCode != CudaApi.SUCCESS ? api.errorName(eventCode) : null;
        if (pending.event() != NO_EVENT) {
            events.add(pending.event());
        }
        IoCompletion completion;
        try {
            if (error != null) {
                failedCopies.incrementAndGet();
                completion = IoCompletion.failed(ticket(op), error);
                scratchBuffers.addAll(pending.scratch());
            } else {
                copiedBytes.addAndGet(bytes(op));
                if (op instanceof IoOp.CopyFromGpu staging && verify) {
                    checkStaging(staging);
                }
                completion = IoCompletion.ok(ticket(op));
            }
        } catch (RuntimeException e) {
            // Nothing may escape the completion thread: an unexpected failure is this copy's failed value.
            failedCopies.incrementAndGet();
            completion = IoCompletion.failed(ticket(op), e.getClass().getSimpleName());
        }
        if (completion.succeeded() && op instanceof IoOp.CopyToGpu load && verify) {
            // Queued before the hand-over: a run that ends as soon as the model sees this completion
            // still finds the comparison ahead of its awaitVerification().
            verifier.execute(() -> checkLoad(load, pending.scratch()));
        }
        inFlight.decrementAndGet();
        pending.sink().completed(op, completion);
    }

    private static long requestId(IoOp op) {
        return switch (op) {
            case IoOp.CopyToGpu load -> load.requestId();
            case IoOp.CopyFromGpu staging -> staging.requestId();
            default -> -1;
        };
    }

    private static long ticket(IoOp op) {
        return op.ticket();
    }

    private static long bytes(IoOp op) {
        return switch (op) {
            case IoOp.CopyToGpu load -> load.totalBytes();
            case IoOp.CopyFromGpu staging -> staging.laneBytes() * staging.gpuBlockIds().size();
            default -> 0;
        };
    }

    /** The L1 bytes a staging copy delivered hold the payloads the model expected. */
    private void checkStaging(IoOp.CopyFromGpu staging) {
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
    private void checkLoad(IoOp.CopyToGpu load, List<Long> scratch) {
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

    private void note(String example) {
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
        return inFlight.get();
    }

    /** Device regions are distinct; nothing is reported twice (in flight never negative). */
    public void checkInvariants() {
        blocks.checkInvariants();
        if (inFlight.get() < 0) {
            throw new IllegalStateException("more copies reported than submitted: " + inFlight.get());
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
