package tierlab.experiments.calibration;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import tierlab.bench.BenchCase;
import tierlab.metrics.Percentiles;

/**
 * What one run of one grid point measured (or, from {@link #medians}, the median over repeats).
 * Latencies are per operation, from the {@code submit} call that issued it to the completion
 * callback: the queueing in the ring before {@code io_uring_enter} is included, as the sim's
 * closed loop includes it.
 *
 * @param benchCase     access pattern, block size and queue depth
 * @param repeat        1-based pass over the grid; 0 for a median over passes
 * @param ops           completed operations (including those drained after the deadline)
 * @param bytes         bytes moved
 * @param elapsedNs     from the first submit to the last completion
 * @param iops          operations per second
 * @param bytesPerSecond bytes moved per second (MB/s × 1e6)
 * @param meanLatencyNs mean per-operation latency
 * @param p50LatencyNs  median per-operation latency
 * @param p99LatencyNs  99th-percentile per-operation latency
 * @param enterCalls    io_uring_enter system calls during the run (0 on the FileChannel backend)
 */
public record MeasuredPoint(BenchCase benchCase, int repeat, long ops, long bytes, long elapsedNs, double iops,
                            double bytesPerSecond, double meanLatencyNs, double p50LatencyNs, double p99LatencyNs,
                            long enterCalls) {

    public boolean read() {
        return !benchCase.access().write();
    }

    /** Decimal megabytes per second (1 MB = 10^6 bytes), as fio's "MB/s". */
    public double megabytesPerSecond() {
        return bytesPerSecond / 1e6;
    }

    public double enterCallsPerOp() {
        return ops == 0 ? 0 : (double) enterCalls / ops;
    }

    /**
     * One point per grid case: each field is the median of that field over the case's repeats
     * (fields separately: the throughput median and the latency median may come from different
     * repeats). Keeps the order in which cases first appear.
     */
    public static List<MeasuredPoint> medians(List<MeasuredPoint> runs) {
        Map<BenchCase, List<MeasuredPoint>> byCase = new LinkedHashMap<>();
        for (MeasuredPoint run : runs) {
            byCase.computeIfAbsent(run.benchCase(), c -> new ArrayList<>()).add(run);
        }
        List<MeasuredPoint> medians = new ArrayList<>();
        for (Map.Entry<BenchCase, List<MeasuredPoint>> entry : byCase.entrySet()) {
            List<MeasuredPoint> repeats = entry.getValue();
            if (repeats.size() == 1) {
                MeasuredPoint only = repeats.getFirst();
                medians.add(new MeasuredPoint(only.benchCase, 0, only.ops, only.bytes, only.elapsedNs, only.iops,
                        only.bytesPerSecond, only.meanLatencyNs, only.p50LatencyNs, only.p99LatencyNs, only.enterCalls));
                continue;
            }
            medians.add(new MeasuredPoint(entry.getKey(), 0,
                    Math.round(Percentiles.medianInterpolated(field(repeats, p -> p.ops))),
                    Math.round(Percentiles.medianInterpolated(field(repeats, p -> p.bytes))),
                    Math.round(Percentiles.medianInterpolated(field(repeats, p -> p.elapsedNs))),
                    Percentiles.medianInterpolated(field(repeats, MeasuredPoint::iops)),
                    Percentiles.medianInterpolated(field(repeats, MeasuredPoint::bytesPerSecond)),
                    Percentiles.medianInterpolated(field(repeats, MeasuredPoint::meanLatencyNs)),
                    Percentiles.medianInterpolated(field(repeats, MeasuredPoint::p50LatencyNs)),
                    Percentiles.medianInterpolated(field(repeats, MeasuredPoint::p99LatencyNs)),
                    Math.round(Percentiles.medianInterpolated(field(repeats, p -> p.enterCalls)))));
        }
        return List.copyOf(medians);
    }

    /** One field of every point, in the points' order. */
    private static double[] field(List<MeasuredPoint> points, ToDoubleFunction<MeasuredPoint> field) {
        return points.stream().mapToDouble(field).toArray();
    }

    /** Sorted by pattern, block size, queue depth, repeat: a stable order for tables. */
    public static final Comparator<MeasuredPoint> GRID_ORDER = Comparator
            .comparing((MeasuredPoint p) -> p.benchCase().access())
            .thenComparingInt(p -> p.benchCase().blockBytes())
            .thenComparingInt(p -> p.benchCase().queueDepth())
            .thenComparingInt(MeasuredPoint::repeat);

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "%s r%d: %.0f IOPS, %.1f MB/s, latency mean %.0f us p50 %.0f us p99 %.0f us, %.2f enter/op",
                benchCase.name(), repeat, iops, megabytesPerSecond(), meanLatencyNs / 1e3, p50LatencyNs / 1e3,
                p99LatencyNs / 1e3, enterCallsPerOp());
    }
}
