package tierlab.experiments.validate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import tierlab.engine.PinnedArena;
import tierlab.engine.StoragePorts;
import tierlab.engine.cuda.CudaDevice;
import tierlab.engine.live.LiveRuntime;
import tierlab.experiments.CommandException;
import tierlab.experiments.run.GpuCopyPath;
import tierlab.experiments.run.RunConfig;
import tierlab.experiments.run.RunExecutor;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.sim.SimRuntime;
import tierlab.model.util.SeedTree;
import tierlab.metrics.CounterSnapshot;
import tierlab.metrics.PassMetrics;

/**
 * Runs one workload live (wall clock, the io_uring engine on a real L2 file, a real pinned L1,
 * every load and staging copy checked against its payload) or in the simulator (the fitted
 * profile, the same seed), passes and closed-loop client exactly as {@code tierlab run} does, and
 * observes both the same way ({@link Observation.Recorder}).
 */
final class WorkloadRunner {
    /** A live run that sees no progress at all for this long reports a stall instead of waiting forever. */
    private static final long LIVE_STALL_TIMEOUT_NS = 30_000_000_000L;

    private WorkloadRunner() {
    }

    static Observation simulate(RunConfig config, RunExecutor.Passes passes) {
        Observation.Recorder recorder = new Observation.Recorder();
        DecisionTrace trace = new DecisionTrace(0, recorder);
        TieredStore store = new TieredStore(config.store(), trace);
        ServingEngine engine = ServingEngines.create(config.scheduler(), store, trace);
        SeedTree seeds = new SeedTree(config.seed());
        SimRuntime runtime = new SimRuntime(engine, config.device(), new SeedTree(seeds.seedOf("runtime")));
        runtime.setCheckInvariants(config.checkInvariants());
        // As the live loop does: every request due at an instant is handed over before the engine ticks.
        runtime.setSameInstantArrivalsTogether(true);
        recorder.attach(store, runtime::nowNs);
        List<PassMetrics> metrics = new ArrayList<>();
        Map<Long, Long> ttft = new LinkedHashMap<>();
        String failure = null;
        long startNs = System.nanoTime();
        try {
            for (int index = 0; index < passes.names().size(); index++) {
                List<RequestSpec> requests = passes.requests().get(index);
                if (index > 0) {
                    requests = shifted(requests, runtime.simulator().nowNs() + passes.warmGapNs());
                }
                CounterSnapshot start = runtime.counterSnapshot();
                if (passes.clientConcurrency() > 0) {
                    runtime.submitClosedLoop(requests, passes.clientConcurrency(), requests.getFirst().arrivalNs());
                } else {
                    requests.forEach(runtime::submit);
                }
                runtime.run();
                recorder.point(runtime.nowNs());
                failure = pass(passes.names().get(index), requests, engine, start, runtime.counterSnapshot(), metrics, ttft);
                if (failure != null) {
                    break;
                }
            }
            if (failure == null) {
                store.checkInvariants();
            }
        } catch (RuntimeException e) {
            failure = CommandException.describe(e);
        }
        return new Observation("sim", 0, metrics, ttft, recorder.lookups,
                recorder.lookupCalls, recorder.kinds, recorder.timeline, System.nanoTime() - startNs, runtime.ledger().loadMatches(),
                runtime.ledger().mismatches(), failure, HexFormat.of().toHexDigits(trace.hash()), runtime.storage().name(),
                "the simulator's PCIe model", store.counter(StoreCounter.GPU_LOAD_BYTES) / config.store().geometry().laneBytes());
    }

    /**
     * The live runs' GPU side: {@code live.gpu} and {@code live.verify} from the validation file, and
     * the CUDA device (probed once per command, only when asked for).
     */
    record LiveGpu(ValidationFile.Live settings, Supplier<CudaDevice> device) {
        /** Host buffers whatever the host has: the tests' and a GPU-less host's choice. */
        static LiveGpu hostBuffers() {
            return new LiveGpu(new ValidationFile.Live(RunConfig.GPU_HOST, true), () -> {
                throw new IllegalStateException("live.gpu is host: no CUDA device is probed");
            });
        }
    }

    static Observation live(RunConfig config, RunExecutor.Passes passes, int repeat, Path scratch, LiveGpu gpu) {
        Observation.Recorder recorder = new Observation.Recorder();
        DecisionTrace trace = new DecisionTrace(0, recorder);
        TieredStore store = new TieredStore(config.store(), trace);
        ServingEngine engine = ServingEngines.create(config.scheduler(), store, trace);
        ComputeModel timing = config.device().gpu().computeModel();
        List<PassMetrics> metrics = new ArrayList<>();
        Map<Long, Long> ttft = new LinkedHashMap<>();
        String failure = null;
        String backend = "not opened";
        String gpuCopies = "not opened";
        long loadedLanes = 0;
        long offsetNs = 0;
        long matches = 0;
        long mismatches = 0;
        Path l2 = scratch.resolve("validate-l2-" + ProcessHandle.current().pid() + ".bin");
        try {
            Files.createDirectories(scratch);
            String refusal = GpuCopyPath.refusal(gpu.settings().gpu(), gpu.device());
            if (refusal != null) {
                throw new IllegalStateException(refusal);
            }
            try (PinnedArena arena = PinnedArena.allocate(config.store().l1CapacityBytes(), true);
                 // Closed after the runtime and the storage port: it waits for copies in flight, then unregisters L1.
                 GpuCopyPath.Opened gpuSide = GpuCopyPath.open(gpu.settings().gpu(), gpu.settings().verify(), gpu.device(), arena,
                         config.store().geometry());
                 StoragePort port = StoragePorts.open(l2, arena, config.store().l2CapacityBytes());
                 LiveRuntime runtime = new LiveRuntime(engine, port, arena, timing, LIVE_STALL_TIMEOUT_NS, gpuSide.port())) {
                backend = port.name() + (arena.lockStatus().locked() ? ", L1 mlocked" : ", L1 not mlocked: "
                        + arena.lockStatus().reason());
                gpuCopies = gpuSide.description();
                recorder.attach(store, runtime::nowNs);
                for (int index = 0; index < passes.names().size(); index++) {
                    List<RequestSpec> requests = shifted(passes.requests().get(index), 0);
                    CounterSnapshot start = CounterSnapshot.of(engine, offsetNs, StoragePorts.submissions(port), matches, mismatches, 0);
                    recorder.offset(offsetNs);
                    LiveRuntime.Report report = runtime.run(requests, passes.clientConcurrency());
                    // A report carries the runtime's totals since it opened (its device memory or CUDA
                    // port counts across passes), not the pass's own: the pass's share is end - start.
                    matches = report.loadMatches();
                    mismatches = report.mismatches();
                    offsetNs += report.wallNs();
                    recorder.offset(0);
                    recorder.point(offsetNs);
                    CounterSnapshot end = CounterSnapshot.of(engine, offsetNs, StoragePorts.submissions(port), matches, mismatches, 0);
                    failure = pass(passes.names().get(index), requests, engine, start, end, metrics, ttft);
                    if (failure != null) {
                        break;
                    }
                }
                if (failure == null) {
                    store.checkInvariants();
                }
                loadedLanes = store.counter(StoreCounter.GPU_LOAD_BYTES) / config.store().geometry().laneBytes();
            }
        } catch (IOException | RuntimeException e) {
            failure = CommandException.describe(e);
        } finally {
            try {
                Files.deleteIfExists(l2);
            } catch (IOException ignored) {
                // A leftover scratch file is the only cost; the run's figures do not depend on it.
            }
        }
        if (failure == null && mismatches > 0) {
            failure = mismatches + " loads or staging copies did not hold their key's bytes";
        }
        return new Observation("live", repeat, metrics, ttft, recorder.lookups, recorder.lookupCalls, recorder.kinds, recorder.timeline, offsetNs,
                matches, mismatches, failure, HexFormat.of().toHexDigits(trace.hash()), backend, gpuCopies, loadedLanes);
    }

    /** Adds a finished pass's metrics and TTFTs; returns a failure when not every request finished. */
    private static String pass(String name, List<RequestSpec> requests, ServingEngine engine, CounterSnapshot start,
                               CounterSnapshot end, List<PassMetrics> metrics, Map<Long, Long> ttft) {
        Set<Long> ids = new HashSet<>();
        requests.forEach(r -> ids.add(r.requestId()));
        List<RequestOutcome> outcomes = engine.finished().stream().filter(o -> ids.contains(o.requestId())).toList();
        metrics.add(PassMetrics.of(name, outcomes, start, end));
        outcomes.forEach(o -> ttft.put(o.requestId(), o.ttftNs()));
        return outcomes.size() == requests.size() ? null
                : (requests.size() - outcomes.size()) + " of " + requests.size() + " requests of the " + name + " pass never finished";
    }

    private static List<RequestSpec> shifted(List<RequestSpec> requests, long startNs) {
        if (requests.isEmpty()) {
            return requests;
        }
        long first = requests.stream().mapToLong(RequestSpec::arrivalNs).min().orElse(0);
        return requests.stream().map(r -> new RequestSpec(r.requestId(), r.arrivalNs() - first + startNs,
                r.promptTokens(), r.outputTokens(), r.chain())).toList();
    }
}
