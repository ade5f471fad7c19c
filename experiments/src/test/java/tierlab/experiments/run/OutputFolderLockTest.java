package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.OutputFolderLock;
import tierlab.experiments.TinyExperiments;
import tierlab.hunt.testkit.CommandRun;

/**
 * Two {@code tierlab run} processes given the same {@code --out}: the one that comes second is refused at
 * once and names the first, which writes its output whole. Each run is a real child JVM.
 */
class OutputFolderLockTest {

    /** Hybrid runs of a few seconds, so the second process starts while the first holds the folder. */
    private static final String SLOW = """
            name: slow
            mode: hybrid
            """ + TinyExperiments.syntheticWorkload(3000) + """
            store:
              l1CapacityGiB: 0.0001
              l2CapacityGiB: 0.01
            seeds: [1, 2]
            """;

    @TempDir
    Path folder;

    @Test
    void aSecondRunToTheSameOutputIsRefusedAndNamesTheFirst() throws Exception {
        Path file = Files.writeString(folder.resolve("slow.yaml"), SLOW);
        Path out = folder.resolve("shared-out");
        Path lockFile = OutputFolderLock.lockFileOf(out);
        Process first = start(file, out, "first.log");
        waitFor(() -> Files.exists(lockFile), first, "first.log", "the first run never took its output folder");

        Process second = start(file, out, "second.log");
        assertTrue(second.waitFor(60, TimeUnit.SECONDS), "the second run did not return");
        String secondLog = Files.readString(folder.resolve("second.log"));
        System.out.println("second run: exit " + second.exitValue() + ": " + secondLog.strip());
        assertEquals(1, second.exitValue(), secondLog);
        assertTrue(secondLog.contains("tierlab: output folder " + out + " is being written by another tierlab run (process "
                + first.pid() + ", since "), secondLog);
        assertFalse(secondLog.contains("wrote "), secondLog);
        assertTrue(first.isAlive(), "the first run should still be running when the second is refused");

        assertTrue(first.waitFor(300, TimeUnit.SECONDS), "the first run did not finish");
        String firstLog = Files.readString(folder.resolve("first.log"));
        assertEquals(0, first.exitValue(), firstLog);
        assertTrue(firstLog.contains("wrote " + out), firstLog);
        assertTrue(Files.isRegularFile(out.resolve(ResultFiles.RESULTS)));
        assertEquals("", Files.readString(lockFile), "a released lock file names no holder");
    }

    @Test
    void aRunKilledWhileHoldingTheFolderDoesNotBlockTheNext() throws Exception {
        Path file = Files.writeString(folder.resolve("slow.yaml"), SLOW);
        Path out = folder.resolve("killed-out");
        Path lockFile = OutputFolderLock.lockFileOf(out);
        Process killed = start(file, out, "killed.log");
        waitFor(() -> Files.exists(lockFile), killed, "killed.log", "the run never took its output folder");
        killed.destroyForcibly(); // SIGKILL: no shutdown hook, the lock file stays; the kernel drops the lock
        assertTrue(killed.waitFor(30, TimeUnit.SECONDS));
        assertTrue(Files.exists(lockFile), "SIGKILL runs no code, so the lock file is still there");

        Path quick = Files.writeString(folder.resolve("quick.yaml"), SLOW.replace("mode: hybrid", "mode: sim")
                .replace("requestCount: 3000", "requestCount: 20").replace("seeds: [1, 2]", "seeds: [1]"));
        CommandRun next = RunCommandTest.run("run", quick.toString(), "--out", out.toString(), "-q");
        assertEquals(0, next.exitCode(), next.err());
        assertTrue(Files.isRegularFile(out.resolve(ResultFiles.RESULTS)));
        assertEquals("", Files.readString(lockFile), "a released lock file names no holder");
    }

    @Test
    void aFolderHeldInThisProcessIsRefusedToo() {
        Path out = folder.resolve("nested").resolve("held");
        try (OutputFolderLock held = OutputFolderLock.acquire(out)) {
            CommandRun second = RunCommandTest.run("replay", "--trace", "missing.jsonl", "--out", out.toString());
            assertEquals(1, second.exitCode(), second.err());
            assertEquals("tierlab: output folder " + out + " is being written by another tierlab run (this process);"
                    + " wait for it to finish or choose another --out", second.err().strip());
        }
        // Released: the folder can be taken again.
        OutputFolderLock.acquire(out).close();
    }

    private Process start(Path file, Path out, String log) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"),
                "tierlab.experiments.cli.Main", "run", file.toString(), "--out", out.toString(), "-j", "1"));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(folder.resolve(log).toFile()).start();
    }

    private void waitFor(java.util.function.BooleanSupplier condition, Process child, String log, String failure)
            throws IOException, InterruptedException {
        long deadlineNs = System.nanoTime() + 60_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (!child.isAlive() || System.nanoTime() > deadlineNs) {
                child.destroyForcibly();
                throw new AssertionError(failure + "; its log: " + Files.readString(folder.resolve(log)));
            }
            Thread.sleep(20);
        }
    }
}
