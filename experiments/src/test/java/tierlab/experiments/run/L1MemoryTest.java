package tierlab.experiments.run;

import tierlab.experiments.TinyExperiments;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.hunt.testkit.CommandRun;

/**
 * The native L1 arenas of hybrid and live runs have a total cap across
 * {@code --jobs} (runs that would exceed it wait; one that can never fit is refused in one line),
 * and each arena is mlocked or its run says why not in run.json.
 */
class L1MemoryTest {

    private static final long GIB = 1L << 30;

    private static final String HYBRID = """
            name: memory
            mode: hybrid
            """ + TinyExperiments.syntheticWorkload(40) + """
            store:
              l1CapacityGiB: 0.0001
              l2CapacityGiB: 0.01
            seeds: [1, 2, 3, 4, 5, 6]
            """;

    @TempDir
    Path folder;

    /** The reported case: 6 jobs of 4 GiB L1 each on a host whose budget holds 4 of them. */
    @Test
    void sixJobsOfFourGibWaitForRoomInsteadOfExceedingTheBudget() throws Exception {
        L1MemoryBudget budget = new L1MemoryBudget(16 * GIB + GIB / 2, "a test host");
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger peakConcurrent = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService jobs = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int job = 0; job < 6; job++) {
                done.add(jobs.submit(() -> {
                    start.await();
                    try (L1MemoryBudget.Grant grant = budget.acquire(4 * GIB)) {
                        peakConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                        Thread.sleep(50);
                        concurrent.decrementAndGet();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            jobs.shutdownNow();
        }
        System.out.println("6 jobs x 4 GiB under a 16.5 GiB budget: at most " + peakConcurrent.get()
                + " at once, peak " + budget.peakInUseBytes() / GIB + " GiB, " + budget.inUseBytes() + " bytes held at the end");
        assertEquals(4, peakConcurrent.get());
        assertEquals(16 * GIB, budget.peakInUseBytes());
        assertEquals(0, budget.inUseBytes());
        assertThrows(IllegalArgumentException.class, () -> budget.acquire(17 * GIB));
    }

    @Test
    void hybridRunsShareTheBudgetAndEachArenaIsLockedOrSaysWhyNot() throws Exception {
        ExperimentLoader.Experiment experiment = ExperimentLoader.load(Files.writeString(folder.resolve("m.yaml"), HYBRID));
        long l1Bytes = experiment.points().getFirst().config().store().l1CapacityBytes();
        L1MemoryBudget budget = new L1MemoryBudget(l1Bytes * 2, "a test budget of two arenas");
        RunExecutor executor = new RunExecutor(folder.resolve(".memory.scratch"), budget);
        List<RunResult> results = new LocalSweepExecutor(6).run(experiment.points(), executor::run, (point, result) -> { });
        results.forEach(result -> assertFalse(result.failed(), result.failure()));
        System.out.println("6 hybrid runs on 6 threads, budget of 2 arenas: peak " + budget.peakInUseBytes() / l1Bytes
                + " arenas at once");
        assertTrue(budget.peakInUseBytes() <= 2 * l1Bytes);
        Map<Integer, String> locks = executor.l1LockByRun();
        assertEquals(6, locks.size());
        locks.values().forEach(reason -> assertTrue(reason.startsWith("mlocked") || reason.contains("RLIMIT_MEMLOCK"), reason));
        System.out.println("l1Lock of run 0: " + locks.get(0));
    }

    @Test
    void anArenaThatCanNeverFitIsARefusedRunInOneLine() throws Exception {
        ExperimentLoader.Experiment experiment = ExperimentLoader.load(Files.writeString(folder.resolve("m.yaml"), HYBRID));
        RunExecutor executor = new RunExecutor(folder.resolve(".memory.scratch"), new L1MemoryBudget(4096, "a tiny test host"));
        RunResult result = executor.run(experiment.points().getFirst());
        System.out.println("refused: " + result.failure());
        assertTrue(result.failed());
        assertTrue(result.failure().startsWith("L1 of 104.0 KiB does not fit in the memory L1 arenas may use (4.0 KiB"),
                result.failure());
    }

    @Test
    void runJsonSaysWhetherEachHybridArenaWasLocked() throws Exception {
        Path file = Files.writeString(folder.resolve("m.yaml"), HYBRID.replace("seeds: [1, 2, 3, 4, 5, 6]", "seeds: [1]"));
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
        assertEquals(0, run.exitCode(), run.err());
        JsonNode runJson = new ObjectMapper().readTree(folder.resolve("out/run.json").toFile());
        String lock = runJson.path("runs").get(0).path("l1Lock").asText();
        System.out.println("run.json runs[0].l1Lock: " + lock);
        assertTrue(lock.startsWith("mlocked") || lock.contains("RLIMIT_MEMLOCK"), lock);
        assertTrue(L1MemoryBudget.ofHost().totalBytes() > 0);
    }
}
