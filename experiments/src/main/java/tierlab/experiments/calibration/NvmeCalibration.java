package tierlab.experiments.calibration;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import tierlab.metrics.Percentiles;
import tierlab.sim.device.NvmeProfile;

/**
 * The NVMe model fitted to a sweep, and how far it is from the measurements. The fit is
 * {@link NvmeFit#fitClosedLoop}: channels, base latency and per-channel bandwidth (separately for
 * reads and writes) from every point at once; the prediction runs the model in the same closed loop
 * as the benchmark ({@link NvmeClosedLoop}). Relative errors are |model − measured| / measured over
 * the grid's points, each point a median over repeats.
 *
 * @param fit                                      each direction's line and the error by channel count
 * @param points                                   each grid point, measured and predicted, in grid order
 * @param medianThroughputRelativeError            over all points
 * @param medianReadThroughputRelativeError        over read points (random and sequential)
 * @param medianWriteThroughputRelativeError       over write points
 * @param maxThroughputRelativeError               the worst point
 * @param medianLatencyRelativeError               of the mean latency, over all points
 * @param channelOnlyMedianThroughputRelativeError the same median for the best fit without device-wide
 *                                                 ceilings (the plain channel model), to show what the ceilings buy
 */
public record NvmeCalibration(NvmeFit.ClosedLoopFit fit, List<CalibrationPoint> points, double medianThroughputRelativeError,
                              double medianReadThroughputRelativeError, double medianWriteThroughputRelativeError,
                              double maxThroughputRelativeError, double medianLatencyRelativeError,
                              double channelOnlyMedianThroughputRelativeError) {

    /** Seed of the model's predictions (the fitted profile has no jitter, so it changes nothing today). */
    private static final long PREDICTION_SEED = 1;

    public NvmeCalibration {
        points = List.copyOf(points);
    }

    /** The fitted NVMe section, before any sustained rate lowers its ceilings. */
    public NvmeProfile profile() {
        return fit.profile();
    }

    /** Fits the sweep's medians and predicts each; fails (IllegalArgumentException) on measurements the fit cannot explain. */
    static NvmeCalibration of(CalibrationSweep.SweepResult sweep) {
        List<MeasuredPoint> medians = sweep.medians();
        List<NvmeFit.Measurement> measurements = new ArrayList<>();
        int deepest = 1;
        for (MeasuredPoint p : medians) {
            measurements.add(new NvmeFit.Measurement(p.read(), p.benchCase().blockBytes(), p.benchCase().queueDepth(),
                    p.bytesPerSecond(), p.meanLatencyNs()));
            deepest = Math.max(deepest, p.benchCase().queueDepth());
        }
        NvmeFit.ClosedLoopFit fit = NvmeFit.fitClosedLoop(measurements, Math.max(64, deepest));
        List<CalibrationPoint> points = predict(fit.profile(), medians, sweep.runs());
        double[] all = errors(points, p -> true);
        NvmeFit.ClosedLoopFit channelOnly = NvmeFit.fitClosedLoop(measurements, Math.max(64, deepest), false);
        double channelOnlyError = Percentiles.medianInterpolated(predict(channelOnly.profile(), medians, sweep.runs()).stream()
                .mapToDouble(CalibrationPoint::throughputRelativeError).toArray());
        return new NvmeCalibration(fit, points, Percentiles.medianInterpolated(all),
                Percentiles.medianInterpolated(errors(points, CalibrationPoint::read)),
                Percentiles.medianInterpolated(errors(points, p -> !p.read())), Arrays.stream(all).max().orElse(0),
                Percentiles.medianInterpolated(points.stream().mapToDouble(CalibrationPoint::latencyRelativeError).toArray()),
                channelOnlyError);
    }

    /** Each measured point's prediction by the fitted model, in grid order. */
    static List<CalibrationPoint> predict(NvmeProfile nvme, List<MeasuredPoint> medians, List<MeasuredPoint> runs) {
        List<CalibrationPoint> points = new ArrayList<>();
        for (MeasuredPoint p : medians.stream().sorted(MeasuredPoint.GRID_ORDER).toList()) {
            int repeats = (int) runs.stream().filter(r -> r.benchCase().equals(p.benchCase())).count();
            points.add(new CalibrationPoint(p, repeats, NvmeClosedLoop.predict(nvme, p.read(), p.benchCase().blockBytes(),
                    p.benchCase().queueDepth(), PREDICTION_SEED)));
        }
        return List.copyOf(points);
    }

    private static double[] errors(List<CalibrationPoint> points, Predicate<CalibrationPoint> which) {
        return points.stream().filter(which).mapToDouble(CalibrationPoint::throughputRelativeError).toArray();
    }
}
