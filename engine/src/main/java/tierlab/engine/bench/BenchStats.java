package tierlab.engine.bench;

import java.util.Arrays;
import java.util.List;

/** Order statistics for a handful of rounds: medians and ranges, never means (the disk here is too noisy for them). */
final class BenchStats {

    private BenchStats() {}

    /** The median; for an even count the mean of the two middle values. */
    static double median(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("median of no values");
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

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
