package tierlab.experiments.run;

import tierlab.experiments.TinyExperiments;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tierlab.model.drive.ProgressWatchdog;

/**
 * results.csv's {@code run.failureKind}: a run broken by an ablated race fix is {@code ablation},
 * a violated invariant with every fix on is {@code invariant}, any other exception is {@code bug}
 * (in an ablated run too) and keeps its stack trace for errors.log.
 */
class RunFailureTest {

    @TempDir
    Path folder;

    /** The race-ablation workload of E6, in sim mode, small: R5 (leases outgrow L1) breaks I4 within it. */
    private static final String ABLATION = """
            name: failure-kinds
            """ + TinyExperiments.syntheticWorkload(160) + """
                sharedPrefixes: {poolSize: 6, zipfExponent: 1.1, prefixTokens: 64}
                sessions: {turnsPerSession: 3, newUserTokens: {kind: uniform, minTokens: 16, maxTokens: 48}, thinkTimeMeanSeconds: 0.01}
            store:
              l1CapacityGiB: 0.0000916
              l2CapacityGiB: 0.000305
              ringCount: 4
            scheduler: {engine: vllm, concurrency: 6, gpuKvBlocks: 64, prefetchMaxRequests: 2}
            faults: {readErrorProbability: 0.05, writeErrorProbability: 0.05, reorderWindowMs: 5}
            checkInvariants: true
            seeds: [1]
            sweep:
              - store.knownBugs: [[], [R5]]
            """;

    private static final String LIVE = """
            name: live-bug
            mode: live
            workload: {type: long-prefill, model: tiny, prompts: 6, promptTokens: 160, promptSpreadTokens: 32}
            store: {l1CapacityGiB: 0.0005, l2CapacityGiB: 0.01}
            live: {gpu: host}
            """;

    private ExperimentLoader.Experiment load(String name, String text) throws IOException {
        return ExperimentLoader.load(Files.writeString(folder.resolve(name), text));
    }

    @Test
    void anAblatedRaceFixThatBreaksItsRunIsAnAblationAndTheFixedRunIsClean() throws IOException {
        ExperimentLoader.Experiment experiment = load("ablation.yaml", ABLATION);
        RunExecutor executor = new RunExecutor(folder.resolve("scratch"));
        List<RunResult> results = experiment.points().stream().map(executor::run).toList();
        RunResult fixed = results.get(0);
        RunResult ablated = results.get(1);
        assertFalse(fixed.failed(), fixed.failure());
        assertNull(fixed.cause());
        assertTrue(ablated.failed(), "R5 switched off breaks I4 on this workload");
        assertTrue(ablated.failure().contains("I4"), ablated.failure());
        assertEquals(RunFailure.Kind.ABLATION, ablated.cause().kind());
        assertTrue(ablated.cause().stackTrace().contains("checkInvariants"), ablated.cause().stackTrace());
        assertNull(ResultFiles.errorsLog(results), "no bug, no errors.log");

        Table table = ResultFiles.results(experiment, results);
        assertEquals("", table.stringColumn(ResultFiles.FAILURE_KIND).get(0));
        assertEquals("ablation", table.stringColumn(ResultFiles.FAILURE_KIND).get(1));
        assertEquals(ResultFiles.FAILURE_KIND, table.columnNames().getLast(), "the one new column comes last");
    }

    @Test
    void anExceptionThatIsNoInvariantIsABugWithItsStackTrace() throws IOException {
        ExperimentLoader.Experiment experiment = load("live.yaml", LIVE);
        RunExecutor executor = new RunExecutor(folder.resolve("scratch"));
        // A defect in code the run calls: the observer of live passes dereferences null.
        RunResult result = executor.run(experiment.points().getFirst(), new RunObserver() {
            @Override
            public void livePass(tierlab.engine.live.LiveRuntime.Report report) {
                String missing = null;
                missing.length();
            }
        });
        assertTrue(result.failed());
        assertTrue(result.failure().startsWith("NullPointerException"), result.failure());
        assertEquals(RunFailure.Kind.BUG, result.cause().kind());
        assertTrue(result.cause().stackTrace().contains("RunFailureTest$1.livePass"), result.cause().stackTrace());

        String log = ResultFiles.errorsLog(List.of(result));
        assertNotNull(log);
        assertTrue(log.startsWith("run 0 (" + result.point().label() + "): NullPointerException"), log);
        assertTrue(log.contains("\tat tierlab.experiments.run.LiveRuns"), log);
        assertEquals("bug", ResultFiles.results(experiment, List.of(result)).stringColumn(ResultFiles.FAILURE_KIND).get(0));
    }

    @Test
    void theKindComesFromWhereTheExceptionWasThrownAndTheRunsSettings() throws IOException {
        ExperimentLoader.Experiment experiment = load("ablation.yaml", ABLATION);
        RunConfig fixed = experiment.points().get(0).config();
        RunConfig ablated = experiment.points().get(1).config();
        IllegalStateException violation = violation();

        assertEquals(RunFailure.Kind.INVARIANT, RunFailure.of(fixed, "I1: broken", violation).kind());
        assertEquals(RunFailure.Kind.ABLATION, RunFailure.of(ablated, "I1: broken", violation).kind());
        // Wrapped by a catcher on the way out: still the check's.
        assertEquals(RunFailure.Kind.INVARIANT, RunFailure.of(fixed, "x", new IllegalStateException("pass", violation)).kind());
        ProgressWatchdog.RunStopped stopped = new ProgressWatchdog.RunStopped("no progress");
        assertEquals(RunFailure.Kind.INVARIANT, RunFailure.of(fixed, "no progress", stopped).kind());
        // A stall or a leak found at quiescence, no exception: the liveness invariant (I10).
        RunFailure stall = RunFailure.of(fixed, "stalled: 3 of 9 requests never finished", null);
        assertEquals(RunFailure.Kind.INVARIANT, stall.kind());
        assertNull(stall.stackTrace());
        assertEquals(RunFailure.Kind.ABLATION, RunFailure.of(ablated, "stalled", null).kind());

        NullPointerException npe = new NullPointerException("policy");
        assertEquals(RunFailure.Kind.BUG, RunFailure.of(fixed, "NullPointerException", npe).kind());
        assertEquals(RunFailure.Kind.BUG, RunFailure.of(ablated, "NullPointerException", npe).kind(),
                "a bug in an ablated run is still a bug, not the ablation's intended break");
        assertEquals(RunFailure.Kind.HOST, RunFailure.of(fixed, "disk", new UncheckedIOException(new IOException("EIO"))).kind());
        assertNull(RunFailure.of(fixed, null, null), "a run that did not fail has no kind");
    }

    /** An exception as a structure's own check throws it: from inside a method named checkInvariants. */
    private static IllegalStateException violation() {
        try {
            new Object() {
                void checkInvariants() {
                    throw new IllegalStateException("I1: broken");
                }
            }.checkInvariants();
            throw new AssertionError("unreachable");
        } catch (IllegalStateException e) {
            return e;
        }
    }
}
