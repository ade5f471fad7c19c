package tierlab.experiments.calibration;

import java.nio.file.Path;
import java.util.List;
import tierlab.sim.device.NvmeProfile;
import tierlab.sim.device.PcieProfile;

/**
 * What one E5 calibration produced: where its files are, the {@link Calibration.Result} they were
 * written from, and the charts that could not be drawn. The accessors below read the result, so a
 * report asks one object.
 *
 * @param outputDirectory where the files were written
 * @param profileFile     the fitted device profile ({@code DeviceProfile.load} reads it)
 * @param calibration     the fitted profile and what it came from
 * @param chartFailures   one line per chart that could not be drawn (its file stem and the cause);
 *                        everything else was written all the same
 */
public record CalibrationSummary(Path outputDirectory, Path profileFile, Calibration.Result calibration,
                                 List<String> chartFailures) {

    /** The files every calibration writes into its output directory. */
    public static final List<String> FILES = List.of(CalibrationExperiment.POINTS_CSV, CalibrationExperiment.RUNS_CSV,
            CalibrationExperiment.PROFILE_YAML, CalibrationExperiment.SUMMARY_JSON,
            "throughput-read.png", "throughput-read.svg", "throughput-write.png", "throughput-write.svg",
            "latency-vs-qd-read.png", "latency-vs-qd-read.svg", "latency-vs-qd-write.png", "latency-vs-qd-write.svg",
            PcieCalibration.POINTS_CSV, PcieCalibration.CHART + ".png", PcieCalibration.CHART + ".svg");

    public CalibrationSummary {
        chartFailures = List.copyOf(chartFailures);
    }

    /** The storage port measured ({@code io_uring}, {@code filechannel}, or a name for measurements handed in). */
    public String backend() {
        return calibration.sweep().backendName();
    }

    /** How the port opened the file. */
    public String backendStatus() {
        return calibration.sweep().backendStatus();
    }

    /** Grid points. */
    public int points() {
        return calibration.nvme().points().size();
    }

    /** Measured runs (points × repeats). */
    public int runs() {
        return calibration.sweep().runs().size();
    }

    /** The fitted NVMe section as the profile holds it. */
    public NvmeProfile nvme() {
        return calibration.profile().nvme();
    }

    public NvmeFit.ClosedLoopFit fit() {
        return calibration.nvme().fit();
    }

    public double medianThroughputRelativeError() {
        return calibration.nvme().medianThroughputRelativeError();
    }

    public double medianReadThroughputRelativeError() {
        return calibration.nvme().medianReadThroughputRelativeError();
    }

    public double medianWriteThroughputRelativeError() {
        return calibration.nvme().medianWriteThroughputRelativeError();
    }

    public double maxThroughputRelativeError() {
        return calibration.nvme().maxThroughputRelativeError();
    }

    public double medianLatencyRelativeError() {
        return calibration.nvme().medianLatencyRelativeError();
    }

    public double channelOnlyMedianThroughputRelativeError() {
        return calibration.nvme().channelOnlyMedianThroughputRelativeError();
    }

    /** Wall time of measuring the NVMe grid (0 for measurements handed in). */
    public double sweepWallSeconds() {
        return calibration.sweep().wallNs() / 1e9;
    }

    /** The PCIe sweep and fit, or why PCIe was not measured. */
    public PcieCalibration.Outcome pcie() {
        return calibration.pcie();
    }

    /** The PCIe section written into the fitted profile (fitted, or the base preset's marked as not measured). */
    public PcieProfile pcieProfile() {
        return calibration.profile().pcie();
    }
}
