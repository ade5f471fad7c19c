package tierlab.experiments.calibration;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.commons.math3.exception.TooManyEvaluationsException;
import org.apache.commons.math3.optim.InitialGuess;
import org.apache.commons.math3.optim.MaxEval;
import org.apache.commons.math3.optim.PointValuePair;
import org.apache.commons.math3.optim.nonlinear.scalar.GoalType;
import org.apache.commons.math3.optim.nonlinear.scalar.ObjectiveFunction;
import org.apache.commons.math3.optim.nonlinear.scalar.noderiv.NelderMeadSimplex;
import org.apache.commons.math3.optim.nonlinear.scalar.noderiv.SimplexOptimizer;
import org.apache.commons.math3.stat.regression.SimpleRegression;
import tierlab.sim.device.NvmeProfile;

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
 * drowned by 2 MiB ones) gives a start, which a Nelder–Mead search then refines to the least squared
 * log error of throughput, together with the optional device-wide ceiling ({@code IOPS ≤ ceiling /
 * bytes}). The channel count is the integer in {@code 1..max q} whose fits (read and write share the
 * channels) leave the smallest squared log error over all points; beyond the deepest measured queue
 * more channels change no prediction, so the search stops there.
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
        long base = Math.round(FitWarnings.atLeastZero("nvme." + (read ? "read" : "write") + "BaseLatencyNs (queue-depth-1 line)",
                line.getIntercept()));
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
     * @param maxBytesPerSecond the device-wide ceiling, 0 when none was fitted or it binds at no measured point
     * @param points            measurements of this direction used
     * @param rmsLogError       root-mean-square of ln(model throughput / measured throughput) over them
     */
    public record LineFit(long baseLatencyNs, double bytesPerSecondPerChannel, double maxBytesPerSecond, int points,
                          double rmsLogError) {}

    /**
     * The closed-loop fit: the profile, each direction's parameters, and the error over all points.
     *
     * @param rmsLogError     root-mean-square of ln(model / measured throughput) over every point
     * @param errorByChannels the same error for every candidate channel count (index 0 = 1 channel),
     *                        so a report can show how sharply the count is determined
     */
    public record ClosedLoopFit(NvmeProfile profile, LineFit read, LineFit write, int channels, double rmsLogError,
                                List<Double> errorByChannels) {}

    /** {@link #fitClosedLoop(List, int, boolean)} with device-wide ceilings. */
    public static ClosedLoopFit fitClosedLoop(List<Measurement> measurements, int queueDepth) {
        return fitClosedLoop(measurements, queueDepth, true);
    }

    /**
     * Fits channels, base latencies and per-channel bandwidths (and, with {@code ceilings}, each
     * direction's device-wide ceiling) to measurements at any queue depths; see the class comment.
     * Both directions need points at two or more transfer sizes.
     *
     * <p>The model's closed-loop throughput is {@code min(min(q, c) / (base + k × bytes), ceiling / bytes)}
     * operations per second (the bottleneck of the channels and the link). For each channel count the
     * weighted line gives a start, then a Nelder–Mead search over the logarithms of base, k and the
     * ceiling minimises the squared log error of throughput directly (the line alone cannot express
     * the ceiling, and weights only approximate a log error). Everything is deterministic.
     *
     * @param queueDepth the profile's device queue depth; at least the fitted channel count is kept
     */
    public static ClosedLoopFit fitClosedLoop(List<Measurement> measurements, int queueDepth, boolean ceilings) {
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
        LineFit bestRead = null;
        LineFit bestWrite = null;
        for (int channels = 1; channels <= deepest; channels++) {
            LineFit read = fitDirection(reads, channels, ceilings);
            LineFit write = fitDirection(writes, channels, ceilings);
            double squaredError = squaredLogError(reads, channels, read) + squaredLogError(writes, channels, write);
            errorByChannels.add(Math.sqrt(squaredError / (reads.size() + writes.size())));
            // Strictly smaller: on a tie the fewer channels win (the simpler device explains the data as well).
            if (squaredError < bestSquaredError) {
                bestSquaredError = squaredError;
                bestChannels = channels;
                bestRead = read;
                bestWrite = write;
            }
        }
        NvmeProfile profile = new NvmeProfile(bestChannels, Math.max(queueDepth, bestChannels), bestRead.baseLatencyNs(),
                bestRead.bytesPerSecondPerChannel(), bestWrite.baseLatencyNs(), bestWrite.bytesPerSecondPerChannel(), "none",
                bestRead.maxBytesPerSecond(), bestWrite.maxBytesPerSecond());
        return new ClosedLoopFit(profile, bestRead, bestWrite, bestChannels,
                Math.sqrt(bestSquaredError / (reads.size() + writes.size())), List.copyOf(errorByChannels));
    }

    /**
     * The model's closed-loop operations per second at queue depth {@code q} (the steady state of
     * {@link tierlab.sim.device.NvmeModel} in a closed loop; {@link NvmeClosedLoop} simulates it).
     */
    public static double closedLoopIops(NvmeProfile profile, boolean read, long transferBytes, int queueDepth) {
        double base = read ? profile.readBaseLatencyNs() : profile.writeBaseLatencyNs();
        double bandwidth = read ? profile.readBytesPerSecondPerChannel() : profile.writeBytesPerSecondPerChannel();
        double ceiling = read ? profile.maxReadBytesPerSecond() : profile.maxWriteBytesPerSecond();
        return iops(base, 1e9 / bandwidth, ceiling, Math.min(queueDepth, profile.parallelism()), transferBytes);
    }

    private static double iops(double baseNs, double nsPerByte, double ceilingBytesPerSecond, int busyChannels, long bytes) {
        double channelIops = busyChannels * 1e9 / (baseNs + nsPerByte * bytes);
        return ceilingBytesPerSecond > 0 ? Math.min(channelIops, ceilingBytesPerSecond / bytes) : channelIops;
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

    /** How much a device-wide ceiling must lower a direction's rms log error to be kept (0.5% of throughput). */
    static final double CEILING_MIN_GAIN = 0.005;

    /** One direction at a fixed channel count: the line, then a log-error search from it (see fitClosedLoop). */
    private static LineFit fitDirection(List<Measurement> points, int channels, boolean ceilings) {
        double[] line = line(points, channels);
        double maxMeasured = points.stream().mapToDouble(Measurement::bytesPerSecond).max().orElseThrow();
        // ln of: base (at least 100 ns, so its logarithm exists), ns per byte, ceiling (start it above every measurement).
        double[] start = {Math.log(Math.max(line[0], 100)), Math.log(line[1]), Math.log(4 * maxMeasured)};
        double[] best = search(points, channels, ceilings, start);
        if (ceilings) {
            // A second start with the ceiling at the best measured throughput: the search does not always find
            // a binding ceiling from far above it, where the error surface is flat.
            double[] other = search(points, channels, true, new double[] {best[0], best[1], Math.log(maxMeasured)});
            if (logError(points, channels, other, true) < logError(points, channels, best, true)) {
                best = other;
            }
        }
        if (ceilings) {
            // A ceiling must earn its place: when the plain channel model fits as well (rms log error within
            // CEILING_MIN_GAIN), the simpler device wins, as fewer channels do on a tie.
            double[] plain = search(points, channels, false, start);
            double plainRms = Math.sqrt(logError(points, channels, plain, false) / points.size());
            double cappedRms = Math.sqrt(logError(points, channels, best, true) / points.size());
            if (plainRms <= cappedRms + CEILING_MIN_GAIN) {
                return finish(points, channels, plain, false);
            }
        }
        return finish(points, channels, best, ceilings);
    }

    /** The rounded parameters of a search result, and their error. */
    private static LineFit finish(List<Measurement> points, int channels, double[] best, boolean ceilings) {
        long baseNs = Math.round(Math.exp(best[0]));
        // Whole bytes per second: the profile file then holds exactly the fitted values (no float formatting).
        double bandwidth = Math.max(1, Math.round(1e9 / Math.exp(best[1])));
        double ceiling = ceilings ? Math.round(Math.exp(best[2])) : 0;
        if (ceiling > 0 && !binds(points, channels, baseNs, 1e9 / bandwidth, ceiling)) {
            ceiling = 0;
        }
        LineFit fit = new LineFit(baseNs, bandwidth, ceiling, points.size(), 0);
        return new LineFit(baseNs, bandwidth, ceiling, points.size(), Math.sqrt(squaredLogError(points, channels, fit) / points.size()));
    }

    private static double[] search(List<Measurement> points, int channels, boolean ceilings, double[] start) {
        double[] initial = ceilings ? start : new double[] {start[0], start[1]};
        double[] steps = new double[initial.length];
        Arrays.fill(steps, 0.3);
        try {
            PointValuePair result = new SimplexOptimizer(1e-12, 1e-14).optimize(
                    new MaxEval(20_000),
                    new ObjectiveFunction(theta -> logError(points, channels, theta, ceilings)),
                    GoalType.MINIMIZE,
                    new InitialGuess(initial),
                    new NelderMeadSimplex(steps));
            double[] found = result.getPoint();
            return ceilings ? found : new double[] {found[0], found[1], Double.NaN};
        } catch (TooManyEvaluationsException e) {
            // Not converged to 1e-12 within the budget: the start (a least-squares line) is still a valid fit, said so.
            FitWarnings.warn(String.format(java.util.Locale.ROOT, "NVMe closed-loop fit at %d channels%s did not converge within"
                    + " %,d evaluations: the least-squares start is kept", channels, ceilings ? " with a ceiling" : "", 20_000));
            return ceilings ? start : new double[] {start[0], start[1], Double.NaN};
        }
    }

    /** Sum of squared ln(model / measured throughput) at parameters {ln base, ln k[, ln ceiling]}. */
    private static double logError(List<Measurement> points, int channels, double[] theta, boolean ceilings) {
        double base = Math.exp(theta[0]);
        double nsPerByte = Math.exp(theta[1]);
        double ceiling = ceilings ? Math.exp(theta[2]) : 0;
        double sum = 0;
        for (Measurement m : points) {
            double model = iops(base, nsPerByte, ceiling, Math.min(m.queueDepth(), channels), m.transferBytes());
            double error = Math.log(model * m.transferBytes() / m.bytesPerSecond());
            sum += error * error;
        }
        return sum;
    }

    private static boolean binds(List<Measurement> points, int channels, double baseNs, double nsPerByte, double ceiling) {
        for (Measurement m : points) {
            double channelIops = Math.min(m.queueDepth(), channels) * 1e9 / (baseNs + nsPerByte * m.transferBytes());
            if (ceiling / m.transferBytes() < channelIops) {
                return true;
            }
        }
        return false;
    }

    private static double squaredLogError(List<Measurement> points, int channels, LineFit fit) {
        double sum = 0;
        for (Measurement m : points) {
            double model = iops(fit.baseLatencyNs(), 1e9 / fit.bytesPerSecondPerChannel(), fit.maxBytesPerSecond(),
                    Math.min(m.queueDepth(), channels), m.transferBytes());
            double error = Math.log(model * m.transferBytes() / m.bytesPerSecond());
            sum += error * error;
        }
        return sum;
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
