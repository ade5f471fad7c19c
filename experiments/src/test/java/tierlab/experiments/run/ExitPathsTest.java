package tierlab.experiments.run;

import tierlab.experiments.TinyExperiments;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.hunt.testkit.CommandRun;

/**
 * A hybrid run's scratch L2 files are gone after SIGINT and SIGTERM (shutdown
 * hooks), and what SIGKILL leaves (scratch files, a temporary output folder) is removed by the
 * next run. Each case starts a real child JVM running {@code tierlab run} and signals it while
 * its scratch files exist.
 */
class ExitPathsTest {

    /** Hybrid runs of several seconds each, so the signal lands while scratch files exist. */
    private static final String LONG_HYBRID = """
            name: exits
            mode: hybrid
            """ + TinyExperiments.syntheticWorkload(3000) + """
            store:
              l1CapacityGiB: 0.0001
              l2CapacityGiB: 0.01
            seeds: [1, 2, 3, 4, 5, 6, 7, 8]
            """;

    @TempDir
    Path folder;

    @Test
    void sigtermRemovesTheScratchFiles() throws Exception {
        assertScratchGoneAfter("TERM");
    }

    @Test
    void sigintRemovesTheScratchFiles() throws Exception {
        assertScratchGoneAfter("INT");
    }

    @Test
    void whatSigkillLeavesIsRemovedByTheNextRun() throws Exception {
        Path scratch = folder.resolve(".exits.scratch");
        Process child = startAndWaitForScratch();
        long deadPid = child.pid();
        // A temporary output folder as a SIGKILL during the output writes leaves it.
        Path staleTemporary = Files.createDirectory(folder.resolve(".exits.tmp-" + deadPid + "-123456789-0"));
        Files.writeString(staleTemporary.resolve("results.csv"), "half");
        signal(child, "KILL");
        assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child did not die");
        assertFalse(scratchFiles(scratch).isEmpty(), "SIGKILL runs no code, so its scratch files are still there");

        Path sim = folder.resolve("next.yaml");
        Files.writeString(sim, LONG_HYBRID.replace("name: exits", "name: next").replace("mode: hybrid", "mode: sim")
                .replace("requestCount: 3000", "requestCount: 20").replace("seeds: [1, 2, 3, 4, 5, 6, 7, 8]", "seeds: [1]"));
        CommandRun next = RunCommandTest.run("run", sim.toString(), "--out", folder.resolve("next").toString(), "-q");
        assertEquals(0, next.exitCode(), next.err());
        System.out.println("after SIGKILL, the next run said: " + next.err().strip());
        assertFalse(Files.exists(scratch), "stale scratch folder still there: " + scratchFiles(scratch));
        assertFalse(Files.exists(staleTemporary), "stale temporary output folder still there");
        assertTrue(next.err().contains("no longer running"), next.err());
    }

    @Test
    void aLiveProcessesFilesAreLeftAlone() throws Exception {
        Path scratch = Files.createDirectory(folder.resolve(".other.scratch"));
        long alive = ProcessHandle.current().parent().orElseThrow().pid();
        Path theirs = Files.writeString(scratch.resolve("l2-run0-" + alive + ".bin"), "in use");
        Path theirTemporary = Files.createDirectory(folder.resolve(".other.tmp-" + alive + "-1-0"));
        List<String> done = tierlab.experiments.StaleOutputs.clean(folder);
        assertEquals(List.of(), done);
        assertTrue(Files.exists(theirs));
        assertTrue(Files.exists(theirTemporary));
    }

    private void assertScratchGoneAfter(String signal) throws Exception {
        Path scratch = folder.resolve(".exits.scratch");
        Process child = startAndWaitForScratch();
        int before = scratchFiles(scratch).size();
        signal(child, signal);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not exit after SIG" + signal);
        List<Path> left = scratchFiles(scratch);
        System.out.println("SIG" + signal + ": " + before + " scratch file(s) before, " + left.size() + " after; exit code "
                + child.exitValue());
        assertEquals(List.of(), left, "scratch files left after SIG" + signal);
        assertFalse(Files.exists(scratch), "scratch folder left after SIG" + signal);
        try (Stream<Path> entries = Files.list(folder)) {
            assertEquals(List.of(), entries.filter(p -> p.getFileName().toString().contains(".tmp-")).toList());
        }
    }

    /** Starts {@code tierlab run} on the long hybrid file in a child JVM; returns once a scratch file exists. */
    private Process startAndWaitForScratch() throws IOException, InterruptedException {
        Path file = folder.resolve("exits.yaml");
        Files.writeString(file, LONG_HYBRID);
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"),
                "tierlab.experiments.cli.Main", "run", file.toString(), "--out", folder.resolve("exits").toString(), "-q", "-j", "2"));
        Process child = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(folder.resolve("child.log").toFile()).start();
        Path scratch = folder.resolve(".exits.scratch");
        long deadlineNs = System.nanoTime() + 60_000_000_000L;
        while (scratchFiles(scratch).isEmpty()) {
            if (!child.isAlive() || System.nanoTime() > deadlineNs) {
                child.destroyForcibly();
                throw new AssertionError("no scratch file appeared; child log: " + Files.readString(folder.resolve("child.log")));
            }
            Thread.sleep(20);
        }
        return child;
    }

    private static void signal(Process child, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + signal);
    }

    private static List<Path> scratchFiles(Path scratch) throws IOException {
        if (!Files.isDirectory(scratch)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(scratch)) {
            return files.toList();
        }
    }
}
