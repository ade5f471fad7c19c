package tierlab.experiments.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tierlab.engine.BlockingStorage;
import tierlab.engine.PinnedArena;
import tierlab.engine.StoragePorts;
import tierlab.metrics.CounterSnapshot;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.ServingEngine;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.SeedTree;
import tierlab.sim.SimRuntime;
import tierlab.sim.fault.FaultInjector;
import tierlab.sim.fault.FaultSettings;
import tierlab.sim.hybrid.RealBytes;

/**
 * Sim and hybrid runs: the simulator's runtime on the run's device profile and seed, its settings
 * from the run's configuration; a hybrid run adds a real pinned L1 and a real L2 file whose bytes
 * the simulator's completions carry ({@link RealBytes}).
 */
final class SimRuns {

    /** How long a hybrid run waits for one real I/O before calling it failed. */
    private static final long HYBRID_IO_TIMEOUT_NS = 30_000_000_000L;

    private final RunResources resources;

    SimRuns(RunResources resources) {
        this.resources = resources;
    }

    RunResult hybrid(RunPoint point, RunPasses passes, ServingEngine scheduler, DecisionTrace trace, RunObserver observer,
                     long startNs) {
        StoreSettings settings = scheduler.store().settings();
        String refused = resources.l1Budget().refusal(settings.l1CapacityBytes());
        if (refused != null) {
            return RunResults.notStarted(point, trace, refused, startNs);
        }
        Path l2 = null;
        try (RunResources.L1Arena l1 = resources.l1Arena(point, settings.l1CapacityBytes())) {
            PinnedArena arena = l1.arena();
            StoragePort port;
            try {
                l2 = resources.l2File(point);
                port = StoragePorts.open(l2, arena, settings.l2CapacityBytes());
                StoragePort opened = port;
                resources.recordFacts(point, facts -> facts.withStorage(opened));
            } catch (IOException | UncheckedIOException e) {
                // As in live mode: the run failed and says why in its row; the other runs go on.
                return RunResults.notStarted(point, trace, RunResources.cannotOpen(l2 == null ? resources.scratch() : l2,
                        settings.l2CapacityBytes(), e), startNs);
            }
            try (port;
                 RealBytes bytes = new RealBytes(arena, new BlockingStorage(port, HYBRID_IO_TIMEOUT_NS),
                         settings.geometry().laneBytes(), settings.geometry().tp())) {
                return simulate(point, passes, scheduler, trace, bytes, observer, startNs);
            }
        } finally {
            if (l2 != null) {
                RunResources.deleteQuietly(l2);
            }
        }
    }

    /** A sim run ({@code bytes} null) or the virtual-clock half of a hybrid one. */
    RunResult simulate(RunPoint point, RunPasses passes, ServingEngine scheduler, DecisionTrace trace, RealBytes bytes,
                       RunObserver observer, long startNs) {
        SimRuntime runtime = runtime(point.config(), scheduler, bytes);
        PassLoop loop = new PassLoop();
        String failure;
        Throwable thrown = null;
        try {
            failure = loop.run(passes, passRunner(runtime, passes, scheduler), observer);
            if (failure == null) {
                scheduler.store().checkInvariants();
            }
        } catch (RuntimeException | AssertionError e) {
            failure = RunResults.oneLine(thrown = e);
        }
        List<String> leftovers = failure == null ? scheduler.store().leftovers() : List.of();
        if (failure == null && !leftovers.isEmpty()) {
            failure = "leaked at quiescence: " + leftovers.getFirst() + (leftovers.size() > 1
                    ? " (and " + (leftovers.size() - 1) + " more)" : "");
        }
        List<String> examples = new ArrayList<>();
        if (bytes != null) {
            examples.addAll(bytes.mismatchExamples().stream().limit(3).toList());
        }
        // I7 at quiescence: L2 units whose bytes are not their key's (a lost or misdirected write that
        // no later load happened to read). Only meaningful once nothing is in flight.
        TieredStore store = scheduler.store();
        long wrongL2 = failure == null ? store.l2Disagreements(runtime.ledger()) : 0;
        Map<String, Double> run = RunResults.runMetrics(failure, loop.submitted - scheduler.finished().size(), leftovers.size(),
                runtime.ledger().mismatches(), wrongL2, bytes == null ? 0.0 : bytes.loadMatches(),
                bytes == null ? 0.0 : bytes.mismatches(), runtime.simulator().nowNs() / 1e9, runtime.simulator().eventsFired());
        return new RunResult(point, loop.metrics, run, List.copyOf(runtime.samples()), loop.ttft, RunResults.hex(trace.hash()),
                trace.eventCount(), failure, List.copyOf(examples), System.nanoTime() - startNs, loop.outcomes,
                RunFailure.of(point.config(), failure, thrown));
    }

    /** The simulator's runtime with the run's settings: invariant checks, sampling, faults, real bytes, arrivals. */
    private static SimRuntime runtime(RunConfig config, ServingEngine scheduler, RealBytes bytes) {
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
        runtime.setSameInstantArrivalsTogether(config.sameInstantArrivalsTogether());
        return runtime;
    }

    /** Sim and hybrid passes: later passes start {@code warmGapNs} after the previous one ended, in virtual time. */
    private static PassLoop.PassRunner passRunner(SimRuntime runtime, RunPasses passes, ServingEngine scheduler) {
        return new PassLoop.PassRunner() {
            @Override
            public List<RequestSpec> timed(int index, List<RequestSpec> requests) {
                return index == 0 ? requests : PassLoop.shifted(requests, runtime.simulator().nowNs() + passes.warmGapNs());
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

            @Override
            public long runClockNs() {
                return runtime.nowNs();
            }

            @Override
            public ServingEngine engine() {
                return scheduler;
            }
        };
    }
}
