package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.OutputLock;
import tierlab.experiments.TinyExperiments;

/**
 * Two {@code tierlab run} processes into one {@code --out} on a real file system: the second is refused
 * in one line naming the folder and the first one's process id, and writes nothing; the first finishes
 * as if alone, and its folder holds its files only. A lock file left by a killed run takes nothing.
 */
class ConcurrentOutputTest {

    /** A sim run of a few seconds: long enough to be caught holding its lock, short enough for CI. */
    private static final String SIM = """
            name: both
            mode: sim
            """ + TinyExperiments.syntheticWorkload(2000) + """
            store:
              l1CapacityGiB: 0.0001
              l2CapacityGiB: 0.01
            seeds: [1, 2]
            """;

    /** What a sim run without charts writes into its folder. */
    private static final List<String> SIM_OUTPUTS = List.of("experiment.yaml", "report.md", "requests.csv", "results.csv",
            "run.json", "summary.json", "timeseries.csv");

    @TempDir
    Path folder;

    @Test
    void aSecondRunProcessIntoTheSameFolderIsRefusedInOneLineAndWritesNothing() throws Exception {
        Path file = Files.writeString(folder.resolve("both.yaml"), SIM);
        Path out = folder.resolve("out");
        Process first = start(file, out, "first");
        // Frozen once it holds the lock (it writes its pid just after taking it), so the second meets a run in progress
        // however slow this host is; a stopped process keeps its lock and its files as they are.
        waitForLockOf(first, out);
        signal(first, "STOP");
        try {
            assertEquals(Long.toString(first.pid()), lockHolder(out), "the first run let go of its lock before it was stopped");
            List<String> before = listing(folder);
            Process second = start(file, out, "second");
            assertTrue(second.waitFor(120, TimeUnit.SECONDS), "the second run did not exit");
            String secondErr = Files.readString(folder.resolve("second.err"), StandardCharsets.UTF_8);
            String secondOut = Files.readString(folder.resolve("second.out"), StandardCharsets.UTF_8);
            assertNotEquals(0, second.exitValue(), secondErr);
            assertEquals(List.of("tierlab: output folder " + out + " is being written by another tierlab run (process "
                    + first.pid() + "); wait for it to finish or choose another --out"), secondErr.lines().toList());
            assertEquals("", secondOut, "the refused run printed output");
            assertEquals(before, listing(folder).stream().filter(name -> !name.startsWith("second.")).toList(),
                    "the refused run changed the folder beside its --out");
            assertTrue(first.isAlive());
        } finally {
            signal(first, "CONT");
        }
        assertTrue(first.waitFor(300, TimeUnit.SECONDS), "the first run did not finish");
        assertEquals(0, first.exitValue(), Files.readString(folder.resolve("first.err")));
        assertTrue(Files.readString(folder.resolve("first.out")).contains("wrote " + out), Files.readString(folder.resolve("first.out")));
        assertEquals(SIM_OUTPUTS, listing(out));
        assertEquals(3, Files.readAllLines(out.resolve("results.csv")).size(), "header and one row per seed");
        // Beside the output: the experiment file and the two processes' logs, no lock file and no temporary folder.
        assertEquals(List.of("both.yaml", "first.err", "first.out", "out", "second.err", "second.out"), listing(folder));
    }

    @Test
    void aLockFileLeftByAKilledRunBlocksNothing() throws Exception {
        Path out = folder.resolve("out");
        Files.writeString(OutputLock.lockFileOf(out), "999999999\n"); // what SIGKILL leaves: the file, no lock
        try (OutputLock held = OutputLock.acquire(out)) {
            assertEquals(Long.toString(ProcessHandle.current().pid()), Files.readString(OutputLock.lockFileOf(out)).strip());
        }
        assertFalse(Files.exists(OutputLock.lockFileOf(out)));
        assertEquals(List.of(), listing(folder));
    }

    /** {@code tierlab run FILE --out OUT -q} in a child JVM, its stdout and stderr in {@code NAME.out} and {@code NAME.err}. */
    private Process start(Path file, Path out, String name) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"),
                "tierlab.experiments.cli.Main", "run", file.toString(), "--out", out.toString(), "-q", "-j", "1"));
        return new ProcessBuilder(command).redirectOutput(folder.resolve(name + ".out").toFile())
                .redirectError(folder.resolve(name + ".err").toFile()).start();
    }

    private void waitForLockOf(Process run, Path out) throws IOException, InterruptedException {
        long deadlineNs = System.nanoTime() + 120_000_000_000L;
        while (!Long.toString(run.pid()).equals(lockHolder(out))) {
            if (!run.isAlive() || System.nanoTime() > deadlineNs) {
                run.destroyForcibly();
                throw new AssertionError("the first run never held its lock; it said: " + Files.readString(folder.resolve("first.err")));
            }
            Thread.sleep(5);
        }
    }

    /** The process id written in the lock file of {@code out}, or null while there is none. */
    private static String lockHolder(Path out) throws IOException {
        try {
            return Files.readString(OutputLock.lockFileOf(out), StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static void signal(Process child, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + signal);
    }

    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
