package tierlab.bench;

import java.util.Arrays;
import java.util.List;
import org.apache.commons.math3.stat.descriptive.rank.Median;

/** Order statistics for a handful of rounds: medians and ranges, never means (the disk here is too noisy for them). */
final class BenchStats {

    private BenchStats() {}

    /** The median (Commons Math); for an even count the mean of the two middle values. */
    static double median(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("median of no values");
        }
        return new Median().evaluate(toArray(values));
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
