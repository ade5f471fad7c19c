package tierlab.experiments.validate;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import tierlab.engine.cuda.CudaDevice;
import tierlab.experiments.calibration.DriveReplay;
import tierlab.experiments.run.RunObserver;
import tierlab.experiments.run.RunConfig;
import tierlab.experiments.run.RunExecutor;
import tierlab.experiments.run.RunFacts;
import tierlab.experiments.run.RunMode;
import tierlab.experiments.run.RunPasses;
import tierlab.experiments.run.RunPoint;
import tierlab.experiments.run.RunResult;
import tierlab.model.request.RequestOutcome;

/**
 * Runs one workload live (wall clock, the io_uring engine on a real L2 file, a real pinned L1,
 * every load and staging copy checked against its payload) or in the simulator (the fitted
 * profile, the same seed), through the executor {@code tierlab run} uses: the same passes, pass
 * loop, live set-up and simulator settings. Each run is watched by an {@link Observation.Recorder},
 * so both modes are observed the same way.
 */
final class ValidationRuns {

    private final RunExecutor executor;
    private final ValidationFile.Live gpuSide;
    /** Each run gets its own index: its L2 file and its facts (backend, GPU copies) are its own. */
    private int nextIndex;

    /**
     * @param gpuSide    the live runs' {@code live.gpu} and {@code live.verify}
     * @param cudaDevice the CUDA device, probed once per command and only when a run may use it
     */
    ValidationRuns(Path scratch, ValidationFile.Live gpuSide, Supplier<CudaDevice> cudaDevice) {
        this.executor = new RunExecutor(scratch, cudaDevice);
        this.gpuSide = gpuSide;
    }

    /** Host buffers whatever the host has: the tests' and a GPU-less host's choice. */
    static ValidationRuns hostBuffers(Path scratch) {
        return new ValidationRuns(scratch, new ValidationFile.Live(RunConfig.GPU_HOST, true), () -> {
            throw new IllegalStateException("live.gpu is host: no CUDA device is probed");
        });
    }

    /** The workload's passes, generated from its seed as {@code tierlab run} generates them. */
    RunPasses passes(RunConfig config) {
        return executor.passes(config);
    }

    Observation simulate(RunConfig config, RunPasses passes) {
        Observed run = run(config.inMode(RunMode.SIM, gpuSide.gpu(), gpuSide.verify()), passes);
        RunResult result = run.result();
        return observation("sim", 0, run, result.wallNs(), 0, result.runMetrics().get("run.mismatches").longValue(),
                result.failure(), "the simulator's storage model", "the simulator's PCIe model");
    }

    /**
     * The L2 operations a simulated run of the workload issues, in order: what the drive replay
     * puts to the drive before and after the live runs ({@link DriveCheck}).
     */
    DriveReplay.Recording simulatedL2Ops(RunConfig config, RunPasses passes) {
        DriveReplay.Recorder ops = new DriveReplay.Recorder(config.store().geometry().laneBytes());
        RunConfig sim = config.inMode(RunMode.SIM, gpuSide.gpu(), gpuSide.verify());
        executor.run(new RunPoint(nextIndex++, Map.of(), sim.seed(), sim), passes, new RunObserver() {
            @Override
            public tierlab.model.trace.DecisionTrace.DecisionListener decisions() {
                return ops;
            }
        });
        return ops.recording();
    }

    Observation live(RunConfig config, RunPasses passes, int repeat) {
        Observed run = run(config.inMode(RunMode.LIVE, gpuSide.gpu(), gpuSide.verify()), passes);
        RunResult result = run.result();
        long matches = result.runMetrics().get("run.realMatches").longValue();
        long mismatches = result.runMetrics().get("run.realMismatches").longValue();
        String failure = result.failure() == null && mismatches > 0
                ? mismatches + " loads or staging copies did not hold their key's bytes" : result.failure();
        RunFacts facts = run.facts();
        String backend = facts.storageBackend() == null ? "not opened" : facts.storageBackend()
                + (Boolean.TRUE.equals(facts.l1Pinned()) ? ", L1 mlocked" : ", L1 not mlocked: " + facts.l1Lock());
        return observation("live", repeat, run, run.recorder().passesEndNs, matches, mismatches, failure, backend,
                facts.gpuCopies() == null ? "not opened" : facts.gpuCopies());
    }

    /** A run's result, what the recorder saw of it, and what it ran on. */
    private record Observed(RunResult result, Observation.Recorder recorder, RunFacts facts) {}

    private Observed run(RunConfig config, RunPasses passes) {
        RunPoint point = new RunPoint(nextIndex++, Map.of(), config.seed(), config);
        Observation.Recorder recorder = new Observation.Recorder();
        RunResult result = executor.run(point, passes, recorder);
        return new Observed(result, recorder, executor.facts(point));
    }

    private static Observation observation(String mode, int repeat, Observed run, long wallNs, long matches, long mismatches,
                                           String failure, String backend, String gpuCopies) {
        Observation.Recorder recorder = run.recorder();
        RunResult result = run.result();
        return new Observation(mode, repeat, result.passes(), ttftByRequest(result), recorder.lookups, recorder.lookupCalls,
                recorder.kinds, recorder.timeline, wallNs, matches, mismatches, failure, result.decisionHash(), backend, gpuCopies,
                recorder.loadedLanes());
    }

    /** Every finished request's TTFT by its id, pass after pass. */
    private static Map<Long, Long> ttftByRequest(RunResult result) {
        Map<Long, Long> ttft = new LinkedHashMap<>();
        for (List<RequestOutcome> pass : result.outcomesByPass().values()) {
            pass.forEach(o -> ttft.put(o.requestId(), o.ttftNs()));
        }
        return ttft;
    }
}
