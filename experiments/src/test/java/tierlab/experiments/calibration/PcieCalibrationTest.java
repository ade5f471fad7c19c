package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;
import tierlab.bench.BenchCase;
import tierlab.experiments.ChartFiles;
import tierlab.model.testkit.TestDirectories;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.NvmeProfile;
import tierlab.sim.device.PcieProfile;

/**
 * E5's PCIe part with measurements handed in: a sweep generated from a known copy engine is fitted
 * into the profile's PCIe section, tabled and charted; without measurements the profile keeps the
 * preset's figures and says why.
 */
class PcieCalibrationTest {

    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        dir = TestDirectories.underTarget("pcie-calibration-");
    }

    @AfterEach
    void deleteDirectory() {
        TestDirectories.deleteRecursively(dir);
    }

    /** A noise-free NVMe sweep of the E5 grid (the NVMe part is not under test here). */
    private static CalibrationSweep.SweepResult nvmeSweep(CalibrationSettings settings) {
        NvmeProfile truth = new NvmeProfile(10, 64, 90_000, 450e6, 35_000, 280e6, "none");
        List<MeasuredPoint> runs = new ArrayList<>();
        for (BenchCase c : settings.toSweep().grid()) {
            NvmeClosedLoop.Prediction p = NvmeClosedLoop.predict(truth, !c.access().write(), c.blockBytes(), c.queueDepth(), 1);
            long ops = 1_000;
            runs.add(new MeasuredPoint(c, 1, ops, ops * c.blockBytes(), Math.round(ops / p.iops() * 1e9), p.iops(),
                    p.iops() * c.blockBytes(), p.meanLatencyNs(), p.p50LatencyNs(), p.p99LatencyNs(), 0));
        }
        return new CalibrationSweep.SweepResult(settings.toSweep(), "synthetic", "generated", runs, 0);
    }

    /** Copies on an engine of {@code latencyNs + bytes / bytesPerNs}; more streams overlap the latency. */
    private static List<PcieSweep.Point> sweep(double h2dLatencyNs, double h2dBytesPerNs, double d2hLatencyNs, double d2hBytesPerNs) {
        List<PcieSweep.Point> points = new ArrayList<>();
        for (PcieSweep.Direction direction : PcieSweep.Direction.values()) {
            double latency = direction == PcieSweep.Direction.H2D ? h2dLatencyNs : d2hLatencyNs;
            double rate = direction == PcieSweep.Direction.H2D ? h2dBytesPerNs : d2hBytesPerNs;
            for (long size : PcieSweep.Settings.defaults().copySizesBytes()) {
                for (int streams = 1; streams <= 4; streams++) {
                    double ns = latency / streams + size / rate;
                    int copies = 100;
                    double bytesPerSecond = size / ns * 1e9;
                    points.add(new PcieSweep.Point(direction, size, streams, true, copies, copies * ns / 1e9, bytesPerSecond, ns,
                            bytesPerSecond, bytesPerSecond));
                }
            }
            double pageableNs = 10_000 + (64L << 20) / 6.5;
            points.add(new PcieSweep.Point(direction, 64L << 20, 1, false, 16, 16 * pageableNs / 1e9, (64L << 20) / pageableNs * 1e9,
                    pageableNs, 0, 0));
        }
        return points;
    }

    @Test
    void aMeasuredSweepIsFittedIntoTheProfileTabledAndCharted() throws IOException {
        CalibrationSettings settings = CalibrationSettings.defaults(dir.resolve("unused.bin")).withProfileName("gpu-host");
        // H2D 2.5 µs + 55 GB/s, D2H 3 µs + 52 GB/s: what the H200 host's torch figures suggest.
        PcieCalibration.Measured measured = new PcieCalibration.Measured("Fake H200 (device 0 of 1)", sweep(2_500, 55, 3_000, 52),
                PcieFit.fit(sweep(2_500, 55, 3_000, 52)), null);
        CalibrationSummary summary = CalibrationExperiment.analyze(dir.resolve("out"), settings, nvmeSweep(settings), measured,
                ChartFiles.FILES);

        PcieProfile pcie = DeviceProfile.load(summary.profileFile()).pcie();
        assertEquals(55e9, pcie.h2dBytesPerSecond(), 55e9 * 1e-6);
        assertEquals(2_500, pcie.h2dLatencyNs());
        assertEquals(52e9, pcie.d2hBytesPerSecond(), 52e9 * 1e-6);
        assertEquals(3_000, pcie.d2hLatencyNs());
        assertTrue(pcie.source().startsWith("measured by tierlab E5 through CUDA on Fake H200 (device 0 of 1), "), pcie.source());
        assertTrue(pcie.source().endsWith(": one stream per direction, copies of 64 KiB to 64 MiB from pinned memory"), pcie.source());
        assertEquals(DeviceProfile.preset("qwen3-8b-h100").gpu(), DeviceProfile.load(summary.profileFile()).gpu());
        for (String name : CalibrationSummary.FILES) {
            assertTrue(Files.size(summary.outputDirectory().resolve(name)) > 0, name);
        }
        Table table = Table.read().csv(summary.outputDirectory().resolve(PcieCalibration.POINTS_CSV).toFile());
        assertEquals(2 * (7 * 4 + 1), table.rowCount());
        String header = Files.readString(summary.profileFile());
        assertTrue(header.contains("# PCIe fitted on Fake H200 (device 0 of 1): H2D: 55.00 GB/s, latency 2.5 µs"), header);
        JsonNode json = new ObjectMapper().readTree(summary.outputDirectory().resolve(CalibrationExperiment.SUMMARY_JSON).toFile());
        assertTrue(json.path("pcie").path("measured").asBoolean());
        String section = PcieCalibration.reportSection(summary.pcie(), summary.pcieProfile(), summary.chartFailures());
        assertTrue(section.contains("- H2D: 55.00 GB/s, latency 2.5 µs"), section);
        assertTrue(section.contains("| D2H, pinned: GB/s (median) | 1 stream | 2 streams | 3 streams | 4 streams |"), section);
        assertTrue(section.contains("![pcie-throughput](pcie-throughput.png)"), section);
        assertTrue(CalibrationExperiment.describe(summary).contains("PCIe fitted on Fake H200"), CalibrationExperiment.describe(summary));
    }

    @Test
    void withoutMeasurementsTheProfileKeepsThePresetAndSaysWhy() throws IOException {
        CalibrationSettings settings = CalibrationSettings.defaults(dir.resolve("unused.bin"));
        PcieCalibration.NotMeasured none = new PcieCalibration.NotMeasured("no libcudart here");
        CalibrationSummary summary = CalibrationExperiment.analyze(dir.resolve("out"), settings, nvmeSweep(settings), none,
                ChartFiles.FILES);

        PcieProfile preset = DeviceProfile.preset("qwen3-8b-h100").pcie();
        PcieProfile written = DeviceProfile.load(summary.profileFile()).pcie();
        assertEquals(preset.withSource("preset qwen3-8b-h100's figures: PCIe not measured: no libcudart here"), written);
        assertNull(preset.source(), "the bundled preset states no source");
        assertEquals("PCIe not measured: no libcudart here", PcieCalibration.describe(summary.pcie()));
        assertTrue(Files.readString(summary.profileFile()).contains("# PCIe not measured: no libcudart here"));
        assertEquals(0, Table.read().csv(summary.outputDirectory().resolve(PcieCalibration.POINTS_CSV).toFile()).rowCount());
        assertTrue(!Files.exists(summary.outputDirectory().resolve(PcieCalibration.CHART + ".png")), "nothing to draw");
        String section = PcieCalibration.reportSection(summary.pcie(), summary.pcieProfile(), summary.chartFailures());
        assertTrue(section.startsWith("## PCIe\n\n**PCIe not measured: no libcudart here**"), section);
    }

    @Test
    void aSweepThatCannotBeFittedKeepsThePresetToo() {
        PcieProfile preset = DeviceProfile.preset("qwen3-8b-h100").pcie();
        PcieCalibration.Measured unfitted = new PcieCalibration.Measured("Fake GPU", List.of(), null, "H2D: too few points");
        PcieProfile profile = PcieCalibration.profile(unfitted, preset, "qwen3-8b-h100");
        assertEquals(preset.h2dBytesPerSecond(), profile.h2dBytesPerSecond());
        assertEquals("preset qwen3-8b-h100's figures: PCIe measured but not fitted: H2D: too few points", profile.source());
    }
}
