package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tierlab.hunt.testkit.CommandRun;

/**
 * A device that fails every read, through {@code tierlab run}: {@code faults.readErrorProbability: 1.0} with the
 * default prefetch window never ended in sim (memory growing) nor in hybrid. Now the run ends in
 * bounded time as a failed run whose failure names the cause. (Live mode takes no injected faults;
 * its case is {@code LiveEveryReadFailsTest}, over a storage port that fails every read.)
 */
class EveryReadFailsRunTest {

    @TempDir
    Path folder;

    @ParameterizedTest
    @ValueSource(strings = {"sim", "hybrid"})
    void aCampaignWhereEveryReadFailsEndsInBoundedTimeWithTheCause(String mode) throws IOException {
        Path file = folder.resolve("every-read-fails.yaml");
        Files.writeString(file, """
                name: every-read-fails
                mode: %s
                workload: {type: long-prefill, model: tiny, prompts: 20, promptTokens: 400, promptSpreadTokens: 40}
                store: {l1CapacityGiB: 0.0005, l2CapacityGiB: 0.01}
                # prefixCaching off: the warm pass reads L2 instead of finding its prompts in the GPU prefix cache.
                scheduler: {concurrency: 4, prefixCaching: false}
                faults: {readErrorProbability: 1.0}
                """.formatted(mode));
        Path out = folder.resolve("out-" + mode);
        long start = System.nanoTime();
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", out.toString(), "-q");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(1, run.exitCode(), "a failed run is reported: " + run.err() + run.out());
        Table results = Table.read().csv(out.resolve("results.csv").toFile());
        assertEquals(1.0, results.numberColumn("run.failed").getDouble(0));
        String failure = results.column("failure").getString(0);
        assertTrue(failure.contains("the L2 device failed every read") && failure.contains("EIO"), failure);
        assertTrue(tookMs < 30_000, "bounded: " + tookMs + " ms");
        // The exception path: the run ended by an exception inside it (the
        // watchdog's stop), and its scratch L2 file did not outlive it.
        Path scratch = folder.resolve(".every-read-fails.scratch");
        if (Files.isDirectory(scratch)) {
            try (var left = Files.list(scratch)) {
                assertEquals(List.of(), left.toList(), "scratch files left after a run that ended in an exception");
            }
        }
        System.out.printf("%s, every read fails: ended in %d ms: %s%n", mode, tookMs, failure);
    }
}
