package tierlab.experiments.calibration;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.math3.stat.regression.OLSMultipleLinearRegression;
import org.apache.commons.math3.stat.regression.SimpleRegression;
import tierlab.engine.IoUringBackend;
import tierlab.engine.IoUringSettings;
import tierlab.engine.PayloadPattern;
import tierlab.engine.PinnedArena;
import tierlab.engine.cuda.CudaApi;
import tierlab.engine.cuda.CudaCopyPort;
import tierlab.engine.live.DeviceMemory;
import tierlab.metrics.Percentiles;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.IoOp;
import tierlab.model.io.OpSink;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.SeedTree;
import tierlab.sim.SimRuntime;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.GpuProfile;
import tierlab.sim.device.HostProfile;
import tierlab.workload.LongPrefillPasses;
import tierlab.workload.LongPrefillSettings;

/**
 * Microbenchmarks of the live code paths whose CPU time the simulator charges as host costs
 * ({@link HostProfile}), each measured on its own and never fitted to a workload's result:
 *
 * <ul>
 *   <li><b>submission and per-operation</b>: the io_uring ring thread's CPU time (ThreadMXBean)
 *       while it serves submissions of 1, 4 and 16 small O_DIRECT reads through
 *       {@link IoUringBackend}; a least-squares line {@code cpu = enters × submissionNs + ops ×
 *       perOperationNs} over the three batch sizes. The ring thread is the live counterpart of the
 *       simulator's submitter: it makes every io_uring_enter and reaps every completion.</li>
 *   <li><b>copy call and per MiB</b>: the model thread's wall time in {@link DeviceMemory#load}
 *       and {@link DeviceMemory#stage} (the memcpy between the pinned L1 arena and the device-side
 *       buffers, with the payload check live mode does on every load and staging copy) for copies of
 *       1–8 lanes of two sizes; a line over bytes gives the per-call and per-MiB terms.</li>
 *   <li><b>engine step</b>: the model's own CPU time per engine step, from a small fixed
 *       long-prefill workload (not any validation workload) served by the unchanged model in the
 *       simulator with free devices: wall time of the run / steps, the fastest of several runs.</li>
 * </ul>
 */
public final class HostCostBench {

    /** What was measured; every figure is in nanoseconds of one thread's time. */
    public record HostCosts(long submissionNs, long perOperationNs, double submissionFitR2, long copyCallNs,
                            double copyNsPerMiB, double copyFitR2, long engineStepNs, long engineSteps, String backend,
                            double computeFillNsPerMiB, CopyPath copyPath) {

        /**
         * These costs as a profile's {@code host} section, submitted through as many rings as the
         * live runtime's io_uring engine has (its default settings), so the simulated io_uring_enter
         * count folds submissions as the live engine does. Host-buffer copies are paid on the live
         * runtime's per-direction stream threads, where it runs them; CUDA copies are enqueued by the
         * model thread itself (the copy engine moves the bytes), so their enqueue cost stays on it, and
         * the CUDA port issues one copy per segment of a load (per segment and layer group), each with
         * the link's per-copy latency.
         */
        public HostProfile hostProfile() {
            return new HostProfile(submissionNs, perOperationNs, copyCallNs, copyNsPerMiB, engineStepNs,
                    IoUringSettings.defaults().ringCount(), copyPath != CopyPath.CUDA, copyPath == CopyPath.CUDA);
        }
    }

    /** Which live copy path the copy terms were measured on. */
    public enum CopyPath {
        /** Host buffers: the model thread's memcpy and payload check ({@link DeviceMemory}). */
        MEMCPY,
        /** CUDA: the model thread only enqueues ({@link CudaCopyPort}); the copy engine moves the bytes. */
        CUDA
    }

    private static final int SMALL_READ_BYTES = 4096;
    /** Lane counts of one copy call in the copy benchmarks: a line over them separates per call from per lane. */
    private static final int[] COPY_LANES = {1, 2, 4, 8};
    private static final int WARM_UP_CALLS = 5;
    private static final int MIN_SAMPLES = 15;
    private static final int[] BATCH_SIZES = {1, 4, 16};

    private HostCostBench() {
    }

    /**
     * Runs the three microbenchmarks; {@code scratchDir} takes a 64 MiB O_DIRECT file (deleted
     * after), {@code geometry} sets the lane size of the copy benchmark and the engine-step run.
     * About {@code 3 × budgetMs} of wall time.
     */
    public static HostCosts measure(Path scratchDir, Geometry geometry, long budgetMs) throws IOException {
        return measure(scratchDir, geometry, budgetMs, copyCosts(geometry, budgetMs), CopyPath.MEMCPY);
    }

    /**
     * The same with the copy terms of the live CUDA path ({@link #cudaCopyCosts}): what a copy call
     * costs the model thread when the copy engine, not the CPU, moves the bytes.
     */
    public static HostCosts measureWithCuda(Path scratchDir, Geometry geometry, long budgetMs, CudaApi api, int device,
                                            boolean verify) throws IOException {
        return measure(scratchDir, geometry, budgetMs, cudaCopyCosts(api, device, geometry, verify, budgetMs), CopyPath.CUDA);
    }

    private static HostCosts measure(Path scratchDir, Geometry geometry, long budgetMs, double[] copy, CopyPath path)
            throws IOException {
        SubmissionFit submission = submissionCosts(scratchDir, budgetMs);
        long[] step = engineStepCost(geometry, budgetMs);
        // Host buffers fill computed blocks on the CPU; with CUDA that is a device-side write (verification only).
        double fill = path == CopyPath.MEMCPY ? computeFillNsPerMiB(geometry, budgetMs / 4) : 0;
        return new HostCosts(submission.submissionNs(), submission.perOperationNs(), submission.rSquared(), Math.round(copy[0]),
                copy[1], copy[2], step[0], step[1], "io_uring", fill, path);
    }

    // ---- submission: the ring thread's CPU per io_uring_enter and per operation ----------------

    /** The ring thread's CPU split into a cost per io_uring_enter and one per operation, and the fit's r². */
    record SubmissionFit(long submissionNs, long perOperationNs, double rSquared) {}

    static SubmissionFit submissionCosts(Path scratchDir, long budgetMs) throws IOException {
        if (!IoUringBackend.probe().available()) {
            throw new IOException("io_uring is not available here (" + IoUringBackend.probe().cause()
                    + "); the submission costs are measured on the io_uring ring thread");
        }
        Files.createDirectories(scratchDir);
        Path file = scratchDir.resolve("host-costs-" + ProcessHandle.current().pid() + ".bin");
        long fileBytes = 64L << 20;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<double[]> rows = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        try (PinnedArena arena = PinnedArena.allocate(1L << 20, false);
             IoUringBackend port = IoUringBackend.open(file, arena,
                     IoUringSettings.defaults().withRings(1, IoUringSettings.defaults().ringEntries()).withL2PreallocateBytes(fileBytes))) {
            long ticket = 0;
            // Write the file once so the reads hit allocated blocks, then warm up the path.
            for (long offset = 0; offset < fileBytes; offset += arena.sizeBytes()) {
                awaitAll(port, List.of(new IoOp.L2Write(ticket++, 0, offset, arena.sizeBytes())));
            }
            Thread ring = ringThread();
            long perSizeNs = budgetMs * 1_000_000L / BATCH_SIZES.length / 2;
            for (int pass = 0; pass < 2; pass++) {
                for (int batch : BATCH_SIZES) {
                    long enterBefore = port.counters().submitEnterCalls();
                    long cpuBefore = threads.getThreadCpuTime(ring.threadId());
                    long ops = 0;
                    long startNs = System.nanoTime();
                    long offset = 0;
                    while (System.nanoTime() - startNs < perSizeNs) {
                        List<IoOp.L2Op> reads = new ArrayList<>(batch);
                        for (int i = 0; i < batch; i++) {
                            reads.add(new IoOp.L2Read(ticket++, offset, SMALL_READ_BYTES, (long) i * SMALL_READ_BYTES, ticket, batch));
                            // A stride of 1 MiB + 4 KiB keeps the reads off any read-ahead.
                            offset = (offset + (1L << 20) + SMALL_READ_BYTES) % (fileBytes - SMALL_READ_BYTES);
                            offset -= offset % SMALL_READ_BYTES;
                        }
                        awaitAll(port, reads);
                        ops += batch;
                    }
                    long cpuNs = threads.getThreadCpuTime(ring.threadId()) - cpuBefore;
                    long enters = port.counters().submitEnterCalls() - enterBefore;
                    if (pass == 1) {
                        rows.add(new double[] {enters, ops});
                        cpu.add((double) cpuNs);
                    }
                }
            }
        } finally {
            Files.deleteIfExists(file);
        }
        OLSMultipleLinearRegression regression = new OLSMultipleLinearRegression();
        regression.setNoIntercept(true);
        regression.newSampleData(cpu.stream().mapToDouble(Double::doubleValue).toArray(), rows.toArray(double[][]::new));
        double[] beta = regression.estimateRegressionParameters();
        double r2 = regression.calculateRSquared();
        return new SubmissionFit(Math.round(FitWarnings.atLeastZero("host.submissionNs (ns per io_uring_enter)", beta[0])),
                Math.round(FitWarnings.atLeastZero("host.perOperationNs (ns per operation)", beta[1])), r2);
    }

    private static Thread ringThread() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("tierlab-io_uring-ring-"))
                .findFirst().orElseThrow(() -> new IllegalStateException("no io_uring ring thread is running"));
    }

    private static void awaitAll(StoragePort port, List<? extends IoOp.L2Op> ops) throws IOException {
        CountDownLatch done = new CountDownLatch(ops.size());
        AtomicLong failures = new AtomicLong();
        port.submit(ops, (op, completion) -> {
            if (!completion.succeeded()) {
                failures.incrementAndGet();
            }
            done.countDown();
        });
        try {
            if (!done.await(30, TimeUnit.SECONDS)) {
                throw new IOException("the io_uring benchmark saw no completion for 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (failures.get() > 0) {
            throw new IOException(failures.get() + " benchmark I/Os failed");
        }
    }

    // ---- copies: the model thread's memcpy and payload check per call and per MiB ---------------

    /** {copyCallNs, copyNsPerMiB, r²}. */
    static double[] copyCosts(Geometry geometry, long budgetMs) {
        long laneBytes = geometry.laneBytes();
        int maxLanes = 8;
        // Two lane sizes: 64 KiB and the geometry's (1 MiB when the geometry's is that small or smaller),
        // so the fixed part is not an extrapolation.
        long[] laneSizes = {64 << 10, laneBytes > (64 << 10) ? laneBytes : 1 << 20};
        SimpleRegression line = new SimpleRegression(true);
        try (PinnedArena arena = PinnedArena.allocate(maxLanes * laneSizes[1], false)) {
            for (long size : laneSizes) {
                BlockKey[] keys = new BlockKey[maxLanes];
                for (int i = 0; i < maxLanes; i++) {
                    keys[i] = BlockKey.fromTraceId(BlockKey.ROOT, i, (int) (size >>> 10));
                }
                try (DeviceMemory device = new DeviceMemory(arena, size, 1)) {
                    for (int lanes : new int[] {1, 2, 4, 8}) {
                        List<IoOp.GpuLoadSegment> segments = new ArrayList<>();
                        List<Long> gpuBlocks = new ArrayList<>();
                        List<IoOp.Content> expected = new ArrayList<>();
                        for (int i = 0; i < lanes; i++) {
                            PayloadPattern.fill(arena.slice(i * size, size), keys[i], 0);
                            segments.add(new IoOp.GpuLoadSegment(i * size, size, i, new IoOp.Content(keys[i], 0)));
                            gpuBlocks.add((long) i);
                            expected.add(new IoOp.Content(keys[i], 0));
                        }
                        IoOp.CopyToGpu load = new IoOp.CopyToGpu(1, 1, segments);
                        IoOp.CopyFromGpu stage = new IoOp.CopyFromGpu(2, 1, 0, size, 0, gpuBlocks, expected);
                        long budgetNs = budgetMs * 1_000_000L / 8 / laneSizes.length;
                        // Warm-up: allocates the device-side buffers and compiles the path.
                        for (int i = 0; i < 20; i++) {
                            device.load(load);
                            device.stage(stage);
                        }
                        long[] samples = new long[4096];
                        int count = 0;
                        long startNs = System.nanoTime();
                        while (count < samples.length && System.nanoTime() - startNs < budgetNs) {
                            long t0 = System.nanoTime();
                            device.load(load);
                            long t1 = System.nanoTime();
                            device.stage(stage);
                            long t2 = System.nanoTime();
                            samples[count++] = t1 - t0;
                            if (count < samples.length) {
                                samples[count++] = t2 - t1;
                            }
                        }
                        if (device.mismatches() > 0) {
                            throw new IllegalStateException("the copy benchmark's payload check failed " + device.mismatches() + " times");
                        }
                        long median = Percentiles.upperMedianOrZero(Arrays.copyOf(samples, count));
                        line.addData(lanes * size, median);
                    }
                }
            }
        }
        double perByte = FitWarnings.atLeastZero("host.copyNsPerMiB (per byte)", line.getSlope());
        return new double[] {FitWarnings.atLeastZero("host.copyCallNs", line.getIntercept()), perByte * (1 << 20), line.getRSquare()};
    }

    /**
     * {copyCallNs, copyNsPerMiB, r²} of the live CUDA path: the model thread's wall time in
     * {@link CudaCopyPort#toGpu} (a load: one {@code cudaMemcpyAsync} per lane, with verification one
     * more back to a scratch buffer, then a {@code cudaEventRecord}) and {@link CudaCopyPort#fromGpu}
     * (a staging copy) for calls of 1–8 lanes of the geometry's lane size, from a registered arena as
     * live mode's. Each call's completion is awaited outside the timed part, so only the enqueue is
     * timed. The per-MiB term is then the per-lane enqueue cost at this lane size: the CPU copies no
     * byte.
     */
    public static double[] cudaCopyCosts(CudaApi api, int device, Geometry geometry, boolean verify, long budgetMs) {
        long lane = geometry.laneBytes();
        int maxLanes = COPY_LANES[COPY_LANES.length - 1];
        long arenaBytes = (maxLanes * lane + PinnedArena.ALIGNMENT_BYTES - 1) / PinnedArena.ALIGNMENT_BYTES * PinnedArena.ALIGNMENT_BYTES;
        SimpleRegression line = new SimpleRegression(true);
        AtomicLong completed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        OpSink sink = (op, completion) -> {
            if (!completion.succeeded()) {
                failed.incrementAndGet();
            }
            completed.incrementAndGet();
        };
        try (PinnedArena arena = PinnedArena.allocate(arenaBytes, false);
             CudaCopyPort port = new CudaCopyPort(api, device, arena, lane, 1, verify)) {
            BlockKey[] keys = new BlockKey[maxLanes];
            for (int i = 0; i < maxLanes; i++) {
                keys[i] = BlockKey.fromTraceId(BlockKey.ROOT, i, (int) (lane >>> 10));
                PayloadPattern.fill(arena.slice(i * lane, lane), keys[i], 0);
            }
            long ticket = 0;
            long issued = 0;
            for (int lanes : COPY_LANES) {
                List<IoOp.GpuLoadSegment> segments = new ArrayList<>();
                List<Long> gpuBlocks = new ArrayList<>();
                List<IoOp.Content> expected = new ArrayList<>();
                for (int i = 0; i < lanes; i++) {
                    segments.add(new IoOp.GpuLoadSegment(i * lane, lane, i, new IoOp.Content(keys[i], 0)));
                    gpuBlocks.add((long) i);
                    expected.add(new IoOp.Content(keys[i], 0));
                }
                long budgetNs = budgetMs * 1_000_000L / COPY_LANES.length;
                long[] samples = new long[4096];
                int count = 0;
                long startNs = System.nanoTime();
                // The first calls of each size warm the path (and allocate device blocks) and are not sampled;
                // at least MIN_SAMPLES calls are, however long they take.
                for (int call = 0; count < samples.length
                        && (call < WARM_UP_CALLS + MIN_SAMPLES || System.nanoTime() - startNs < budgetNs); call++) {
                    long t0 = System.nanoTime();
                    port.toGpu(new IoOp.CopyToGpu(ticket++, 1, segments), sink);
                    long t1 = System.nanoTime();
                    awaitCopies(completed, ++issued);
                    long t2 = System.nanoTime();
                    port.fromGpu(new IoOp.CopyFromGpu(ticket++, 1, 0, lane, 0, gpuBlocks, expected), sink);
                    long t3 = System.nanoTime();
                    awaitCopies(completed, ++issued);
                    if (call >= WARM_UP_CALLS) {
                        samples[count++] = t1 - t0;
                        if (count < samples.length) {
                            samples[count++] = t3 - t2;
                        }
                    }
                }
                line.addData(lanes * lane, Percentiles.upperMedianOrZero(Arrays.copyOf(samples, count)));
            }
            port.awaitVerification();
            CudaCopyPort.Counters counters = port.counters();
            if (failed.get() > 0 || counters.loadMismatches() + counters.stagingMismatches() > 0) {
                throw new IllegalStateException("the CUDA copy benchmark's copies failed " + failed.get() + " times and "
                        + (counters.loadMismatches() + counters.stagingMismatches()) + " payload checks did not match");
            }
        }
        return new double[] {FitWarnings.atLeastZero("host.copyCallNs (CUDA copy enqueues)", line.getIntercept()),
                FitWarnings.atLeastZero("host.copyNsPerMiB (CUDA copy enqueues, per byte)", line.getSlope()) * (1 << 20), line.getRSquare()};
    }

    private static void awaitCopies(AtomicLong completed, long issued) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (completed.get() < issued) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the CUDA copy benchmark saw no completion for 30 s");
            }
            Thread.onSpinWait();
        }
    }

    // ---- live-mode emulation: not a host cost, measured so reports can say what it explains -----

    /**
     * Time per MiB of computed KV that live mode spends giving it its payload: with no GPU, a compute
     * step records which payload each finished block holds ({@link DeviceMemory#computed}) and the
     * staging copy that first reads the block writes that payload into the pinned arena (on the D2H
     * stream, {@link DeviceMemory#stage}); timed here together, per computed MiB, since the staging
     * write replaces the copy a GPU host would make. A GPU host does not pay this, so the simulator
     * does not charge it; validation reports name it as the live-mode cost it is.
     */
    public static double computeFillNsPerMiB(Geometry geometry, long budgetMs) {
        int blocks = 8;
        long laneBytes = geometry.laneBytes();
        try (PinnedArena arena = PinnedArena.allocate(blocks * laneBytes, false);
             DeviceMemory device = new DeviceMemory(arena, laneBytes, geometry.tp())) {
            List<IoOp.GpuBlockWrite> writes = new ArrayList<>();
            List<Long> gpuBlocks = new ArrayList<>();
            List<List<IoOp.Content>> expected = new ArrayList<>();
            for (int lane = 0; lane < geometry.tp(); lane++) {
                expected.add(new ArrayList<>());
            }
            for (int i = 0; i < blocks; i++) {
                BlockKey key = BlockKey.fromTraceId(BlockKey.ROOT, i, 0);
                writes.add(new IoOp.GpuBlockWrite(i, key));
                gpuBlocks.add((long) i);
                for (int lane = 0; lane < geometry.tp(); lane++) {
                    expected.get(lane).add(new IoOp.Content(key, lane));
                }
            }
            IoOp.Compute step = new IoOp.Compute(1, 1, List.of(new IoOp.ComputeItem(1, blocks, 0, writes)));
            List<IoOp.CopyFromGpu> stagings = new ArrayList<>();
            for (int lane = 0; lane < geometry.tp(); lane++) {
                stagings.add(new IoOp.CopyFromGpu(2, 1, 0, laneBytes, lane, gpuBlocks, expected.get(lane)));
            }
            for (int i = 0; i < 5; i++) {
                device.computed(step);
                stagings.forEach(device::stage);
            }
            long[] samples = new long[1024];
            int count = 0;
            long deadline = System.nanoTime() + Math.max(50, budgetMs) * 1_000_000L;
            while (count < samples.length && System.nanoTime() < deadline) {
                long t0 = System.nanoTime();
                device.computed(step);
                stagings.forEach(device::stage);
                samples[count++] = System.nanoTime() - t0;
            }
            if (device.mismatches() > 0) {
                throw new IllegalStateException("the payload benchmark's staging check failed " + device.mismatches() + " times");
            }
            return Percentiles.upperMedianOrZero(Arrays.copyOf(samples, count)) / ((double) blocks * geometry.blockBytes() / (1 << 20));
        }
    }

    // ---- engine step: the model's own work per step ----------------------------------------------

    /** {engineStepNs, steps of the timed run}. */
    static long[] engineStepCost(Geometry geometry, long budgetMs) {
        LongPrefillSettings settings = LongPrefillSettings.fixed("host-cost-steps", 16, 8 * geometry.blockTokens(), 1);
        LongPrefillPasses passes = new LongPrefillPasses(settings, geometry, new SeedTree(7));
        long kvBytes = 16L * 8 * geometry.blockBytes();
        // L1 a third of the KV: the warm pass mixes L1 hits, L2 reads and evictions, as a tiered run does.
        long l1Bytes = Math.max(geometry.blockBytes(), kvBytes / 3 / 4096 * 4096);
        // Devices that take no time, so the run's wall time is the model's (and the event kernel's) own.
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        DeviceProfile free = new DeviceProfile("free", preset.nvme(), preset.pcie(),
                new GpuProfile("free", 1, 1, 0, 1), new HostProfile(0, 0));
        long best = Long.MAX_VALUE;
        long bestSteps = 0;
        long deadline = System.nanoTime() + budgetMs * 1_000_000L;
        int runs = 0;
        while (runs < 3 || (System.nanoTime() < deadline && runs < 200)) {
            DecisionTrace trace = new DecisionTrace();
            TieredStore store = new TieredStore(StoreSettings.defaults(geometry, l1Bytes, 4 * kvBytes), trace);
            ServingEngine engine = ServingEngines.create(SchedulerSettings.defaults(4096).withConcurrency(8), store, trace);
            SimRuntime runtime = new SimRuntime(engine, free, new SeedTree(7));
            long startNs = System.nanoTime();
            passes.coldPass().forEach(runtime::submit);
            runtime.run();
            for (RequestSpec spec : passes.warmPass(runtime.simulator().nowNs())) {
                runtime.submit(spec);
            }
            runtime.run();
            long wallNs = System.nanoTime() - startNs;
            long steps = runtime.computeSteps();
            List<RequestOutcome> finished = engine.finished();
            if (finished.size() != 2 * settings.prompts() || steps == 0) {
                throw new IllegalStateException("the engine-step benchmark finished " + finished.size() + " of "
                        + 2 * settings.prompts() + " requests");
            }
            long perStep = wallNs / steps;
            if (perStep < best) {
                best = perStep;
                bestSteps = steps;
            }
            runs++;
        }
        return new long[] {best, bestSteps};
    }
}
