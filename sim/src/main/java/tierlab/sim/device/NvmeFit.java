package tierlab.sim.device;

import java.util.List;
import org.apache.commons.math3.stat.regression.SimpleRegression;

/**
 * Fits the NVMe model to measurements of a real device (the calibration experiment runs the live
 * engine's microbenchmark and hands its results here).
 *
 * <p>At queue depth 1 there is no queueing, so a command's latency is its service time:
 * {@code latency = base + bytes / bandwidthPerChannel}, a straight line in the transfer size whose
 * intercept is the base latency and whose slope is 1 / bandwidth (least squares over all QD-1
 * points of one direction). At higher queue depths throughput saturates at
 * {@code channels × bytes / service}: the channel count is the largest such ratio observed,
 * rounded, at least 1.
 */
public final class NvmeFit {

    /** One measured point: direction, transfer size, queue depth, and what was observed. */
    public record Measurement(boolean read, long transferBytes, int queueDepth, double bytesPerSecond, double meanLatencyNs) {
        public Measurement {
            if (transferBytes <= 0 || queueDepth <= 0 || !(bytesPerSecond > 0) || !(meanLatencyNs > 0)) {
                throw new IllegalArgumentException("measurement needs positive size, queue depth, throughput and latency");
            }
        }
    }

    /** The fitted parameters of one direction and how well the line fits (R²). */
    public record DirectionFit(long baseLatencyNs, double bytesPerSecondPerChannel, double rSquared, int channels) {}

    private NvmeFit() {}

    public static DirectionFit fitDirection(List<Measurement> measurements, boolean read) {
        SimpleRegression line = new SimpleRegression();
        for (Measurement m : measurements) {
            if (m.read() == read && m.queueDepth() == 1) {
                line.addData(m.transferBytes(), m.meanLatencyNs());
            }
        }
        if (line.getN() < 2) {
            throw new IllegalArgumentException("calibration needs at least two queue-depth-1 " + (read ? "read" : "write")
                    + " measurements of different sizes");
        }
        double slopeNsPerByte = line.getSlope();
        if (!(slopeNsPerByte > 0)) {
            throw new IllegalArgumentException("calibration: " + (read ? "read" : "write")
                    + " latency does not grow with transfer size (slope " + slopeNsPerByte + " ns/B); measure larger transfers");
        }
        long base = Math.max(0, Math.round(line.getIntercept()));
        double bandwidth = 1e9 / slopeNsPerByte;
        double maxParallelism = 1;
        for (Measurement m : measurements) {
            if (m.read() == read) {
                double serviceNs = base + m.transferBytes() / bandwidth * 1e9;
                double inService = m.bytesPerSecond() * serviceNs / 1e9 / m.transferBytes();
                maxParallelism = Math.max(maxParallelism, Math.min(inService, m.queueDepth()));
            }
        }
        return new DirectionFit(base, bandwidth, line.getRSquare(), (int) Math.max(1, Math.round(maxParallelism)));
    }

    /** A full NVMe profile from read and write measurements. */
    public static NvmeProfile fit(List<Measurement> measurements, int queueDepth) {
        DirectionFit read = fitDirection(measurements, true);
        DirectionFit write = fitDirection(measurements, false);
        int channels = Math.max(read.channels(), write.channels());
        return new NvmeProfile(channels, queueDepth, read.baseLatencyNs(), read.bytesPerSecondPerChannel(),
                write.baseLatencyNs(), write.bytesPerSecondPerChannel(), "none");
    }
}
