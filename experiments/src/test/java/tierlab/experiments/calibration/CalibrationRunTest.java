package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tierlab.engine.cuda.CudaDevice;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.PcieProfile;

/** {@code kind: calibration} through {@code tierlab run}: a tiny real measurement, the fit, the report, a loadable profile. */
class CalibrationRunTest {

    @TempDir
    Path folder;

    @Test
    void aTinyCalibrationWritesAFittedProfileThatAnotherExperimentCanName() throws IOException {
        Path file = folder.resolve("cal.yaml");
        Files.writeString(file, """
                name: cal
                kind: calibration
                calibration: {accesses: [randread, randwrite], blockSizesKiB: [4, 1024], queueDepths: [1, 4],
                              secondsPerPoint: 0.1, repeats: 1, fileMiB: 32}
                """);
        // The output sits in the build folder: the test file beside it needs O_DIRECT, which tmpfs refuses.
        Path out = Path.of("target", "calibration-run-test", "cal");
        CommandRun run = CommandRun.of(Main.newCommandLine(), "run", file.toString(), "--out", out.toString(), "-q");
        assertEquals(0, run.exitCode(), run.err() + run.out());
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        CudaDevice gpu = CudaDevice.probe();
        for (String name : CalibrationRun.ownedFiles()) {
            // The PCIe chart exists only where PCIe was measured (a host with CUDA).
            if (gpu.available() || !name.startsWith(PcieCalibration.CHART)) {
                assertTrue(Files.size(out.resolve(name)) > 0, name);
            } else {
                assertFalse(Files.exists(out.resolve(name)), name);
            }
        }
        PcieProfile pcie = DeviceProfile.load(out.resolve(CalibrationExperiment.PROFILE_YAML)).pcie();
        String report = Files.readString(out.resolve("report.md"));
        if (gpu.available()) {
            assertTrue(pcie.source().startsWith("measured by tierlab E5 through CUDA on "), pcie.source());
            assertTrue(report.contains("![pcie-throughput](pcie-throughput.png)"), report);
        } else {
            // No CUDA here: the run says why, and the profile keeps the preset's figures, marked as such.
            assertEquals("preset qwen3-8b-h100's figures: PCIe not measured: " + gpu.description(), pcie.source());
            assertEquals(preset.pcie().withSource(pcie.source()), pcie);
            assertTrue(report.contains("**PCIe not measured: " + gpu.description() + "**"), report);
            assertTrue(run.out().contains("PCIe not measured: " + gpu.description()), run.out());
            assertEquals(0, Table.read().csv(out.resolve(PcieCalibration.POINTS_CSV).toFile()).rowCount());
        }
        Table points = Table.read().csv(out.resolve(CalibrationExperiment.POINTS_CSV).toFile());
        assertEquals(8, points.rowCount(), "2 patterns x 2 sizes x 2 depths");
        DeviceProfile fitted = DeviceProfile.load(out.resolve(CalibrationExperiment.PROFILE_YAML));
        assertTrue(fitted.nvme().channels() >= 1);
        assertTrue(report.contains("## The fitted profile") && report.contains("throughput-read.png"), report);
        assertFalse(Files.exists(out.getParent().resolve(".cal.scratch")), "the test file and its folder are removed");

        // The profile is a device any experiment can name.
        Path experiment = folder.resolve("uses-profile.yaml");
        Files.writeString(experiment, """
                name: uses-profile
                device: %s
                workload: {type: long-prefill, prompts: 4, promptTokens: 400}
                store: {l1CapacityGiB: 0.1, l2CapacityGiB: 1}
                """.formatted(out.resolve(CalibrationExperiment.PROFILE_YAML).toAbsolutePath()));
        CommandRun second = CommandRun.of(Main.newCommandLine(), "run", experiment.toString(), "--out",
                folder.resolve("out/uses").toString(), "-q");
        assertEquals(0, second.exitCode(), second.err());
    }

    @Test
    void aBadCalibrationFieldIsNamed() throws IOException {
        Path file = folder.resolve("cal.yaml");
        Files.writeString(file, """
                name: cal
                kind: calibration
                calibration: {accesses: [randomread]}
                """);
        CommandRun run = CommandRun.of(Main.newCommandLine(), "run", file.toString(), "--out", folder.resolve("out/cal").toString());
        assertEquals(1, run.exitCode());
        assertTrue(run.err().contains("calibration.accesses") && run.err().contains("randomread"), run.err());
        assertFalse(Files.exists(folder.resolve("out")));
    }
}
