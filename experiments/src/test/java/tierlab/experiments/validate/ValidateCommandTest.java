package tierlab.experiments.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import tierlab.engine.IoUringBackend;
import tierlab.experiments.ChartFiles;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;
import tierlab.model.testkit.TestDirectories;
import tierlab.sim.device.DeviceProfile;

/**
 * The small variant of {@code tierlab validate} (seconds, tiny KV shape, a given profile so nothing
 * is calibrated): every metric is produced for every workload and pass, and the decisions are
 * compared. No timing is asserted: this VM's timing is not the point here.
 */
class ValidateCommandTest {

    /** The catalogue's small variant (experiments/catalog/validation-small.yaml): its workloads, from "workloads:" on. */
    private static final Path SMALL = Path.of("catalog", "validation-small.yaml");
    private static final String WORKLOADS = workloads();

    private static String workloads() {
        try {
            String text = Files.readString(SMALL);
            return text.substring(text.indexOf("\nworkloads:") + 1);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterEach
    void restoreCharts() {
        ValidateCommand.chartWriter = ChartFiles.FILES;
    }

    private static Path fixture(String name) throws IOException {
        Path dir = TestDirectories.underTarget("validate-" + name);
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        Files.writeString(dir.resolve("profile.yaml"), preset.withName("test-host")
                .toYaml("the preset, named as a fitted profile would be"));
        Files.writeString(dir.resolve("small.yaml"), "name: small\nrepeats: 2\nprofile: profile.yaml\n" + WORKLOADS);
        return dir;
    }

    @Test
    void everyMetricIsProducedAndTheDecisionsAreCompared() throws IOException {
        Assumptions.assumeTrue(IoUringBackend.probe().available(), () -> "io_uring unavailable: " + IoUringBackend.probe().cause());
        // The catalogue's file itself, as dist-check runs it from the archive (its profile is the reference host's).
        Path out = TestDirectories.underTarget("validate-metrics").resolve("out");
        CommandRun run = CommandRun.of(Main.newCommandLine(), "validate", SMALL.toString(), "--out", out.toString(), "-q");
        assertEquals(0, run.exitCode(), run.out() + run.err());
        List<String> csv = Files.readAllLines(out.resolve(ValidationReport.CSV));
        assertEquals("workload,role,pass,metric,unit,liveMedian,liveMin,liveMax,liveSpread,sim,relativeError,simDriveAfter,"
                + "relativeErrorDriveAfter,verdict", csv.getFirst());
        for (String workload : List.of("prefill", "closed-loop")) {
            String prefix = workload + ",held-out,";
            for (String pass : List.of("cold", "warm")) {
                Set<String> metrics = csv.stream().filter(l -> l.startsWith(prefix + pass + ","))
                        .map(l -> l.split(",")[3]).collect(Collectors.toSet());
                assertEquals(Comparison.METRICS.size(), metrics.size(), workload + " " + pass + ": " + metrics);
                assertTrue(metrics.containsAll(List.of("elapsedS", "ttftP50Ms", "ttftP99Ms", "l2ReadBytes", "l2WriteBytes",
                        "l2WriteOps", "l1HitRatio", "ioUringEnters")), metrics.toString());
            }
            // Both passes wrote or read L2 and timed requests: the live medians and the simulation are numbers.
            String elapsed = csv.stream().filter(l -> l.startsWith(prefix + "cold,elapsedS,")).findFirst().orElseThrow();
            String[] cells = elapsed.split(",");
            assertTrue(Double.parseDouble(cells[5]) > 0 && Double.parseDouble(cells[9]) > 0, elapsed);
            // The simulation on the after-replay profile ran too, and every row has a verdict.
            assertTrue(Double.parseDouble(cells[11]) > 0, elapsed);
            assertTrue(List.of("within", "drive-moved", "outside").contains(cells[13]), elapsed);
            String written = csv.stream().filter(l -> l.startsWith(prefix + "cold,l2WriteBytes,")).findFirst().orElseThrow();
            assertTrue(Double.parseDouble(written.split(",")[5]) > 0, written);
            assertTrue(csv.stream().anyMatch(l -> l.startsWith(prefix + "all,ttftPerRequestAbsErrorP50,")), workload);
        }
        List<String> decisions = Files.readAllLines(out.resolve(ValidationReport.DECISIONS_CSV));
        assertEquals(3, decisions.size(), decisions.toString());
        for (String line : decisions.subList(1, 3)) {
            String[] cells = line.split(",");
            // 6 prompts × 2 passes, each decided once in the simulation; these workloads leave timing no say in a
            // lookup (one request at a time reaches each prefix), so a differing lookup is a divergence of the two
            // runtimes, and fails here: every lookup identical, in the same order, in both live runs.
            assertEquals(12.0, Double.parseDouble(cells[1]), line);
            assertEquals(12.0, Double.parseDouble(cells[2]), "lookups identical to the first live run's: " + line);
            assertEquals("true", cells[3], "in the same order: " + line);
            assertEquals(2.0, Double.parseDouble(cells[4]), "both live runs identical to the simulation: " + line);
        }
        List<String> kinds = Files.readAllLines(out.resolve(ValidationReport.DECISION_KINDS_CSV));
        assertEquals("workload,kind,sim,liveMedian,liveMin,liveMax,relativeError", kinds.getFirst());
        assertTrue(kinds.stream().anyMatch(l -> l.startsWith("prefill,op-write,")), kinds.toString());
        // Each workload's drive replayed before and after its live runs, with the simulated run's writes.
        List<String> drive = Files.readAllLines(out.resolve(ValidationReport.DRIVE_CSV));
        assertEquals(5, drive.size(), drive.toString());
        for (String line : drive.subList(1, 5)) {
            assertTrue(Double.parseDouble(line.split(",")[2]) > 0, "bytes written by the replay: " + line);
        }
        String report = Files.readString(out.resolve(ValidationReport.REPORT));
        assertTrue(report.contains("## prefill") && report.contains("## closed-loop") && report.contains("Decisions"), report);
        assertTrue(report.contains("0 mismatched"), report);
        // The report names the code that made it, on a line of its own that tierlab accuracy's Host/Command parsing leaves alone.
        assertTrue(report.lines().anyMatch(l -> l.startsWith("Build: tierlab ") && l.contains(", commit ")), report);
        AccuracyCommand.Run read = AccuracyCommand.read(out.toString());
        assertFalse(read.host().contains("Build") || read.command().contains("Build"), read.toString());
        assertTrue(read.command().startsWith("tierlab validate "), read.command());
        assertTrue(Files.size(out.resolve("ttft-scatter-prefill.png")) > 0);
        assertTrue(Files.size(out.resolve("l2-throughput-closed-loop.png")) > 0);
    }

    @Test
    void anOutputFolderBelowAFileIsOneLineBeforeAnythingIsMeasured() throws IOException {
        Path dir = fixture("below-file");
        Path file = Files.writeString(dir.resolve("plain-file"), "not a folder\n");
        CommandRun run = CommandRun.of(Main.newCommandLine(), "validate", dir.resolve("small.yaml").toString(), "--out",
                file.resolve("out").toString(), "-q");
        assertNotEquals(0, run.exitCode(), run.out() + run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().contains("cannot be created: " + file.toAbsolutePath().normalize() + " is a file, not a folder"), run.err());
        assertTrue(!run.out().contains("live run"), "nothing ran: " + run.out());
    }

    @Test
    void aChartThatFailsCostsNoTable() throws IOException {
        Assumptions.assumeTrue(IoUringBackend.probe().available(), () -> "io_uring unavailable: " + IoUringBackend.probe().cause());
        Path dir = fixture("charts");
        Files.writeString(dir.resolve("small.yaml"), "name: small\nrepeats: 1\nprofile: profile.yaml\n"
                + WORKLOADS.substring(0, WORKLOADS.indexOf("  closed-loop:")));
        ValidateCommand.chartWriter = (chart, png, svg) -> {
            throw new IllegalStateException("Fontconfig head is null");
        };
        Path out = dir.resolve("out");
        CommandRun run = CommandRun.of(Main.newCommandLine(), "validate", dir.resolve("small.yaml").toString(), "--out",
                out.toString(), "-q");
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("chart not written"), run.out());
        assertTrue(Files.readAllLines(out.resolve(ValidationReport.CSV)).size() > 1);
        assertTrue(Files.readString(out.resolve(ValidationReport.REPORT)).contains("Charts that failed"));
        assertFalse(Files.exists(out.resolve("ttft-cdf-prefill.png")));
    }

    @Test
    void aBadFieldIsOneLineAndWritesNothing() throws IOException {
        Path dir = fixture("bad");
        Files.writeString(dir.resolve("bad.yaml"), "name: bad\nprofile: profile.yaml\nworkloads:\n"
                + "  w:\n    workload: {type: long-prefill, model: tiny, prompts: 2, promptTokens: 64}\n"
                + "    store: {l1CapacityGiB: 0.001, l2CapacityGiB: 0.01, l1Capacity: 3}\n");
        Path out = dir.resolve("out");
        CommandRun run = CommandRun.of(Main.newCommandLine(), "validate", dir.resolve("bad.yaml").toString(), "--out",
                out.toString());
        assertNotEquals(0, run.exitCode());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().contains("bad.yaml") && run.err().contains("l1Capacity"), run.err());
        assertFalse(Files.exists(out));
        Files.writeString(dir.resolve("bad.yaml"), "name: bad\nrepeat: 2\nworkloads: {}\n");
        run = CommandRun.of(Main.newCommandLine(), "validate", dir.resolve("bad.yaml").toString(), "--out", out.toString());
        assertNotEquals(0, run.exitCode());
        assertTrue(run.err().contains("repeat") && !run.err().contains("Exception"), run.err());
    }

    @Test
    void theE3ProfileIsTheReferenceHostPlusACopyCallCost() {
        assertReferenceHostPlusCopyCalls("reference-host-calls.yaml", 18_500_000);
    }

    /** The copy-call cost calibrated on E1 with steps that wait for their saves (scheduler.saveTiming: in-step). */
    @Test
    void theInStepE3ProfileIsTheReferenceHostPlusItsOwnCopyCallCost() {
        assertReferenceHostPlusCopyCalls("reference-host-calls-in-step.yaml", 4_500_000);
    }

    private static void assertReferenceHostPlusCopyCalls(String file, long copyCallNs) {
        DeviceProfile reference = DeviceProfile.load(Path.of("catalog", "profiles", "reference-host.yaml"));
        DeviceProfile calls = DeviceProfile.load(Path.of("catalog", "profiles", file));
        assertEquals(reference.nvme(), calls.nvme());
        assertEquals(reference.pcie(), calls.pcie());
        assertEquals(reference.gpu(), calls.gpu());
        assertEquals(reference.host().withModelThread(copyCallNs, 0, 0), calls.host());
        assertFalse(reference.host().chargesModelThread());
    }
}
