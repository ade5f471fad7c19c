package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tierlab.bench.BenchCase;
import tierlab.model.geometry.Geometry;
import tierlab.model.testkit.TestDirectories;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.NvmeProfile;

/**
 * E5 and {@code tierlab validate}'s host calibration obtain their profiles through the one entry
 * point, {@link Calibration}: validate's plan is E5's grid shortened, and the same measured points
 * give both the same fitted NVMe section; the command line's {@code --from-runs} refit goes through
 * it too.
 */
class CalibrationEntryPointTest {

    private static final NvmeProfile TRUTH = new NvmeProfile(8, 64, 80_000, 500e6, 30_000, 300e6, "none");

    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        dir = TestDirectories.underTarget("calibration-entry-");
    }

    @AfterEach
    void deleteDirectory() {
        TestDirectories.deleteRecursively(dir);
    }

    /** A noise-free sweep of {@code grid} by a known drive: one run per point, as validate's single pass has. */
    private static CalibrationSweep.SweepResult sweepOf(CalibrationSettings grid) {
        List<MeasuredPoint> runs = new ArrayList<>();
        for (BenchCase c : grid.toSweep().grid()) {
            NvmeClosedLoop.Prediction p = NvmeClosedLoop.predict(TRUTH, !c.access().write(), c.blockBytes(), c.queueDepth(), 1);
            long ops = 2_000;
            runs.add(new MeasuredPoint(c, 1, ops, ops * c.blockBytes(), Math.round(ops / p.iops() * 1e9), p.iops(),
                    p.iops() * c.blockBytes(), p.meanLatencyNs(), p.p50LatencyNs(), p.p99LatencyNs(), 0));
        }
        return new CalibrationSweep.SweepResult(grid.toSweep(), "synthetic", "generated from " + TRUTH, runs, 0);
    }

    @Test
    void validateAndE5FitTheSameProfileToTheSamePoints() throws IOException {
        Calibration.Plan validate = HostCalibrationSettings.DEFAULTS.plan(dir, Geometry.qwen3_8b(), "v-host", null, false);
        CalibrationSweep.SweepResult sweep = sweepOf(validate.grid());

        // E5 on validate's grid: the experiment's files, written from the entry point's result.
        CalibrationSettings e5Grid = CalibrationSettings.defaults(dir.resolve("unused.bin"))
                .withGrid(validate.grid().blockSizesBytes(), validate.grid().queueDepths()).withProfileName("e5");
        CalibrationSummary e5 = CalibrationExperiment.analyze(dir.resolve("e5"), e5Grid, sweep);
        Calibration.Result host = Calibration.fromSweep(validate, sweep, new PcieCalibration.NotMeasured("none (host buffers)"));

        NvmeProfile fitted = Calibration.fit(sweep).profile();
        assertEquals(fitted, e5.nvme());
        assertEquals(fitted, host.profile().nvme(), "validate's NVMe section is E5's fit of the same points");
        assertEquals(fitted, DeviceProfile.load(e5.profileFile()).nvme());
        assertEquals(e5.calibration().nvme(), host.nvme(), "the same points, predictions and error figures");
        assertEquals(TRUTH.channels(), fitted.channels(), 1);
        assertEquals(TRUTH.readBytesPerSecondPerChannel(), fitted.readBytesPerSecondPerChannel(),
                0.1 * TRUTH.readBytesPerSecondPerChannel());
        // What differs is what the plans ask for beyond the drive: validate's link follows its copy path.
        assertEquals(Calibration.NO_LINK, host.profile().pcie());
        assertEquals("v-host", host.profile().name());
        assertEquals(DeviceProfile.preset("qwen3-8b-h100").gpu(), host.profile().gpu());
        assertTrue(e5.pcieProfile().source().startsWith("preset qwen3-8b-h100's figures: PCIe not measured"),
                e5.pcieProfile().source());
    }

    @Test
    void validatesPlanIsE5sGridShortened() {
        HostCalibrationSettings section = new HostCalibrationSettings(List.of(256, 1024), List.of(1, 8), 150, 64, 500, 2000, 256, 0);
        Calibration.Plan plan = section.plan(dir, Geometry.qwen3_8b(), "v-host", null, true);
        SweepSettings sweep = plan.grid().toSweep();
        SweepSettings e5 = CalibrationSettings.defaults(dir.resolve("e5.bin")).toSweep();
        assertEquals(e5.accesses(), sweep.accesses(), "every access pattern, as E5's grid");
        assertEquals(List.of(256 << 10, 1024 << 10), sweep.blockSizesBytes());
        assertEquals(List.of(1, 8), sweep.queueDepths());
        assertEquals(Duration.ofMillis(150), sweep.durationPerPoint());
        assertEquals(1, sweep.repeats());
        assertEquals(64L << 20, sweep.fileBytes());
        assertTrue(plan.grid().deleteFileAfter(), "the test file goes when the sweep is done");
        assertTrue(plan.grid().file().startsWith(dir), plan.grid().file().toString());
        assertEquals(HostCalibrationSettings.BASE_PROFILE, plan.grid().baseProfile());
        assertInstanceOf(Calibration.PciePlan.HostBuffers.class, plan.pcie(), "no CUDA device: host buffers");
        assertEquals(new Calibration.Sustained(plan.sustained().file(), 256L << 20, 1024 << 10, 8, Duration.ofMillis(2000),
                plan.sustained().seed()), plan.sustained());
        assertEquals(500, plan.hostCosts().budgetMs());
        assertTrue(plan.hostCosts().verify());
        HostCalibrationSettings none = new HostCalibrationSettings(List.of(256, 1024), List.of(1, 8), 150, 64, 500, 0, 256, 0);
        assertNull(none.plan(dir, Geometry.qwen3_8b(), "v", null, false).sustained(), "sustainedMs 0: no sustained measurement");
    }

    @Test
    void aHostReportNeedsTheHostCosts() {
        Calibration.Plan validate = HostCalibrationSettings.DEFAULTS.plan(dir, Geometry.qwen3_8b(), "v-host", null, false);
        Calibration.Result fitted = Calibration.fromSweep(validate, sweepOf(validate.grid()),
                new PcieCalibration.NotMeasured("none (host buffers)"));
        assertEquals("none (host buffers)", HostCalibrationReport.pcieHow(fitted));
        assertThrows(IllegalArgumentException.class, () -> HostCalibrationReport.of(fitted));
    }

    @Test
    void theCommandLineRefitsAnEarlierRunsFileThroughTheEntryPoint() throws IOException {
        CalibrationSettings quick = CalibrationSettings.quick(dir.resolve("unused.bin"));
        CalibrationSummary first = CalibrationExperiment.analyze(dir.resolve("first"), quick, sweepOf(quick));
        Path runsFile = first.outputDirectory().resolve(CalibrationExperiment.RUNS_CSV);

        CalibrationExperiment.Options options = CalibrationExperiment.parse(new String[] {"--quick", "--from-runs",
            runsFile.toString(), "--out", dir.resolve("refit").toString()});
        assertEquals(runsFile, options.fromRuns());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        CalibrationSummary refit = CalibrationExperiment.run(options, new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertTrue(printed.toString(StandardCharsets.UTF_8).startsWith("calibration: refitting 16 runs from " + runsFile),
                printed.toString(StandardCharsets.UTF_8));
        assertEquals("refit", refit.backend());
        // The runs read back fit to the same profile, to the CSV's precision.
        NvmeProfile loaded = DeviceProfile.load(dir.resolve("refit").resolve(CalibrationExperiment.PROFILE_YAML)).nvme();
        assertEquals(refit.nvme(), loaded);
        assertEquals(first.nvme().channels(), loaded.channels());
        assertEquals(first.nvme().readBaseLatencyNs(), loaded.readBaseLatencyNs(), 0.001 * first.nvme().readBaseLatencyNs());
        assertEquals(first.nvme().writeBytesPerSecondPerChannel(), loaded.writeBytesPerSecondPerChannel(),
                0.001 * first.nvme().writeBytesPerSecondPerChannel());
        assertNull(CalibrationExperiment.parse(new String[] {"--help"}), "--help: no options, the usage is printed");
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> CalibrationExperiment.parse(new String[] {"--repeats", "two"}));
        assertEquals("--repeats needs a number, was 'two'", bad.getMessage());
    }

    @Test
    void theCommandLinesFlagsAreReadByPicocli() {
        CalibrationExperiment.Options options = CalibrationExperiment.parse(new String[] {"--quick", "--seconds", "0.25",
            "--repeats=2", "--out", "elsewhere", "--keep-file"});
        assertEquals(0.25, options.settings().secondsPerPoint());
        assertEquals(2, options.settings().repeats());
        assertEquals(Path.of("elsewhere"), options.outputDirectory());
        assertNull(options.fromRuns());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> CalibrationExperiment.parse(new String[] {"--quik"}));
        assertEquals("unknown flag '--quik'", unknown.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> CalibrationExperiment.parse(new String[] {"--out"}));
        assertEquals("--out needs a value", missing.getMessage());
        assertTrue(CalibrationExperiment.usage().contains("--from-runs=F"), CalibrationExperiment.usage());
    }
}
