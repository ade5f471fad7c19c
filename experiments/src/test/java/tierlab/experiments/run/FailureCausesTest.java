package tierlab.experiments.run;

import tierlab.experiments.TinyExperiments;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.CommandException;
import tierlab.experiments.OutputFolderCheck;
import tierlab.hunt.testkit.CommandRun;

/**
 * Causes named in words and found early. A hybrid run whose L2 file cannot be
 * preallocated (ENOSPC on a 1 MiB tmpfs) is a failed run in its row, not an aborted experiment;
 * an output folder that is read-only, below a file or on a full disk is refused before the first
 * run in one line; binary and gzip traces are reported as such at the right line. The tmpfs cases
 * need root (mount); elsewhere they are skipped and the injected-size case still runs.
 */
class FailureCausesTest {

    private static final String SIM = """
            name: causes
            """ + TinyExperiments.syntheticWorkload(20) + """
            store:
              l1CapacityGiB: 0.0001
              l2CapacityGiB: 0.01
            seeds: [1, 2]
            """;

    @TempDir
    Path folder;

    @Test
    void hybridL2OpenFailureIsAFailedRunInWords() throws Exception {
        Path small = folder.resolve("small");
        assumeMounted(small, "size=1m");
        try {
            Path file = Files.writeString(folder.resolve("hybrid.yaml"), SIM.replace("name: causes", "name: causes\nmode: hybrid"));
            ExperimentLoader.Experiment experiment = ExperimentLoader.load(file);
            RunExecutor executor = new RunExecutor(small.resolve(".causes.scratch"));
            List<RunResult> results = experiment.points().stream().map(executor::run).toList();
            assertEquals(2, results.size(), "every run of the experiment ran");
            for (RunResult result : results) {
                System.out.println("run " + result.point().index() + ": " + result.failure());
                assertTrue(result.failed());
                // Checked before the preallocation, which would fail with ENOSPC after creating the file.
                assertTrue(result.failure().contains("MiB free, and the L2 file needs 10.2 MiB more"), result.failure());
                assertTrue(result.failure().contains(small.resolve(".causes.scratch").toString() + "/l2-run"), result.failure());
                assertEquals(1.0, result.metrics().get("run.failed"));
            }
        } finally {
            unmount(small);
        }
    }

    @Test
    void anOutputBelowAFileIsRefusedBeforeTheFirstRun() throws IOException {
        Path file = Files.writeString(folder.resolve("sim.yaml"), SIM);
        Path aFile = Files.writeString(folder.resolve("a-file"), "x");
        assertRefusedQuickly(file, aFile.resolve("out"), aFile + " is a file, not a folder");
    }

    @Test
    void aFullDiskIsRefusedBeforeTheFirstRun() throws IOException {
        Path full = folder.resolve("full");
        CommandException refused = assertThrows(CommandException.class,
                () -> OutputFolderCheck.check(folder.resolve("out"), Long.MAX_VALUE / 2, "a test"));
        assertTrue(refused.getMessage().contains("not enough free space on its file system"), refused.getMessage());
        assumeMounted(full, "size=1m");
        try {
            try {
                Files.write(full.resolve("filler"), new byte[1 << 20]);
            } catch (IOException filledUp) {
                // ENOSPC: the disk is full, which is the point
            }
            assertRefusedQuickly(Files.writeString(folder.resolve("sim.yaml"), SIM), full.resolve("out"),
                    "not enough free space on its file system");
        } finally {
            unmount(full);
        }
    }

    @Test
    void aReadOnlyOutputIsRefusedBeforeTheFirstRun() throws IOException {
        Path readOnly = folder.resolve("ro");
        assumeMounted(readOnly, "size=1m,ro");
        try {
            assertRefusedQuickly(Files.writeString(folder.resolve("sim.yaml"), SIM), readOnly.resolve("out"),
                    "cannot be written: " + readOnly + ": read-only file system (EROFS)");
        } finally {
            unmount(readOnly);
        }
    }

    @Test
    void gzipAndBinaryTracesAreNamedAsSuchAtTheirLine() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("../data/mooncake_synthetic_trace.jsonl")).subList(0, 8);
        java.io.ByteArrayOutputStream gzip = new java.io.ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(gzip)) {
            out.write(String.join("\n", lines).getBytes(StandardCharsets.UTF_8));
        }
        Path gz = Files.write(folder.resolve("trace.jsonl.gz"), gzip.toByteArray());
        java.io.ByteArrayOutputStream binary = new java.io.ByteArrayOutputStream();
        binary.write((String.join("\n", lines.subList(0, 5)) + "\n{\"timestamp\": 1, ").getBytes(StandardCharsets.UTF_8));
        binary.write(new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1});
        binary.write(("\n" + String.join("\n", lines.subList(5, 8)) + "\n").getBytes(StandardCharsets.UTF_8));
        Path bin = Files.write(folder.resolve("trace.jsonl"), binary.toByteArray());
        String gzLine = traceError(gz);
        assertEquals("tierlab: " + gz + ": gzip-compressed data, not text (decompress it first); a trace is JSON Lines text", gzLine);
        String binLine = traceError(bin);
        assertEquals("tierlab: " + bin + ": binary data, not UTF-8 text, at line 6 (byte 0xff at column 18); a trace is"
                + " JSON Lines text", binLine);
    }

    private String traceError(Path trace) throws IOException {
        Path file = Files.writeString(folder.resolve("trace.yaml"), """
                name: traced
                workload:
                  type: mooncake
                  trace: %s
                  blockTokens: 512
                store:
                  l2CapacityGiB: 64
                seeds: [42]
                """.formatted(trace));
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("traced").toString(), "-q");
        System.out.println(run.err().strip());
        assertEquals(1, run.exitCode());
        assertFalse(run.err().contains("Exception"), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        return run.err().strip();
    }

    /** One line, exit 1, well under a second, and no run started (nothing written). */
    private void assertRefusedQuickly(Path experiment, Path out, String expected) {
        long startNs = System.nanoTime();
        CommandRun run = RunCommandTest.run("run", experiment.toString(), "--out", out.toString(), "-q");
        double seconds = (System.nanoTime() - startNs) / 1e9;
        System.out.printf("refused in %.3f s: %s%n", seconds, run.err().strip());
        assertEquals(1, run.exitCode(), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().contains(expected), run.err());
        assertEquals("", run.out(), "no run may start");
        assertTrue(seconds < 1.0, "took " + seconds + " s");
    }

    /** Mounts a tmpfs at {@code point} with {@code options}, or skips the test where that is not allowed. */
    static void assumeMounted(Path point, String options) throws IOException {
        Files.createDirectories(point);
        boolean mounted;
        try {
            Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", options, "tmpfs", point.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            mounted = mount.waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            mounted = false;
        }
        Assumptions.assumeTrue(mounted, "cannot mount a tmpfs here (needs root)");
    }

    static void unmount(Path point) {
        try {
            new ProcessBuilder("umount", point.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        } catch (IOException | InterruptedException e) {
            // The temporary folder's clean-up reports a mount left behind.
        }
    }
}
