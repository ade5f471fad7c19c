package tierlab.experiments.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import tierlab.engine.BlockingStorage;
import tierlab.experiments.IoProblems;
import tierlab.experiments.OutputFolderCheck;
import tierlab.engine.PinnedArena;
import tierlab.engine.StoragePorts;
import tierlab.engine.cuda.CudaCopyPort;
import tierlab.engine.cuda.CudaDevice;
import tierlab.engine.live.LiveRuntime;
import tierlab.engine.live.WarmStart;
import tierlab.model.io.ComputeTiming;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.sim.SimRuntime;
import tierlab.sim.fault.FaultInjector;
import tierlab.sim.fault.FaultSettings;
import tierlab.sim.hybrid.RealBytes;
import tierlab.model.util.SeedTree;
import tierlab.metrics.CounterSnapshot;
import tierlab.metrics.PassMetrics;
import tierlab.metrics.Sample;
import tierlab.workload.LongPrefillPasses;
import tierlab.workload.MooncakeTrace;
import tierlab.workload.MooncakeTraceReader;
import tierlab.workload.MooncakeWorkload;
import tierlab.workload.RequestTrace;
import tierlab.workload.TraceException;
import tierlab.workload.TraceWorkload;
import tierlab.workload.SyntheticWorkload;
import tierlab.workload.Workloads;

/**
 * Runs one {@link RunConfig} in its mode and measures it. Sim runs touch nothing outside the JVM;
 * hybrid and live runs pin a real L1 arena and write a real L2 file in {@code scratch}, both gone
 * when the run ends. A run that breaks (an invariant violated, a request that never finishes)
 * is a result with a {@code failure}, not an exception: ablation experiments break runs on purpose.
 */
public final class RunExecutor {

    /** A live run that sees no progress at all for this long reports a stall instead of waiting forever. */
    private static final long LIVE_STALL_TIMEOUT_NS = 30_000_000_000L;
    /** How long a hybrid run waits for one real I/O before calling it failed. */
    private static final long HYBRID_IO_TIMEOUT_NS = 30_000_000_000L;

    private final Path scratch;
    private final Map<Path, MooncakeTrace> traces = new ConcurrentHashMap<>();
    /** Traces of the other formats by file, format and synthesis settings: read once per experiment. */
    private final Map<String, RequestTrace> otherTraces = new ConcurrentHashMap<>();
    /** Taken lazily: a sweep of sim runs never reads the host's memory. */
    private volatile L1MemoryBudget l1Budget;
    /** Sees each live pass's report (tierlab bench live reads its L2 activity); null: nobody. */
    private volatile Consumer<LiveRuntime.Report> livePassObserver;
    /** Looked for once, at the first live run that may use CUDA. */
    private volatile CudaDevice cudaDevice;
    /** What each hybrid or live run ran on (run.json): L1 pinned or why not, storage backend, GPU copies; by run index. */
    private final Map<Integer, RunFacts> factsByRun = new ConcurrentHashMap<>();

    /** @param scratch where hybrid and live runs put their L2 files (deleted after each run) */
    public RunExecutor(Path scratch) {
        this(scratch, null);
    }

    /**
     * @param l1Budget the native memory the L1 arenas of concurrent runs may take together; null
     *                 for three quarters of what the host has available when the first such run starts
     */
    RunExecutor(Path scratch, L1MemoryBudget l1Budget) {
        this.scratch = scratch;
        this.l1Budget = l1Budget;
    }

    /** Hands every live pass's report to {@code observer} (on the thread running the pass); null stops it. */
    public void observeLivePasses(Consumer<LiveRuntime.Report> observer) {
        this.livePassObserver = observer;
    }

    /** By run index: whether the run's L1 arena was mlocked, or why not; only hybrid and live runs are here. */
    Map<Integer, String> l1LockByRun() {
        Map<Integer, String> locks = new LinkedHashMap<>();
        factsByRun.forEach((run, facts) -> {
            if (facts.l1Lock() != null) {
                locks.put(run, facts.l1Lock());
            }
        });
        return Map.copyOf(locks);
    }

    /** By run index: what each hybrid or live run ran on (run.json); sim runs are not here. */
    Map<Integer, RunFacts> factsByRun() {
        return Map.copyOf(factsByRun);
    }

    private void recordFacts(RunPoint point, java.util.function.UnaryOperator<RunFacts> change) {
        factsByRun.compute(point.index(), (run, facts) -> change.apply(facts == null ? RunFacts.NONE : facts));
    }

    private CudaDevice cudaDevice() {
        CudaDevice device = cudaDevice;
        if (device == null) {
            synchronized (this) {
                if (cudaDevice == null) {
                    cudaDevice = CudaDevice.probe();
                }
                device = cudaDevice;
            }
        }
        return device;
    }

    /** Why a run that asks for CUDA cannot have it, or null when it can (or does not ask). */
    private String cudaRefusal(RunPoint point) {
        String refusal = GpuCopyPath.refusal(point.config().gpu(), this::cudaDevice);
        if (refusal != null) {
            recordFacts(point, facts -> facts.withGpuCopies("none: " + refusal));
        }
        return refusal;
    }

    /**
     * The run's CUDA copy port over its L1 arena, or null for host buffers; says which on stderr in
     * one line and records it for run.json. {@link #cudaRefusal} has already refused a run that
     * asks for CUDA where there is none.
     */
    private CudaCopyPort gpuPort(RunPoint point, PinnedArena arena, StoreSettings settings) {
        RunConfig config = point.config();
        GpuCopyPath.Opened opened = GpuCopyPath.open(config.gpu(), config.verifyGpu(), this::cudaDevice, arena, settings.geometry());
        recordFacts(point, facts -> facts.withGpuCopies(opened.description()));
        System.err.println("tierlab: run " + point.index() + ": " + opened.description());
        return opened.port();
    }

    private L1MemoryBudget l1Budget() {
        L1MemoryBudget budget = l1Budget;
        if (budget == null) {
            synchronized (this) {
                if (l1Budget == null) {
                    l1Budget = L1MemoryBudget.ofHost();
                }
                budget = l1Budget;
            }
        }
        return budget;
    }

    /**
     * The run's L1 arena once the budget has room for it, mlocked so that KV bytes are never
     * swapped out between an L2 read and their use; the lock's outcome goes to run.json. Closing
     * the returned arena frees the memory and gives its bytes back to the budget.
     */
    private L1Arena l1Arena(RunPoint point, long bytes) {
        L1MemoryBudget.Grant grant;
        try {
            grant = l1Budget().acquire(bytes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for memory for the L1 arena", e);
        }
        try {
            PinnedArena arena = PinnedArena.allocate(bytes, true);
            recordFacts(point, facts -> facts.withArena(arena));
            return new L1Arena(arena, grant);
        } catch (RuntimeException | Error e) {
            grant.close();
            throw e;
        }
    }

    /** An arena and the budget bytes it holds: the bytes go back only after the memory is freed. */
    private record L1Arena(PinnedArena arena, L1MemoryBudget.Grant grant) implements AutoCloseable {
        @Override
        public void close() {
            try {
                arena.close();
            } finally {
                grant.close();
            }
        }
    }

    /** The requests of each pass, generated from the run's seed. */
    public record Passes(List<String> names, List<List<RequestSpec>> requests, long warmGapNs, int clientConcurrency) {}

    public Passes passes(RunConfig config) {
        SeedTree seeds = new SeedTree(config.seed());
        return switch (config.workload()) {
            case WorkloadPlan.LongPrefill plan -> {
                LongPrefillPasses passes = new LongPrefillPasses(plan.settings(), plan.geometry(), new SeedTree(seeds.seedOf("workload")));
                List<List<RequestSpec>> requests = new ArrayList<>();
                requests.add(passes.coldPass());
                if (plan.warmPass()) {
                    // Placeholder arrival times: the warm pass is re-timed to start after the cold one ends.
                    requests.add(passes.warmPass(0));
                }
                yield new Passes(plan.passes(), requests, plan.warmGapNs(), plan.clientConcurrency());
            }
            case WorkloadPlan.Mooncake plan -> {
                MooncakeTrace trace = traces.computeIfAbsent(plan.trace(), MooncakeTraceReader::read);
                yield new Passes(plan.passes(), List.of(MooncakeWorkload.requests(trace, plan.geometry(), plan.options())), 0, 0);
            }
            case WorkloadPlan.Trace plan -> {
                RequestTrace trace = otherTraces.computeIfAbsent(plan.trace() + " " + plan.format() + " " + plan.synthesis(),
                        key -> plan.read());
                List<RequestSpec> requests = withTraceField(() -> TraceWorkload.requests(trace, plan.geometry(), plan.options()));
                yield new Passes(plan.passes(), List.of(requests), 0, 0);
            }
            case WorkloadPlan.Synthetic plan -> new Passes(plan.passes(),
                    List.of(SyntheticWorkload.generate(plan.settings(), plan.geometry(), new SeedTree(seeds.seedOf("workload")))), 0, 0);
        };
    }

    /**
     * A trace whose blocks the model's block size cannot be cut from fails naming the field; a
     * {@link TraceException} (a bad line) passes as it is.
     */
    private static List<RequestSpec> withTraceField(java.util.function.Supplier<List<RequestSpec>> requests) {
        try {
            return requests.get();
        } catch (TraceException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().startsWith("blockTokens") ? "workload." + e.getMessage()
                    : e.getMessage(), e);
        }
    }

    public RunResult run(RunPoint point) {
        RunConfig config = point.config();
        long startNs = System.nanoTime();
        Passes passes = passes(config);
        StoreSettings storeSettings = config.store();
        if (config.baseline().equals(RunConfig.HOST_MEMORY)) {
            // "CPU memory holds everything": an L1 larger than all the KV the run stores, with room for the headroom.
            long kvBytes = 0;
            for (List<RequestSpec> pass : passes.requests()) {
                kvBytes += Workloads.storedKvBytes(pass, storeSettings.geometry());
            }
            long l1Bytes = Math.max(storeSettings.l1CapacityBytes(), (kvBytes * 5 / 4 + (1L << 30)) / 4096 * 4096);
            storeSettings = storeSettings.toBuilder().l1CapacityBytes(l1Bytes)
                    .l2CapacityBytes(Math.max(storeSettings.l2CapacityBytes(), l1Bytes)).futureReferences(null).build();
        }
        DecisionTrace trace = new DecisionTrace();
        TieredStore store = new TieredStore(storeSettings, trace);
        ServingEngine scheduler = ServingEngines.create(config.scheduler(), store, trace);
        return switch (config.mode()) {
            case "sim" -> simulate(point, passes, scheduler, trace, null, startNs);
            case "hybrid" -> hybrid(point, passes, scheduler, trace, startNs);
            case "live" -> live(point, passes, scheduler, trace, startNs);
            default -> throw new IllegalStateException("mode " + config.mode());
        };
    }

    private RunResult hybrid(RunPoint point, Passes passes, ServingEngine scheduler, DecisionTrace trace, long startNs) {
        StoreSettings settings = scheduler.store().settings();
        String refused = l1Budget().refusal(settings.l1CapacityBytes());
        if (refused != null) {
            return notStarted(point, trace, refused, startNs);
        }
        Path l2 = null;
        try (L1Arena l1 = l1Arena(point, settings.l1CapacityBytes())) {
            PinnedArena arena = l1.arena();
            StoragePort port;
            try {
                l2 = l2File(point);
                port = StoragePorts.open(l2, arena, settings.l2CapacityBytes());
                StoragePort opened = port;
                recordFacts(point, facts -> facts.withStorage(opened));
            } catch (IOException | UncheckedIOException e) {
                // As in live mode: the run failed and says why in its row; the other runs go on.
                return notStarted(point, trace, cannotOpen(l2 == null ? scratch : l2, settings.l2CapacityBytes(), e), startNs);
            }
            try (port;
                 RealBytes bytes = new RealBytes(arena, new BlockingStorage(port, HYBRID_IO_TIMEOUT_NS),
                         settings.geometry().laneBytes(), settings.geometry().tp())) {
                return simulate(point, passes, scheduler, trace, bytes, startNs);
            }
        } finally {
            if (l2 != null) {
                deleteQuietly(l2);
            }
        }
    }

    /** "cannot open the L2 file F (N preallocated): the cause in words". */
    private static String cannotOpen(Path l2, long l2Bytes, Exception e) {
        return "cannot open the L2 file " + l2 + " (" + OutputFolderCheck.size(l2Bytes) + " preallocated): "
                + IoProblems.describe(e);
    }

    /** The result of a run that failed before serving anything (no L1 memory, no L2 file). */
    private static RunResult notStarted(RunPoint point, DecisionTrace trace, String failure, long startNs) {
        Map<String, Double> run = new LinkedHashMap<>();
        run.put("run.failed", 1.0);
        run.put("run.unfinished", 0.0);
        run.put("run.leftovers", 0.0);
        run.put("run.mismatches", 0.0);
        run.put("run.l2Disagreements", Double.NaN);
        run.put("run.realMatches", 0.0);
        run.put("run.realMismatches", 0.0);
        run.put("run.simulatedS", Double.NaN);
        run.put("run.events", Double.NaN);
        return new RunResult(point, List.of(), run, List.of(), Map.of(), hex(trace.hash()), trace.eventCount(), failure,
                List.of(), System.nanoTime() - startNs, RunFailure.host());
    }

    /**
     * One mode's way of running a pass; the pass loop ({@link PassLoop}) is the same in every mode.
     * Sim and hybrid passes run on the virtual clock, live passes on the wall clock.
     */
    private interface PassRunner {
        /** The pass's requests, re-timed for this mode (pass {@code index} of the run). */
        List<RequestSpec> timed(int index, List<RequestSpec> requests);

        CounterSnapshot snapshot();

        /** Serves {@code requests} until the run is quiet again. */
        void run(List<RequestSpec> requests);
    }

    /** The pass loop of every mode: its metrics, TTFTs and submissions survive a pass that throws. */
    private static final class PassLoop {
        final List<PassMetrics> metrics = new ArrayList<>();
        final Map<String, long[]> ttft = new LinkedHashMap<>();
        final Map<String, List<RequestOutcome>> outcomes = new LinkedHashMap<>();
        long submitted;

        /** Runs every pass; returns a failure (a pass whose requests did not all finish) or null. */
        String run(Passes passes, PassRunner runner, ServingEngine engine) {
            for (int index = 0; index < passes.names().size(); index++) {
                String name = passes.names().get(index);
                List<RequestSpec> requests = runner.timed(index, passes.requests().get(index));
                CounterSnapshot start = runner.snapshot();
                // Counted before serving: a pass that throws still submitted its requests (they are unfinished).
                submitted += requests.size();
                runner.run(requests);
                CounterSnapshot end = runner.snapshot();
                Set<Long> ids = ids(requests);
                List<RequestOutcome> outcomes = engine.finished().stream().filter(o -> ids.contains(o.requestId())).toList();
                metrics.add(PassMetrics.of(name, outcomes, start, end));
                ttft.put(name, outcomes.stream().mapToLong(RequestOutcome::ttftNs).toArray());
                this.outcomes.put(name, outcomes);
                if (outcomes.size() < requests.size()) {
                    return "stalled: " + (requests.size() - outcomes.size()) + " of " + requests.size()
                            + " requests of the " + name + " pass never finished";
                }
            }
            return null;
        }
    }

    /** Sim and hybrid passes: later passes start {@code warmGapNs} after the previous one ended, in virtual time. */
    private static PassRunner simPasses(SimRuntime runtime, Passes passes) {
        return new PassRunner() {
            @Override
            public List<RequestSpec> timed(int index, List<RequestSpec> requests) {
                return index == 0 ? requests : shifted(requests, runtime.simulator().nowNs() + passes.warmGapNs());
            }

            @Override
            public CounterSnapshot snapshot() {
                return runtime.counterSnapshot();
            }

            @Override
            public void run(List<RequestSpec> requests) {
                if (passes.clientConcurrency() > 0) {
                    runtime.submitClosedLoop(requests, passes.clientConcurrency(), requests.getFirst().arrivalNs());
                } else {
                    requests.forEach(runtime::submit);
                }
                runtime.run();
            }
        };
    }

    private RunResult simulate(RunPoint point, Passes passes, ServingEngine scheduler, DecisionTrace trace,
                               RealBytes bytes, long startNs) {
        RunConfig config = point.config();
        SeedTree seeds = new SeedTree(config.seed());
        SimRuntime runtime = new SimRuntime(scheduler, config.device(), new SeedTree(seeds.seedOf("runtime")));
        runtime.setCheckInvariants(config.checkInvariants());
        runtime.setSampleIntervalNs(config.sampleIntervalNs());
        if (!config.faults().equals(FaultSettings.none())) {
            runtime.setCompletionFilter(new FaultInjector(config.faults(), seeds.random("faults")));
        }
        if (bytes != null) {
            runtime.setRealBytes(bytes);
        }
        runtime.setL2Free(config.baseline().equals(RunConfig.HOST_MEMORY));
        PassLoop loop = new PassLoop();
        String failure;
        Throwable thrown = null;
        List<String> examples = new ArrayList<>();
        try {
            failure = loop.run(passes, simPasses(runtime, passes), scheduler);
            if (failure == null) {
                scheduler.store().checkInvariants();
            }
        } catch (RuntimeException | AssertionError e) {
            failure = oneLine(thrown = e);
        }
        List<String> leftovers = failure == null ? scheduler.store().leftovers() : List.of();
        if (failure == null && !leftovers.isEmpty()) {
            failure = "leaked at quiescence: " + leftovers.getFirst() + (leftovers.size() > 1
                    ? " (and " + (leftovers.size() - 1) + " more)" : "");
        }
        if (bytes != null) {
            examples.addAll(bytes.mismatchExamples().stream().limit(3).toList());
        }
        // I7 at quiescence: L2 units whose bytes are not their key's (a lost or misdirected write that
        // no later load happened to read). Only meaningful once nothing is in flight.
        TieredStore store = scheduler.store();
        long wrongL2 = failure == null ? store.l2Disagreements(runtime.ledger()) : 0;
        Map<String, Double> run = new LinkedHashMap<>();
        run.put("run.failed", failure == null ? 0.0 : 1.0);
        run.put("run.unfinished", (double) (loop.submitted - scheduler.finished().size()));
        run.put("run.leftovers", (double) leftovers.size());
        run.put("run.mismatches", (double) runtime.ledger().mismatches());
        run.put("run.l2Disagreements", (double) wrongL2);
        run.put("run.realMatches", bytes == null ? 0.0 : bytes.loadMatches());
        run.put("run.realMismatches", bytes == null ? 0.0 : bytes.mismatches());
        run.put("run.simulatedS", runtime.simulator().nowNs() / 1e9);
        run.put("run.events", (double) runtime.simulator().eventsFired());
        return new RunResult(point, loop.metrics, run, List.copyOf(runtime.samples()), loop.ttft, hex(trace.hash()),
                trace.eventCount(), failure, List.copyOf(examples), System.nanoTime() - startNs, loop.outcomes,
                RunFailure.of(config, failure, thrown));
    }

    /**
     * Live passes: each starts when the previous one ended, on the wall clock; their times and the
     * real payload checks add up across passes.
     */
    private static final class LivePasses implements PassRunner {
        /** The engine the passes serve: the run's own, or one over the store a warm start recovered. */
        private ServingEngine engine;
        private LiveRuntime runtime;
        private StoragePort port;
        long offsetNs;
        long realMatches;
        long realMismatches;
        final List<String> examples = new ArrayList<>();
        private final Consumer<LiveRuntime.Report> observer;

        LivePasses(ServingEngine engine, Consumer<LiveRuntime.Report> observer) {
            this.engine = engine;
            this.observer = observer;
        }

        /** Serves the passes with {@code servingEngine} from now on; returns it. */
        ServingEngine engine(ServingEngine servingEngine) {
            this.engine = servingEngine;
            return servingEngine;
        }

        void attach(LiveRuntime liveRuntime, StoragePort storagePort) {
            this.runtime = liveRuntime;
            this.port = storagePort;
        }

        @Override
        public List<RequestSpec> timed(int index, List<RequestSpec> requests) {
            return shifted(requests, 0);
        }

        @Override
        public CounterSnapshot snapshot() {
            return CounterSnapshot.of(engine, offsetNs, StoragePorts.submissions(port), realMatches, realMismatches, 0);
        }

        @Override
        public void run(List<RequestSpec> requests) {
            LiveRuntime.Report report = runtime.run(requests);
            if (observer != null) {
                observer.accept(report);
            }
            // The runtime's payload counts and examples cover every pass it served so far, not this one alone.
            realMatches = report.loadMatches();
            realMismatches = report.mismatches();
            examples.clear();
            examples.addAll(report.mismatchExamples().stream().limit(3).toList());
            offsetNs += report.wallNs();
        }
    }

    private RunResult live(RunPoint point, Passes passes, ServingEngine scheduler, DecisionTrace trace, long startNs) {
        RunConfig config = point.config();
        StoreSettings settings = scheduler.store().settings();
        Path persistent = config.l2File();
        Path l2 = persistent;
        if (l2 == null) {
            try {
                l2 = l2File(point);
            } catch (UncheckedIOException e) {
                return notStarted(point, trace, cannotOpen(scratch, settings.l2CapacityBytes(), e), startNs);
            }
        }
        var gpu = config.device().gpu();
        ComputeTiming timing = new ComputeTiming(gpu.stepOverheadNs(), gpu.prefillNsPerToken(), gpu.attentionNsPerTokenPair(),
                gpu.decodeNsPerSequence());
        PassLoop loop = new PassLoop();
        LivePasses live = new LivePasses(scheduler, livePassObserver);
        String refused = l1Budget().refusal(settings.l1CapacityBytes());
        if (refused == null) {
            refused = cudaRefusal(point);
        }
        if (refused != null) {
            return notStarted(point, trace, refused, startNs);
        }
        String failure = null;
        Throwable thrown = null;
        try (L1Arena l1 = l1Arena(point, settings.l1CapacityBytes());
             // Closed after the runtime and the storage port: it waits for copies in flight, then unregisters L1.
             CudaCopyPort cuda = gpuPort(point, l1.arena(), settings);
             StoragePort port = StoragePorts.open(l2, l1.arena(), settings.l2CapacityBytes());
             // A persistent L2 file is opened after the port sized it and before the first write.
             WarmStart.Opened warm = persistent == null ? null : WarmStart.open(settings, l2, trace);
             LiveRuntime runtime = new LiveRuntime(live.engine(warm == null ? scheduler : warmEngine(point, warm, trace)),
                     port, l1.arena(), timing, LIVE_STALL_TIMEOUT_NS, cuda)) {
            // The GPU copy path was recorded by gpuPort (CUDA's device and driver, or host buffers and why).
            recordFacts(point, facts -> facts.withStorage(port));
            live.attach(runtime, port);
            failure = loop.run(passes, live, live.engine);
            if (failure == null) {
                live.engine.store().checkInvariants();
                if (warm != null) {
                    WarmStart.saveOnShutdown(warm, l2);
                }
            }
        } catch (IOException e) {
            failure = cannotOpen(l2, settings.l2CapacityBytes(), e);
            thrown = e;
        } catch (RuntimeException | AssertionError e) {
            failure = oneLine(thrown = e);
        } finally {
            if (persistent == null) {
                deleteQuietly(l2);
            }
        }
        Map<String, Double> run = new LinkedHashMap<>();
        run.put("run.failed", failure == null ? 0.0 : 1.0);
        run.put("run.unfinished", (double) (loop.submitted - live.engine.finished().size()));
        run.put("run.leftovers", failure == null ? (double) live.engine.store().leftovers().size() : 0.0);
        run.put("run.mismatches", (double) live.realMismatches);
        // Live runs have no payload ledger and no virtual clock: these are not measured, not zero.
        run.put("run.l2Disagreements", Double.NaN);
        run.put("run.realMatches", (double) live.realMatches);
        run.put("run.realMismatches", (double) live.realMismatches);
        run.put("run.simulatedS", Double.NaN);
        run.put("run.events", Double.NaN);
        return new RunResult(point, loop.metrics, run, List.of(), loop.ttft, hex(trace.hash()), trace.eventCount(), failure,
                List.copyOf(live.examples), System.nanoTime() - startNs, loop.outcomes, RunFailure.of(config, failure, thrown));
    }

    /** The engine over the store {@link WarmStart} opened; says on stderr whether it starts warm and why. */
    private static ServingEngine warmEngine(RunPoint point, WarmStart.Opened warm, DecisionTrace trace) {
        System.err.println("tierlab: run " + point.index() + ": " + warm.message());
        return ServingEngines.create(point.config().scheduler(), warm.store(), trace);
    }

    private Path l2File(RunPoint point) {
        try {
            Files.createDirectories(scratch);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the scratch folder " + scratch + ": " + IoProblems.describe(e), e);
        }
        return scratch.resolve("l2-run" + point.index() + "-" + ProcessHandle.current().pid() + ".bin");
    }

    /** The same requests with arrivals moved so the first is at {@code startNs} (gaps kept). */
    static List<RequestSpec> shifted(List<RequestSpec> requests, long startNs) {
        if (requests.isEmpty()) {
            return requests;
        }
        long first = requests.stream().mapToLong(RequestSpec::arrivalNs).min().orElse(0);
        return requests.stream().map(r -> new RequestSpec(r.requestId(), r.arrivalNs() - first + startNs,
                r.promptTokens(), r.outputTokens(), r.chain())).toList();
    }

    private static Set<Long> ids(List<RequestSpec> requests) {
        Set<Long> ids = new java.util.HashSet<>();
        requests.forEach(r -> ids.add(r.requestId()));
        return ids;
    }

    static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? "" : e.getMessage().strip().replaceAll("\\s*\\R\\s*", " ");
        return e.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
    }

    private static String hex(long value) {
        return HexFormat.of().toHexDigits(value);
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // A leftover scratch file is harmless; the run's result does not depend on it.
        }
    }
}
