package tierlab.experiments.calibration;


/**
 * One grid point: what the device did (medians over repeats) and what the fitted model predicts
 * for the same closed loop.
 *
 * @param repeats how many runs the measured medians come from
 */
public record CalibrationPoint(MeasuredPoint measured, int repeats, NvmeClosedLoop.Prediction model) {

    /** |model − measured| / measured of throughput (bytes per second; the same ratio as IOPS). */
    public double throughputRelativeError() {
        return Math.abs(model.bytesPerSecond() - measured.bytesPerSecond()) / measured.bytesPerSecond();
    }

    /** |model − measured| / measured of the mean latency. */
    public double latencyRelativeError() {
        return Math.abs(model.meanLatencyNs() - measured.meanLatencyNs()) / measured.meanLatencyNs();
    }

    public boolean read() {
        return measured.read();
    }
}
