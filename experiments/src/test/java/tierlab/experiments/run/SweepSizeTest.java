package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.CommandException;
import tierlab.hunt.testkit.CommandRun;

/**
 * Sweeps that looked hung. The grid is counted before it is expanded, a grid above
 * {@code maxRuns} is refused in well under a second with one line naming the field and the limit,
 * and expanding a large allowed grid is linear (it was quadratic: every cell was compared with every
 * earlier one).
 */
class SweepSizeTest {

    @TempDir
    Path folder;

    private static String values(int from, int count) {
        return IntStream.range(from, from + count).mapToObj(Integer::toString).collect(Collectors.joining(", ", "[", "]"));
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(folder.resolve(name), text);
    }

    @Test
    void aSweepOfADeviceFieldIsRefusedInOneLineWithoutTheBindersWords() throws IOException {
        Path file = write("device.yaml", "name: device-sweep\nworkload: {type: long-prefill, prompts: 4, promptTokens: 500}\n"
                + "sweep:\n  device.nvme.readGBps: [3, 6]\n");
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
        assertEquals(1, run.exitCode());
        String err = run.err().strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains(file + ": sweep.device.nvme.readGBps: a device profile's fields are not swept by path"), err);
        assertFalse(err.contains("Cannot deserialize") || err.contains("wrong type"), err);
        assertFalse(Files.exists(folder.resolve("out")));
    }

    @Test
    void aBillionCellGridIsRefusedByItsCountInWellUnderASecond() throws IOException {
        StringBuilder text = new StringBuilder("name: huge\nworkload: {type: long-prefill, prompts: 4, promptTokens: 500}\nsweep:\n");
        String[] axes = {"store.headroomFraction", "scheduler.concurrency", "store.ringCount", "store.stagingSlots",
                "scheduler.maxBatchedTokens", "workload.prompts", "workload.promptTokens", "store.writeBatchMaxMiB",
                "scheduler.prefetchMaxRequests"};
        for (String axis : axes) {
            text.append("  ").append(axis).append(": ").append(values(1, 10)).append('\n');
        }
        Path file = write("huge.yaml", text.toString());
        long start = System.nanoTime();
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(1, run.exitCode());
        String err = run.err().strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains("sweep: 1,000,000,000 runs") && err.contains("exceed maxRuns 10,000"), err);
        assertFalse(Files.exists(folder.resolve("out")));
        assertTrue(tookMs < 1_000, "refused in " + tookMs + " ms");
        System.out.printf("10^9-cell grid refused in %d ms: %s%n", tookMs, err);
    }

    @Test
    void aCountBeyondLongIsRefusedToo() throws IOException {
        StringBuilder text = new StringBuilder("name: vast\nworkload: {type: long-prefill, prompts: 4, promptTokens: 500}\nsweep:\n");
        for (int axis = 0; axis < 25; axis++) {
            text.append("  store.k").append(axis).append(": ").append(values(1, 10)).append('\n');
        }
        CommandException refused = assertThrows(CommandException.class, () -> ExperimentLoader.load(write("vast.yaml", text.toString())));
        assertTrue(refused.getMessage().contains("more than 9.2e18 runs"), refused.getMessage());
    }

    @Test
    void raisingMaxRunsAdmitsALargeGridAndItExpandsInLinearTime() throws IOException {
        // Two grids of 150 x 100 cells that share every cell: 30,000 counted, 15,000 runs after merging.
        String grid = "    scheduler.concurrency: " + values(1, 150) + "\n    scheduler.maxBatchedTokens: " + values(1_000, 100) + "\n";
        Path file = write("big.yaml", "name: big\nmaxRuns: 30000\nworkload: {type: long-prefill, prompts: 4, promptTokens: 500}\n"
                + "sweep:\n  -\n" + grid + "  -\n" + grid);
        long start = System.nanoTime();
        ExperimentLoader.Experiment experiment = ExperimentLoader.load(file);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(15_000, experiment.points().size(), "a cell two grids share runs once");
        System.out.printf("a 30,000-cell sweep (15,000 distinct) loaded in %d ms%n", tookMs);
        assertTrue(tookMs < 60_000, "loaded in " + tookMs + " ms");
    }

    @Test
    void maxRunsIsAPositiveCount() throws IOException {
        CommandException refused = assertThrows(CommandException.class, () -> ExperimentLoader.load(write("zero.yaml",
                "name: zero\nmaxRuns: 0\nworkload: {type: long-prefill, prompts: 4, promptTokens: 500}\n")));
        assertTrue(refused.getMessage().contains("maxRuns: must be >= 1"), refused.getMessage());
    }
}
