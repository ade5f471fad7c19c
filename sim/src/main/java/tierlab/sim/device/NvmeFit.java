package tierlab.sim.device;

import java.util.ArrayList;
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
 *
 * <p>{@link #fitClosedLoop} uses every point instead, whatever its queue depth. In a closed loop of
 * {@code q} commands on {@code c} channels with service time {@code S = base + bytes / bandwidth},
 * the channels are never idle once {@code q ≥ c}, so the model's steady state is exactly
 * <pre>
 *   IOPS(q, bytes)   = min(q, c) / S(bytes)
 *   latency(q, bytes) = q / IOPS = S(bytes) × max(1, q / c)          (Little's law)
 * </pre>
 * For a fixed {@code c}, each measurement gives an "effective service time" {@code y = min(q, c) / IOPS},
 * and {@code y = base + bytes × (1 / bandwidth)} is linear in the two unknowns: a least-squares line
 * weighted by {@code 1 / y²} (so every point counts by its relative error, and 4 KiB points are not
 * drowned by 2 MiB ones). The channel count is the integer in {@code 1..max q} whose two lines
 * (read and write share the channels) leave the smallest squared log error of throughput over all
 * points; beyond the deepest measured queue more channels change no prediction, so the search stops there.
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

    /**
     * The closed-loop fit of one direction at the chosen channel count.
     *
     * @param points             measurements of this direction used
     * @param rmsLogError        root-mean-square of ln(model throughput / measured throughput) over them
     */
    public record LineFit(long baseLatencyNs, double bytesPerSecondPerChannel, int points, double rmsLogError) {}

    /**
     * The closed-loop fit: the profile, each direction's line, and the error over all points.
     *
     * @param rmsLogError root-mean-square of ln(model / measured throughput) over every point
     * @param errorByChannels the same error for every candidate channel count (index 0 = 1 channel),
     *                        so a report can show how sharply the count is determined
     */
    public record ClosedLoopFit(NvmeProfile profile, LineFit read, LineFit write, int channels, double rmsLogError,
                                List<Double> errorByChannels) {}

    /**
     * Fits channels, base latencies and per-channel bandwidths to measurements at any queue depths
     * (see the class comment). Both directions need points at two or more transfer sizes.
     *
     * @param queueDepth the profile's device queue depth; at least the fitted channel count is kept
     */
    public static ClosedLoopFit fitClosedLoop(List<Measurement> measurements, int queueDepth) {
        if (queueDepth < 1) {
            throw new IllegalArgumentException("calibration: queueDepth must be >= 1, was " + queueDepth);
        }
        List<Measurement> reads = new ArrayList<>();
        List<Measurement> writes = new ArrayList<>();
        int deepest = 1;
        for (Measurement m : measurements) {
            (m.read() ? reads : writes).add(m);
            deepest = Math.max(deepest, m.queueDepth());
        }
        requireTwoSizes(reads, "read");
        requireTwoSizes(writes, "write");
        List<Double> errorByChannels = new ArrayList<>();
        int bestChannels = 0;
        double bestSquaredError = Double.POSITIVE_INFINITY;
        for (int channels = 1; channels <= deepest; channels++) {
            double squaredError = squaredLogError(reads, channels, line(reads, channels))
                    + squaredLogError(writes, channels, line(writes, channels));
            errorByChannels.add(Math.sqrt(squaredError / (reads.size() + writes.size())));
            // Strictly smaller: on a tie the fewer channels win (the simpler device explains the data as well).
            if (squaredError < bestSquaredError) {
                bestSquaredError = squaredError;
                bestChannels = channels;
            }
        }
        double[] readLine = line(reads, bestChannels);
        double[] writeLine = line(writes, bestChannels);
        LineFit read = lineFit(reads, bestChannels, readLine);
        LineFit write = lineFit(writes, bestChannels, writeLine);
        NvmeProfile profile = new NvmeProfile(bestChannels, Math.max(queueDepth, bestChannels), read.baseLatencyNs(),
                read.bytesPerSecondPerChannel(), write.baseLatencyNs(), write.bytesPerSecondPerChannel(), "none");
        return new ClosedLoopFit(profile, read, write, bestChannels, Math.sqrt(bestSquaredError / (reads.size() + writes.size())),
                List.copyOf(errorByChannels));
    }

    private static void requireTwoSizes(List<Measurement> points, String direction) {
        if (points.stream().mapToLong(Measurement::transferBytes).distinct().count() < 2) {
            throw new IllegalArgumentException("calibration needs " + direction
                    + " measurements at two or more transfer sizes, had " + points.size() + " point(s)");
        }
    }

    /** Effective service time of a measurement at {@code channels}: min(q, c) / IOPS, in ns. */
    private static double effectiveServiceNs(Measurement m, int channels) {
        double iops = m.bytesPerSecond() / m.transferBytes();
        return Math.min(m.queueDepth(), channels) / iops * 1e9;
    }

    /**
     * {base ns, ns per byte}: least squares of y = base + k × bytes weighted by 1 / y², with base ≥ 0
     * (a negative intercept is noise around a device with no fixed cost: refit through the origin).
     */
    private static double[] line(List<Measurement> points, int channels) {
        double sw = 0;
        double swx = 0;
        double swxx = 0;
        double swy = 0;
        double swxy = 0;
        for (Measurement m : points) {
            double x = m.transferBytes();
            double y = effectiveServiceNs(m, channels);
            double w = 1 / (y * y);
            sw += w;
            swx += w * x;
            swxx += w * x * x;
            swy += w * y;
            swxy += w * x * y;
        }
        double determinant = sw * swxx - swx * swx;
        double base = (swxx * swy - swx * swxy) / determinant;
        double slope = (sw * swxy - swx * swy) / determinant;
        if (!(base >= 0)) {
            base = 0;
            slope = swxy / swxx;
        }
        if (!(slope > 0)) {
            throw new IllegalArgumentException("calibration: the time per " + (points.getFirst().read() ? "read" : "write")
                    + " does not grow with transfer size (slope " + slope + " ns/B); measure larger transfers");
        }
        return new double[] {base, slope};
    }

    private static double squaredLogError(List<Measurement> points, int channels, double[] line) {
        double sum = 0;
        for (Measurement m : points) {
            double error = Math.log(effectiveServiceNs(m, channels) / (line[0] + line[1] * m.transferBytes()));
            sum += error * error;
        }
        return sum;
    }

    private static LineFit lineFit(List<Measurement> points, int channels, double[] line) {
        // Whole bytes per second: the profile file then holds exactly the fitted values (no float formatting).
        return new LineFit(Math.round(line[0]), Math.max(1, Math.round(1e9 / line[1])), points.size(),
                Math.sqrt(squaredLogError(points, channels, line) / points.size()));
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
