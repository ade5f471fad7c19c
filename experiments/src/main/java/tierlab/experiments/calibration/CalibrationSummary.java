package tierlab.experiments.calibration;

import java.nio.file.Path;
import java.util.List;
import tierlab.bench.calibration.NvmeFit;
import tierlab.sim.device.PcieProfile;
import tierlab.sim.device.NvmeProfile;

/**
 * What one calibration produced: where the files are, the fitted parameters, and how far the
 * fitted model is from the measurements (relative errors are |model − measured| / measured over
 * the grid's points, each point a median over repeats).
 *
 * @param outputDirectory                 where the files were written
 * @param profileFile                     the fitted device profile ({@code DeviceProfile.load} reads it)
 * @param backend                         the storage port measured ({@code io_uring}, {@code filechannel}, or
 *                                        {@code synthetic} for measurements handed in)
 * @param backendStatus                   how the port opened the file
 * @param points                          grid points
 * @param runs                            measured runs (points × repeats)
 * @param nvme                            the fitted NVMe profile
 * @param fit                             each direction's line and the error by channel count
 * @param medianThroughputRelativeError   over all points
 * @param medianReadThroughputRelativeError  over read points (random and sequential)
 * @param medianWriteThroughputRelativeError over write points
 * @param maxThroughputRelativeError      the worst point
 * @param medianLatencyRelativeError      of the mean latency, over all points
 * @param channelOnlyMedianThroughputRelativeError the same median for the best fit without device-wide
 *                                        ceilings (the plain channel model), to show what the ceilings buy
 * @param sweepWallSeconds                wall time of measuring (0 for measurements handed in)
 * @param chartFailures                   one line per chart that could not be drawn (its file stem and the
 *                                        cause); everything else was written all the same
 * @param pcie                            the PCIe sweep and fit, or why PCIe was not measured
 * @param pcieProfile                     the PCIe section written into the fitted profile (fitted, or the
 *                                        base preset's marked as not measured)
 */
public record CalibrationSummary(Path outputDirectory, Path profileFile, String backend, String backendStatus, int points,
                                 int runs, NvmeProfile nvme, NvmeFit.ClosedLoopFit fit,
                                 double medianThroughputRelativeError, double medianReadThroughputRelativeError,
                                 double medianWriteThroughputRelativeError, double maxThroughputRelativeError,
                                 double medianLatencyRelativeError, double channelOnlyMedianThroughputRelativeError,
                                 double sweepWallSeconds, List<String> chartFailures, PcieCalibration.Outcome pcie,
                                 PcieProfile pcieProfile) {

    public CalibrationSummary {
        chartFailures = List.copyOf(chartFailures);
    }

    CalibrationSummary withChartFailures(List<String> failures) {
        return new CalibrationSummary(outputDirectory, profileFile, backend, backendStatus, points, runs, nvme, fit,
                medianThroughputRelativeError, medianReadThroughputRelativeError, medianWriteThroughputRelativeError,
                maxThroughputRelativeError, medianLatencyRelativeError, channelOnlyMedianThroughputRelativeError,
                sweepWallSeconds, failures, pcie, pcieProfile);
    }

    /** The files every calibration writes into its output directory. */
    public static final List<String> FILES = List.of(CalibrationExperiment.POINTS_CSV, CalibrationExperiment.RUNS_CSV,
            CalibrationExperiment.PROFILE_YAML, CalibrationExperiment.SUMMARY_JSON,
            "throughput-read.png", "throughput-read.svg", "throughput-write.png", "throughput-write.svg",
            "latency-vs-qd-read.png", "latency-vs-qd-read.svg", "latency-vs-qd-write.png", "latency-vs-qd-write.svg",
            PcieCalibration.POINTS_CSV, PcieCalibration.CHART + ".png", PcieCalibration.CHART + ".svg");
}
