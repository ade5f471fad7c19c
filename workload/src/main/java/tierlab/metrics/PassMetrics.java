package tierlab.metrics;

import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import tierlab.model.request.RequestOutcome;

/**
 * The figures of one pass, one value per {@link PassMetric} in declaration order, computed from
 * the pass's finished requests and the counter differences over the pass.
 */
public record PassMetrics(String pass, double[] values) {

    private static final PassMetric[] METRICS = PassMetric.values();

    public PassMetrics {
        if (values.length != METRICS.length) {
            throw new IllegalArgumentException("a pass has " + METRICS.length + " metrics, got " + values.length);
        }
        values = values.clone();
    }

    public static PassMetrics of(String pass, List<RequestOutcome> outcomes, CounterSnapshot start, CounterSnapshot end) {
        PassWindow window = PassWindow.of(outcomes, start, end);
        double[] values = new double[METRICS.length];
        for (PassMetric metric : METRICS) {
            values[metric.ordinal()] = metric.compute(window);
        }
        return new PassMetrics(pass, values);
    }

    public double value(PassMetric metric) {
        return values[metric.ordinal()];
    }

    /** The value of the metric named {@code metricName} ({@code l1HitRatio}). */
    public double value(String metricName) {
        for (PassMetric metric : METRICS) {
            if (metric.metricName().equals(metricName)) {
                return values[metric.ordinal()];
            }
        }
        throw new NoSuchElementException("no pass metric '" + metricName + "'");
    }

    @Override
    public double[] values() {
        return values.clone();
    }

    // Values, not identities: compare and print the array by content.

    @Override
    public boolean equals(Object other) {
        return other instanceof PassMetrics that && pass.equals(that.pass) && Arrays.equals(values, that.values);
    }

    @Override
    public int hashCode() {
        return 31 * pass.hashCode() + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("PassMetrics[").append(pass);
        for (PassMetric metric : METRICS) {
            text.append(", ").append(metric.metricName()).append('=').append(values[metric.ordinal()]);
        }
        return text.append(']').toString();
    }
}
