package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.persist.IndexFile;
import tierlab.hunt.testkit.CommandRun;

/**
 * Ctrl-C (SIGINT) and SIGTERM on a live run with a persistent L2 file: the run stops cleanly (what
 * is in flight lands, nothing new starts), saves a valid index and says so on stderr, within a
 * few seconds, and the next run starts warm from it. Each case starts a real child JVM running {@code tierlab run} and
 * signals it while it serves.
 */
class PersistentL2SignalTest {

    /** Long enough (tens of seconds on its own) that the signal lands while the cold pass is served. */
    private static final String LONG_LIVE = WarmRestartRunTest.LIVE.replace("prompts: 8,", "prompts: 4000,");

    @TempDir
    Path folder;

    @Test
    void sigintStopsTheRunAndSavesAnIndexTheNextRunStartsWarmFrom() throws Exception {
        assertStoppedAndSaved("INT");
    }

    @Test
    void sigtermStopsTheRunAndSavesAnIndexTheNextRunStartsWarmFrom() throws Exception {
        assertStoppedAndSaved("TERM");
    }

    private void assertStoppedAndSaved(String signal) throws Exception {
        Path file = folder.resolve("live.yaml");
        Files.writeString(file, LONG_LIVE);
        Files.createDirectories(folder.resolve("cache"));
        Path log = folder.resolve("child.log");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"),
                "tierlab.experiments.cli.Main", "run", file.toString(), "--out", folder.resolve("a").toString(), "-q")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadlineNs = System.nanoTime() + 120_000_000_000L;
        // The run has opened the store (it says so) and served for a moment.
        while (!Files.readString(log).contains("starting with a cold L2")) {
            if (!child.isAlive() || System.nanoTime() > deadlineNs) {
                child.destroyForcibly();
                throw new AssertionError("the child never opened its L2 file: " + Files.readString(log));
            }
            Thread.sleep(20);
        }
        Thread.sleep(1_500);
        assertTrue(child.isAlive(), "the run ended before the signal: make it longer. " + Files.readString(log));
        long signalledNs = System.nanoTime();
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor());
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not exit after SIG" + signal);
        String said = Files.readString(log);
        System.out.println("SIG" + signal + ": exit " + child.exitValue() + " after " + (System.nanoTime() - signalledNs) / 1_000_000
                + " ms; " + said.strip().replace('\n', ' '));
        // Before: the JVM exited at once, silently, and left a stale index (the next run started cold).
        assertTrue(said.contains("tierlab: run 0: stopped by a signal; the L2 index was saved at "
                + IndexFile.besideL2(folder.resolve("cache/l2.bin"))), said);
        assertFalse(said.contains("was dropped"), said);
        long stoppedMs = (System.nanoTime() - signalledNs) / 1_000_000;
        assertTrue(stoppedMs < 10_000, "stopped in " + stoppedMs + " ms, not at once");

        Outcome next = runHere(file);
        assertEquals(0, next.run().exitCode(), next.run().err() + next.stderr());
        assertTrue(next.stderr().contains("warm start:"), next.stderr());
    }

    private record Outcome(CommandRun run, String stderr) {}

    private Outcome runHere(Path file) throws IOException {
        Files.writeString(file, WarmRestartRunTest.LIVE);
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        CommandRun run;
        try (PrintStream err = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setErr(err);
            run = RunCommandTest.run(List.of("run", file.toString(), "--out", folder.resolve("b").toString(), "-q")
                    .toArray(String[]::new));
        } finally {
            System.setErr(original);
        }
        return new Outcome(run, captured.toString(StandardCharsets.UTF_8));
    }
}
