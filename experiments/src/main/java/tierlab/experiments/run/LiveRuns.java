package tierlab.experiments.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tierlab.engine.StoragePorts;
import tierlab.engine.cuda.CudaCopyPort;
import tierlab.engine.live.LiveRuntime;
import tierlab.engine.live.WarmStart;
import tierlab.engine.persist.L2FileLock;
import tierlab.experiments.IoProblems;
import tierlab.experiments.OutputFolderCheck;
import tierlab.metrics.CounterSnapshot;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.trace.DecisionTrace;

/**
 * Live runs: the wall clock, a real pinned L1 arena out of the executor's budget, the GPU copy path
 * ({@code live.gpu}), the storage port on a real L2 file (scratch, or the run's persistent
 * {@code store.l2File} with a warm start), and the live runtime over them.
 */
final class LiveRuns {

    /** A live run that sees no progress at all for this long reports a stall instead of waiting forever. */
    private static final long LIVE_STALL_TIMEOUT_NS = 30_000_000_000L;

    private final RunResources resources;

    LiveRuns(RunResources resources) {
        this.resources = resources;
    }

    RunResult run(RunPoint point, RunPasses passes, ServingEngine scheduler, DecisionTrace trace, RunObserver observer,
                  long startNs) {
        RunConfig config = point.config();
        StoreSettings settings = scheduler.store().settings();
        Path persistent = config.l2File();
        Path l2 = persistent;
        if (l2 == null) {
            try {
                l2 = resources.l2File(point);
            } catch (UncheckedIOException e) {
                return RunResults.notStarted(point, trace, RunResources.cannotOpen(resources.scratch(), settings.l2CapacityBytes(), e),
                        startNs);
            }
        }
        String refused = resources.l1Budget().refusal(settings.l1CapacityBytes());
        if (refused == null) {
            refused = resources.cudaRefusal(point);
        }
        if (refused != null) {
            return RunResults.notStarted(point, trace, refused, startNs);
        }
        PassLoop loop = new PassLoop();
        LivePasses live = new LivePasses(scheduler, passes.clientConcurrency(), observer);
        String failure;
        Throwable thrown = null;
        try {
            failure = serve(point, passes, trace, l2, persistent != null, loop, live);
        } catch (L2Step e) {
            failure = e.getMessage();
            thrown = e.getCause();
        } catch (IOException e) {
            failure = RunResources.cannotOpen(l2, settings.l2CapacityBytes(), e);
            thrown = e;
        } catch (RuntimeException | AssertionError e) {
            failure = RunResults.oneLine(thrown = e);
        } finally {
            if (persistent == null) {
                RunResources.deleteQuietly(l2);
            }
        }
        Map<String, Double> run = RunResults.runMetrics(failure, loop.submitted - live.engine.finished().size(),
                failure == null ? live.engine.store().leftovers().size() : 0.0, live.realMismatches, Double.NaN,
                live.realMatches, live.realMismatches, Double.NaN, Double.NaN);
        RunFailure cause = failure != null && live.realMismatches > 0 ? RunFailure.wrongBytes()
                : RunFailure.of(point.config(), failure, thrown);
        return new RunResult(point, loop.metrics, run, List.of(), loop.ttft, RunResults.hex(trace.hash()), trace.eventCount(),
                failure, List.copyOf(live.examples), System.nanoTime() - startNs, loop.outcomes, cause);
    }

    /**
     * A failure of one step on the persistent L2 file or its index, with the sentence that names
     * that step (locking, opening, saving), not the generic "cannot open".
     */
    static final class L2Step extends IOException {
        private static final long serialVersionUID = 1L;

        L2Step(String message, IOException cause) {
            super(message, cause);
        }
    }

    /** An L2 step that may fail with an IOException. */
    @FunctionalInterface
    private interface IoStep<T> {
        T get() throws IOException;
    }

    /** {@code step}'s value; its failure as an {@link L2Step} saying "{@code what}: the cause in words". */
    private static <T> T step(String what, IoStep<T> step) throws L2Step {
        try {
            return step.get();
        } catch (L2FileLock.HeldException e) {
            throw new L2Step(e.getMessage(), e);
        } catch (IOException e) {
            throw new L2Step(what + ": " + IoProblems.describe(e), e);
        }
    }

    /** Opens the run's L1, GPU side, L2 port and runtime, serves every pass, and closes them; returns the failure or null. */
    private String serve(RunPoint point, RunPasses passes, DecisionTrace trace, Path l2, boolean persistent, PassLoop loop,
                         LivePasses live) throws IOException {
        StoreSettings settings = live.engine.store().settings();
        // A persistent file is locked before anything opens it, so no second run ever sizes or writes it.
        L2FileLock lock = persistent ? step("cannot lock the L2 file " + l2, () -> L2FileLock.acquire(l2)) : null;
        PersistentL2 keeper = persistent ? new PersistentL2(point, lock) : null;
        try (L2FileLock held = lock;
             PersistentL2 leftover = keeper;
             RunResources.L1Arena l1 = resources.l1Arena(point, settings.l1CapacityBytes());
             // Closed after the runtime and the storage port: it waits for copies in flight, then unregisters L1.
             CudaCopyPort cuda = resources.gpuPort(point, l1.arena(), settings);
             StoragePort port = step("cannot open the L2 file " + l2 + " (" + OutputFolderCheck.size(settings.l2CapacityBytes())
                     + " preallocated)", () -> StoragePorts.open(l2, l1.arena(), settings.l2CapacityBytes()));
             // A persistent L2 file is opened after the port sized it and before the first write.
             WarmStart.Opened warm = persistent ? step("cannot read or stamp the identity of the L2 file " + l2,
                     () -> WarmStart.open(settings, held, trace)) : null;
             LiveRuntime runtime = new LiveRuntime(live.engine(warm == null ? live.engine : warmEngine(point, warm, trace)),
                     port, l1.arena(), timing(point.config()), LIVE_STALL_TIMEOUT_NS, cuda)) {
            // The GPU copy path was recorded by gpuPort (CUDA's device and driver, or host buffers and why).
            resources.recordFacts(point, facts -> facts.withStorage(port));
            live.attach(runtime, port);
            if (keeper != null) {
                keeper.opened(warm, runtime);
            }
            String failure = loop.run(passes, live, live.observer);
            if (failure == null || runtime.stopRequested()) {
                live.engine.store().checkInvariants();
            }
            boolean saveable = failure == null;
            if (live.realMismatches > 0) {
                failure = wrongBytes(point, live, failure);
                saveable = false;
            } else if (runtime.stopRequested()) {
                // Stopped cleanly: every write it issued landed and the invariants held; the index keeps what landed.
                saveable = true;
                failure = "stopped by a signal (SIGINT or SIGTERM) after " + live.engine.finished().size() + " of "
                        + loop.submitted + " requests";
            }
            return keeper == null ? failure : keeper.finish(failure, saveable, live.realMismatches);
        }
    }

    /** The failure of a run that served wrong bytes, said on stderr too: the run fails, whatever else it did. */
    private static String wrongBytes(RunPoint point, LivePasses live, String otherFailure) {
        String failure = "served " + live.realMismatches + " load" + (live.realMismatches == 1 ? "" : "s")
                + " with wrong bytes (run.realMismatches = " + live.realMismatches + "; first: "
                + (live.examples.isEmpty() ? "none recorded" : live.examples.getFirst()) + ")"
                + (otherFailure == null ? "" : "; also " + otherFailure);
        System.err.println("tierlab: run " + point.index() + ": " + failure);
        return failure;
    }

    /** The live runtime's compute steps: timed as the device profile's GPU model times them. */
    private static ComputeModel timing(RunConfig config) {
        return config.device().gpu().computeModel();
    }

    /** The engine over the store {@link WarmStart} opened; says on stderr whether it starts warm and why. */
    private static ServingEngine warmEngine(RunPoint point, WarmStart.Opened warm, DecisionTrace trace) {
        System.err.println("tierlab: run " + point.index() + ": " + warm.message());
        return ServingEngines.create(point.config().scheduler(), warm.store(), trace);
    }

    /**
     * Live passes: each starts when the previous one ended, on the wall clock; their times and the
     * real payload checks add up across passes.
     */
    private static final class LivePasses implements PassLoop.PassRunner {
        /** The engine the passes serve: the run's own, or one over the store a warm start recovered. */
        private ServingEngine engine;
        private final int clientConcurrency;
        private final RunObserver observer;
        private LiveRuntime runtime;
        private StoragePort port;
        /** The wall time of the passes before this one. */
        long offsetNs;
        /** A pass is being served: the run's clock is the passes before it plus the runtime's own. */
        private boolean serving;
        long realMatches;
        long realMismatches;
        final List<String> examples = new ArrayList<>();

        LivePasses(ServingEngine engine, int clientConcurrency, RunObserver observer) {
            this.engine = engine;
            this.clientConcurrency = clientConcurrency;
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
            return PassLoop.shifted(requests, 0);
        }

        @Override
        public CounterSnapshot snapshot() {
            return CounterSnapshot.of(engine, offsetNs, StoragePorts.submissions(port), realMatches, realMismatches, 0);
        }

        @Override
        public void run(List<RequestSpec> requests) {
            if (runtime.stopRequested()) {
                // A signal stopped the run: the passes after the stopped one are not served.
                return;
            }
            LiveRuntime.Report report;
            serving = true;
            try {
                report = runtime.run(requests, clientConcurrency);
            } finally {
                serving = false;
            }
            observer.livePass(report);
            // The runtime's payload counts and examples cover every pass it served so far, not this one alone.
            realMatches = report.loadMatches();
            realMismatches = report.mismatches();
            examples.clear();
            examples.addAll(report.mismatchExamples().stream().limit(3).toList());
            offsetNs += report.wallNs();
        }

        @Override
        public long runClockNs() {
            return serving ? offsetNs + runtime.nowNs() : offsetNs;
        }

        @Override
        public ServingEngine engine() {
            return engine;
        }
    }
}
