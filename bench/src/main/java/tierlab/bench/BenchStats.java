package tierlab.bench;

import java.util.Arrays;
import java.util.List;

/**
 * Order statistics for a handful of rounds: ranges beside the medians ({@link tierlab.metrics.Percentiles}), never
 * means (the disk here is too noisy for them).
 */
final class BenchStats {

    private BenchStats() {}

    static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    }

    static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    }

    static double[] toArray(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    static String join(double[] values, String format) {
        return String.join(" ", Arrays.stream(values).mapToObj(v -> String.format(java.util.Locale.ROOT, format, v)).toList());
    }
}
