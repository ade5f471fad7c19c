package tierlab.engine.live;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import tierlab.engine.PinnedArena;
import tierlab.engine.cuda.CudaCopyPort;
import tierlab.model.drive.Driver;
import tierlab.model.drive.ProgressWatchdog;
import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.ComputePort;
import tierlab.model.io.CopyPort;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;
import tierlab.model.io.OpSink;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.TieredStore;

/**
 * Drives the unchanged model with the wall clock, through the same {@link Driver} as the
 * simulator: requests arrive at their (relative) times, L2 operations go to a real storage port
 * (the io_uring engine) and their completions come back from the ring threads as events, GPU
 * copies are real memcpys into device-side buffers on copy stream threads (see {@link LiveDevicePorts}),
 * and compute steps go to the compute port the caller opens ({@link TimedComputePort}, timed delays on
 * a compute stream, unless another is given). Every load is verified against its
 * payload. With a GPU ({@link CudaCopyPort}), the copies are {@code cudaMemcpyAsync}s between the
 * registered L1 arena and device memory, and their completions come back from the CUDA completion
 * thread through the same queue as the storage completions.
 *
 * <h2>Threads</h2>
 * The model runs on the thread that calls {@link #run}, and only there. Ring threads, the copy
 * streams ({@link LiveDevicePorts}) and the compute port's threads never touch the model: they put completions on a queue that this thread drains. Waiting is a timed poll
 * of that queue until the next arrival is due, so the loop never spins.
 */
public final class LiveRuntime implements AutoCloseable, CompletionTimeline {

    /**
     * What a live run did. Times are nanoseconds from the start of the run.
     *
     * @param l2ChecksumMismatches with payload verification off: L2 reads whose bytes did not have
     *                             the checksum this run wrote them with ({@link L2ReadChecksums}); 0 otherwise
     */
    public record Report(long wallNs, List<RequestOutcome> finished, long loadMatches, long loadMismatches,
                         long stagingMismatches, long l2ReadOps, long l2ReadBytes, long l2WriteOps, long l2WriteBytes,
                         long l2Failures, long gpuCopyBytes, long computeSteps, List<String> mismatchExamples,
                         L2Activity l2Reads, L2Activity l2Writes, long l2ChecksumMismatches) {
        /** Every check of real bytes that failed: payload, staging, and L2 read-back checksums. */
        public long mismatches() {
            return loadMismatches + stagingMismatches + l2ChecksumMismatches;
        }
    }

    /**
     * A completion on its way to the model thread: a storage operation's (stamped with the time the
     * port reported it; no sink) or a device stream's (its sink; a failure if the stream's work threw).
     */
    private record Completed(IoOp op, IoCompletion completion, long reportedNs, OpSink sink, Throwable failure, Source source) {}

    /** Which thread reported a completion: a ring thread (storage), a copy stream, the CUDA completion thread, or the compute port. */
    private enum Source { STORAGE, STREAM, CUDA, COMPUTE }

    private record Due(long atNs, long sequence, IoOp op, OpSink sink) {}

    private final ServingEngine scheduler;
    private final TieredStore store;
    private final StoragePort storage;
    private final DeviceMemory device;
    private final LiveDevicePorts devicePorts;
    /** The compute port the caller opened (closed with this runtime when it is closeable). */
    private final ComputePort computePort;
    /** The GPU's copy port, or null when copies go to host buffers ({@link DeviceMemory}). */
    private final CudaCopyPort cuda;
    private final Driver driver;
    private final long stallTimeoutNs;
    /** The wall-clock time (from the start of the run) of the loop iteration in progress. */
    private long loopNowNs;
    private final LinkedBlockingQueue<Completed> completions = new LinkedBlockingQueue<>();
    private final PriorityQueue<Due> due = new PriorityQueue<>(Comparator.comparingLong(Due::atNs).thenComparingLong(Due::sequence));
    private long dueSequence;
    /** Storage operations handed to the ring threads whose completion has not come back. */
    private int storageInFlight;
    /** CUDA copies whose completion has not come back from the CUDA completion thread. */
    private int cudaInFlight;
    /** Compute steps handed to the compute port whose completion has not come back. */
    private int computeInFlight;
    private long computeSteps;
    /** Device stream completions taken by the model thread. */
    private long deviceLanded;
    private final L2Activity.Recorder l2Reads = new L2Activity.Recorder();
    private final L2Activity.Recorder l2Writes = new L2Activity.Recorder();
    /** Each storage operation in flight: its index in its direction's recorder (model thread only). */
    private final IdentityHashMap<IoOp, Integer> l2Recorded = new IdentityHashMap<>();
    private long l2Failures;
    /** With payload verification off (CUDA without verify): L2 units' checksums as written, checked on read; else null. */
    private final L2ReadChecksums readChecksums;
    /** Set from any thread (a shutdown hook): send no more requests and end once those sent are done. */
    private volatile boolean stopRequested;

    /**
     * @param stallTimeoutNs how long the run may see no progress at all (nothing completes, nothing is due)
     *                       before it reports the stuck state instead of waiting forever
     */
    public LiveRuntime(ServingEngine scheduler, StoragePort storage, PinnedArena l1, ComputeModel computeModel,
                       long stallTimeoutNs) {
        this(scheduler, storage, l1, computeModel, stallTimeoutNs, null);
    }

    /**
     * Steps timed by {@code computeModel} ({@link TimedComputePort}).
     *
     * @param cuda the GPU's copy port over {@code l1} (the caller's to close, after this runtime), or
     *             null for host buffers
     */
    public LiveRuntime(ServingEngine scheduler, StoragePort storage, PinnedArena l1, ComputeModel computeModel,
                       long stallTimeoutNs, CudaCopyPort cuda) {
        this(scheduler, storage, l1, stallTimeoutNs, cuda, TimedComputePort.opener(computeModel));
    }

    /**
     * @param cuda        the GPU's copy port over {@code l1} (the caller's to close, after this runtime), or
     *                    null for host buffers
     * @param computePort opens the compute port on this runtime's layer groups and block writer; the
     *                    port it opens is closed with this runtime when it is {@link AutoCloseable}
     */
    public LiveRuntime(ServingEngine scheduler, StoragePort storage, PinnedArena l1, long stallTimeoutNs, CudaCopyPort cuda,
                       ComputePort.Opener<LiveComputeContext> computePort) {
        this.cuda = cuda;
        this.readChecksums = cuda != null && !cuda.verifies() ? new L2ReadChecksums(l1, scheduler.store().settings().geometry().laneBytes())
                : null;
        this.scheduler = scheduler;
        this.store = scheduler.store();
        this.storage = storage;
        this.stallTimeoutNs = stallTimeoutNs;
        var geometry = store.settings().geometry();
        if (l1.sizeBytes() < store.settings().l1CapacityBytes()) {
            throw new IllegalArgumentException("the pinned arena (" + l1.sizeBytes() + " B) is smaller than l1CapacityBytes ("
                    + store.settings().l1CapacityBytes() + " B)");
        }
        this.device = new DeviceMemory(l1, geometry.laneBytes(), geometry.tp());
        LiveDevicePorts.Completions streamDone = (op, sink, failure) -> completions.add(
                new Completed(op, IoCompletion.ok(op.ticket()), System.nanoTime(), sink, failure, Source.STREAM));
        this.devicePorts = new LiveDevicePorts(device, streamDone);
        int layerGroups = scheduler.settings().loadLayerGroups();
        LayerGroupLoads split = layerGroups > 1 ? new LayerGroupLoads(layerGroups) : null;
        if (split != null) {
            // Layer-wise loading (docs/policies.md): the compute stream holds each step until its layer-group chain ends.
            devicePorts.setLayerGroups(split);
        }
        if (cuda != null) {
            // The CUDA port copies each load in the same groups and reports their landings where host buffers do.
            cuda.setLayerGroups(split, split == null ? null : devicePorts::landed);
        }
        this.computePort = computePort.open(new LiveComputeContext(split, cuda == null ? device::computed : cuda::computed,
                (step, failure) -> completions.add(new Completed(step, null, System.nanoTime(), null, failure, Source.COMPUTE))));
        CopyPort copies = cuda == null ? devicePorts : new CudaHandoffPort();
        OpSink completed = (op, completion) -> driver().deliver(op, completion, loopNowNs);
        this.driver = new Driver(scheduler, new ThreadHandoffPort(), copies, this::step, completed, (op, completion) -> {
            if (op instanceof IoOp.L2Op && !completion.succeeded()) {
                l2Failures++;
            }
        });
    }

    private Driver driver() {
        return driver;
    }

    /**
     * The real storage port, with its completions (reported on the ring threads) handed back to this
     * thread through a queue; counts what is in flight.
     */
    private final class ThreadHandoffPort implements StoragePort {
        @Override
        public void submit(List<? extends IoOp.L2Op> ops, CompletionSink sink) {
            storageInFlight += ops.size();
            long handedOverNs = System.nanoTime();
            for (IoOp.L2Op op : ops) {
                L2Activity.Recorder recorder = op instanceof IoOp.L2Read ? l2Reads : l2Writes;
                l2Recorded.put(op, recorder.started(handedOverNs, op.lengthBytes()));
            }
            storage.submit(ops, (op, completion) -> completions.add(new Completed(op, completion, System.nanoTime(), null, null, Source.STORAGE)));
        }

        @Override
        public String name() {
            return storage.name();
        }

        /** The real port is the caller's to close. */
        @Override
        public void close() {
        }
    }

    /** The CUDA copies, with their completions (reported on the CUDA completion thread) handed back like storage's. */
    private final class CudaHandoffPort implements CopyPort {
        @Override
        public void toGpu(IoOp.CopyToGpu copy, OpSink sink) {
            cudaInFlight++;
            cuda.toGpu(copy, handoff(sink));
        }

        @Override
        public void fromGpu(IoOp.CopyFromGpu copy, OpSink sink) {
            cudaInFlight++;
            cuda.fromGpu(copy, handoff(sink));
        }

        private OpSink handoff(OpSink sink) {
            return (op, completion) -> completions.add(new Completed(op, completion, System.nanoTime(), sink, null, Source.CUDA));
        }
    }

    /** Hands a step to the compute port, its completion (reported on any thread) handed back like storage's. */
    private void step(IoOp.Compute step, OpSink sink) {
        computeInFlight++;
        computeSteps++;
        computePort.step(step, (op, completion) -> completions.add(
                new Completed(op, completion, System.nanoTime(), sink, null, Source.COMPUTE)));
    }

    /**
     * Another progress watchdog (tests lower its limits); the default one ends a run whose completions
     * move nothing, or whose device fails every read, with {@link ProgressWatchdog.RunStopped} out of
     * {@link #run}: completions alone are not progress, so a run spinning on failed reads is caught
     * even though the stall timeout above never fires for it.
     */
    public void setWatchdog(ProgressWatchdog watchdog) {
        driver.setWatchdog(watchdog);
    }

    /** Serves the requests (arrival times relative to the start) until every one has finished. */
    public Report run(List<RequestSpec> requests) {
        return run(requests, 0);
    }

    /**
     * Serves the requests until every one has finished. With {@code clientConcurrency} > 0 they are
     * sent as a closed-loop client sends them (as the simulator's closed loop does): the first
     * {@code clientConcurrency} at the start, then one more, in list order, each time a request
     * finishes, each arriving when it is sent; otherwise at their (relative) arrival times.
     */
    public Report run(List<RequestSpec> requests, int clientConcurrency) {
        List<RequestSpec> arrivals = new ArrayList<>();
        java.util.ArrayDeque<RequestSpec> closedLoopQueue = new java.util.ArrayDeque<>();
        if (clientConcurrency > 0) {
            for (int index = 0; index < requests.size(); index++) {
                (index < clientConcurrency ? arrivals : closedLoopQueue).add(retimed(requests.get(index), 0));
            }
        } else {
            arrivals.addAll(requests);
            arrivals.sort(Comparator.comparingLong(RequestSpec::arrivalNs).thenComparingLong(RequestSpec::requestId));
        }
        int finishedSeen = scheduler.finishedCount();
        long startNs = System.nanoTime();
        int next = 0;
        long lastProgressNs = 0;
        while (true) {
            long now = System.nanoTime() - startNs;
            loopNowNs = now;
            if (stopRequested) {
                if (drainForStop(now)) {
                    break;
                }
                waitForNextEvent(now, Long.MAX_VALUE, startNs);
                continue;
            }
            boolean progress = false;
            while (next < arrivals.size() && arrivals.get(next).arrivalNs() <= now) {
                scheduler.submit(arrivals.get(next++), now);
                progress = true;
            }
            while (!due.isEmpty() && due.peek().atNs() <= now) {
                Due done = due.poll();
                // A memcpy or a compute step is done.
                done.sink().completed(done.op(), IoCompletion.ok(done.op().ticket()));
                progress = true;
            }
            Completed completed;
            while ((completed = completions.poll()) != null) {
                take(completed, now);
                progress = true;
            }
            scheduler.tick(now);
            // Closed loop: one more request for each one finished; sent now, so the list stays in arrival order.
            while (finishedSeen < scheduler.finishedCount() && !closedLoopQueue.isEmpty()) {
                finishedSeen++;
                arrivals.add(retimed(closedLoopQueue.poll(), now));
            }
            progress |= driver.dispatch(scheduler.drainOps());
            if (progress) {
                lastProgressNs = now;
            }
            if (next == arrivals.size() && closedLoopQueue.isEmpty() && storageInFlight == 0 && cudaInFlight == 0
                    && computeInFlight == 0 && deviceInFlight() == 0 && due.isEmpty() && scheduler.allFinished()) {
                break;
            }
            checkStall(now, lastProgressNs);
            waitForNextEvent(now, next < arrivals.size() ? arrivals.get(next).arrivalNs() : Long.MAX_VALUE, startNs);
        }
        long wallNs = System.nanoTime() - startNs;
        if (cuda != null) {
            cuda.awaitVerification();
            CudaCopyPort.Counters gpu = cuda.counters();
            List<String> examples = new ArrayList<>(gpu.mismatchExamples());
            long checksumMismatches = 0;
            if (readChecksums != null) {
                readChecksums.checkInvariants();
                examples.addAll(readChecksums.examples());
                checksumMismatches = readChecksums.mismatches();
            }
            return new Report(wallNs, scheduler.finished(), gpu.loadMatches(), gpu.loadMismatches(), gpu.stagingMismatches(),
                    store.counter(StoreCounter.L2_READ_OPS), store.counter(StoreCounter.L2_READ_BYTES),
                    store.counter(StoreCounter.L2_WRITE_OPS), store.counter(StoreCounter.L2_WRITE_BYTES), l2Failures,
                    gpu.copiedBytes(), computeSteps, List.copyOf(examples), l2Reads.finish(), l2Writes.finish(), checksumMismatches);
        }
        return new Report(wallNs, scheduler.finished(), device.loadMatches(), device.loadMismatches(),
                device.stagingMismatches(), store.counter(StoreCounter.L2_READ_OPS), store.counter(StoreCounter.L2_READ_BYTES),
                store.counter(StoreCounter.L2_WRITE_OPS), store.counter(StoreCounter.L2_WRITE_BYTES), l2Failures,
                device.copiedBytes(), computeSteps, device.mismatchExamples(), l2Reads.finish(), l2Writes.finish(), 0);
    }

    /** A run that made no progress for the stall timeout is a bug: it says what was in flight. */
    private void checkStall(long nowNs, long lastProgressNs) {
        if (nowNs - lastProgressNs > stallTimeoutNs) {
            throw new IllegalStateException("live run stalled for " + stallTimeoutNs / 1_000_000 + " ms: "
                    + storageInFlight + " storage, " + cudaInFlight + " CUDA copy, " + deviceInFlight() + " copy and "
                    + computeInFlight + " compute operations in flight, "
                    + scheduler.waitingCount() + " waiting, "
                    + scheduler.runningCount() + " running, store leftovers " + store.leftovers());
        }
    }

    /** Hands a completion to the model: a storage one through the driver, a stream's through its sink. */
    private void take(Completed completed, long nowNs) {
        if (completed.failure() != null) {
            throw new IllegalStateException("a live " + completed.op().getClass().getSimpleName() + " failed on its stream thread: "
                    + completed.failure(), completed.failure());
        }
        switch (completed.source()) {
            case STORAGE -> {
                storageCompleted(completed);
                if (readChecksums != null) {
                    // Before the model sees it: a write's L1 slice still holds the bytes it wrote.
                    readChecksums.completed(completed.op(), completed.completion().succeeded());
                }
                driver.deliver(completed.op(), completed.completion(), nowNs);
            }
            case STREAM -> {
                deviceLanded++;
                completed.sink().completed(completed.op(), completed.completion());
            }
            case CUDA -> {
                cudaInFlight--;
                completed.sink().completed(completed.op(), completed.completion());
            }
            case COMPUTE -> {
                computeInFlight--;
                completed.sink().completed(completed.op(), completed.completion());
            }
        }
    }

    /**
     * One turn of a stopping run: completions and due copies are handed to the model as usual, but
     * the engine is not ticked and nothing new is dispatched, so what is in flight drains and no
     * request advances further. True once nothing is in flight: the store is at an event boundary
     * with every write it issued landed (its snapshot keeps only those).
     */
    private boolean drainForStop(long nowNs) {
        while (!due.isEmpty() && due.peek().atNs() <= nowNs) {
            Due done = due.poll();
            done.sink().completed(done.op(), IoCompletion.ok(done.op().ticket()));
        }
        Completed completed;
        while ((completed = completions.poll()) != null) {
            take(completed, nowNs);
        }
        return storageInFlight == 0 && cudaInFlight == 0 && computeInFlight == 0 && deviceInFlight() == 0 && due.isEmpty();
    }

    /** Copies handed to the copy streams whose completion the model has not taken yet. */
    private long deviceInFlight() {
        return devicePorts.submitted() - deviceLanded;
    }

    private void storageCompleted(Completed completed) {
        storageInFlight--;
        Integer index = l2Recorded.remove(completed.op());
        (completed.op() instanceof IoOp.L2Read ? l2Reads : l2Writes).completed(index, completed.reportedNs());
    }

    private static RequestSpec retimed(RequestSpec spec, long arrivalNs) {
        return new RequestSpec(spec.requestId(), arrivalNs, spec.promptTokens(), spec.outputTokens(), spec.chain());
    }

    private void waitForNextEvent(long now, long nextArrivalNs, long startNs) {
        long until = Math.min(nextArrivalNs, due.isEmpty() ? Long.MAX_VALUE : due.peek().atNs());
        long waitNs = until == Long.MAX_VALUE ? 1_000_000L : Math.max(0, until - now);
        if (waitNs == 0) {
            return;
        }
        try {
            Completed completed = completions.poll(Math.min(waitNs, 10_000_000L), TimeUnit.NANOSECONDS);
            if (completed != null) {
                loopNowNs = System.nanoTime() - startNs;
                take(completed, loopNowNs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("live run interrupted", e);
        }
    }

    @Override
    public long nowNs() {
        return loopNowNs;
    }

    /**
     * Asks the run to stop cleanly, from any thread: {@link #run} sends no more requests, lets the
     * operations in flight complete without starting new ones, and returns with the requests it
     * did not finish unfinished. The store is then at an event boundary with nothing in flight: its
     * invariants hold, and its snapshot keeps exactly the keys whose L2 writes landed.
     */
    public void requestStop() {
        stopRequested = true;
    }

    /** Whether {@link #requestStop} was called. */
    public boolean stopRequested() {
        return stopRequested;
    }

    /** A memcpy (done now) or a compute step (done after its delay) completes when the loop reaches its time. */
    @Override
    public void completeAt(IoOp op, long atNs, OpSink sink) {
        due.add(new Due(atNs, dueSequence++, op, sink));
    }

    @Override
    public void close() {
        if (computePort instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing the compute port failed: " + e.getMessage(), e);
            }
        }
        devicePorts.close();
        device.close();
    }
}
