package tierlab.metrics;

import java.util.Arrays;
import org.apache.commons.math3.stat.descriptive.rank.Median;

/**
 * Every median and percentile the project computes over a plain array of values, one named method per
 * definition. They are not interchangeable: they differ on even counts, on where a rank falls between
 * two values, in the last bit of a mean of two values, and on what no values give. Each caller keeps the
 * definition its tables were written with, so a change here is a change of published figures.
 *
 * <p>Latency histograms ({@code HdrHistogram}'s {@code getValueAtPercentile}) are not here: they
 * estimate from buckets, not from the values.
 */
public final class Percentiles {

    private Percentiles() {}

    /**
     * The nearest-rank percentile: the value at rank {@code ceil(percent / 100 * n)} (1-based), clamped
     * into the array, so percent 0 gives the smallest value and 100 the largest. For an even count the
     * 50th percentile is the lower of the two middle values.
     *
     * @param sorted  the values, ascending
     * @param percent 0 to 100
     * @throws IllegalArgumentException for no values: there is no rank to take
     */
    public static double nearestRank(long[] sorted, double percent) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("percentile of no values");
        }
        return sorted[nearestRankIndex(sorted.length, percent)];
    }

    /** {@link #nearestRank(long[], double)} over ascending doubles; no values throw here too. */
    public static double nearestRank(double[] sorted, double percent) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("percentile of no values");
        }
        return sorted[nearestRankIndex(sorted.length, percent)];
    }

    private static int nearestRankIndex(int count, double percent) {
        int rank = (int) Math.ceil(percent / 100 * count);
        return Math.max(0, Math.min(count - 1, rank - 1));
    }

    /**
     * The nearest-rank percentile of values in any order, except that the 50th percentile of an even
     * count is {@link #medianMidpoint the mean of the two middle values}; NaN for no values (a
     * comparison row with nothing to compare reads as missing rather than failing). For an odd count
     * both definitions of the median give the middle value.
     */
    public static double nearestRankWithMidpointMedian(double[] values, double percent) {
        if (values.length == 0) {
            return Double.NaN;
        }
        if (percent == 50) {
            return medianMidpoint(values);
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return nearestRank(sorted, percent);
    }

    /**
     * The median of values in any order: the middle value of an odd count, {@code (a + b) / 2} of the
     * two middle values of an even count; NaN for no values. The input is not changed.
     */
    public static double medianMidpoint(double[] values) {
        int n = values.length;
        if (n == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /**
     * The median as Commons Math's {@link Median} computes it: the middle value of an odd count; for an
     * even count the lower middle value plus half the gap to the upper one, which is the mean of the two
     * middle values up to the last bit (so not {@link #medianMidpoint}'s result in every case); NaN for
     * no values. Values in any order; the input is not changed.
     */
    public static double medianInterpolated(double[] values) {
        return new Median().evaluate(values);
    }

    /**
     * The upper median of values in any order: the middle value of an odd count, the higher of the two
     * middle values of an even count (a value that was measured, never a mean of two); 0 for no values
     * (a timing loop whose budget ran out before its first sample reports no cost rather than failing).
     * The input is not changed.
     */
    public static long upperMedianOrZero(long[] values) {
        if (values.length == 0) {
            return 0;
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /**
     * {@link #upperMedianOrZero}'s definition over ascending doubles, without a value for no values.
     *
     * @throws IllegalArgumentException for no values
     */
    public static double upperMedian(double[] sorted) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("median of no values");
        }
        return sorted[sorted.length / 2];
    }
}
