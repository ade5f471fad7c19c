package tierlab.experiments.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tierlab.experiments.run.ExperimentFile.ChartSection;
import tierlab.metrics.Percentiles;

/**
 * Which swept axes a chart folds into one point, and how. A bar, line or heat-map point is one value
 * per named coordinate ({@code x}, {@code series} or the heat map's {@code y}, after {@code where});
 * when a swept axis the chart does not name varies within a point, the point would silently be a
 * mean of different configurations (a bar of 2,037 that is the mean of 1,267 and 2,806). Such a chart
 * is refused unless it says {@code aggregate: mean|median|max|min}, and then its axis label says so.
 */
final class ChartAggregation {

    /** The values of {@code aggregate}. */
    static final List<String> AGGREGATES = List.of("mean", "median", "max", "min");
    /** The values of {@code style}. */
    static final List<String> STYLES = List.of("default", "paper");
    /** The values of {@code errorBars}: mean ± one standard deviation over the seeds, or none. */
    static final List<String> ERROR_BARS = List.of("stdev", "none");

    private ChartAggregation() {
    }

    /** One sweep cell or run point as the check sees it: its parameters and its swept axis values. */
    record Swept(Map<String, Object> parameters, Map<String, JsonNode> axisValues) {}

    /** True for the chart types that fold runs into points by their named coordinates. */
    static boolean folds(ChartSection chart) {
        return switch (chart.type()) {
            case "line", "bar", "heatmap" -> true;
            default -> false;
        };
    }

    /** The parameters that place a point: x, series (the heat map's y), and every where key. */
    static Set<String> named(ChartSection chart) {
        Set<String> named = new LinkedHashSet<>();
        named.add(chart.x());
        named.add(chart.type().equals("heatmap") ? chart.y() : chart.series());
        if (chart.where() != null) {
            named.addAll(chart.where().keySet());
        }
        named.remove(null);
        return named;
    }

    /**
     * The swept axes, in sweep order, that take more than one value within some point of the chart
     * (after its {@code where}); an axis that varies only together with a named parameter is not one.
     */
    static List<String> foldedAxes(ChartSection chart, List<Swept> runs, List<String> axes) {
        Set<String> named = named(chart);
        Map<List<String>, Map<String, Set<String>>> valuesByPoint = new LinkedHashMap<>();
        for (Swept run : runs) {
            if (!matches(run, chart.where())) {
                continue;
            }
            List<String> point = new ArrayList<>();
            named.forEach(name -> point.add(Aggregates.format(run.parameters().get(name))));
            Map<String, Set<String>> values = valuesByPoint.computeIfAbsent(point, key -> new LinkedHashMap<>());
            run.axisValues().forEach((axis, value) -> values.computeIfAbsent(axis, key -> new LinkedHashSet<>())
                    .add(value.toString()));
        }
        List<String> folded = new ArrayList<>();
        for (String axis : axes) {
            if (named.contains(axis)) {
                continue;
            }
            boolean varies = valuesByPoint.values().stream().anyMatch(v -> v.getOrDefault(axis, Set.of()).size() > 1);
            if (varies) {
                folded.add(axis);
            }
        }
        return folded;
    }

    /** Null when the chart may be drawn as it is, else why not (without the file and chart prefix). */
    static String problem(ChartSection chart, List<Swept> runs, List<String> axes) {
        if (!folds(chart) || chart.aggregate() != null) {
            return null;
        }
        List<String> folded = foldedAxes(chart, runs, axes);
        if (folded.isEmpty()) {
            return null;
        }
        return "would average over the swept axis '" + folded.getFirst() + "'" + (folded.size() > 1
                ? " (and " + String.join(", ", folded.subList(1, folded.size())) + ")" : "")
                + ", which it does not name in x, " + (chart.type().equals("heatmap") ? "y" : "series")
                + " or where; name it, or set aggregate: " + String.join("|", AGGREGATES) + " to combine its values";
    }

    /** " (median over store.policy)" for a chart that folds axes by its aggregate, else "". */
    static String labelSuffix(ChartSection chart, List<String> folded) {
        if (folded.isEmpty() || chart.aggregate() == null) {
            return "";
        }
        return " (" + chart.aggregate() + " over " + String.join(", ", folded) + ")";
    }

    /** The chart's aggregate (mean when it sets none) of {@code values}; NaN for none. */
    static double combine(ChartSection chart, List<Double> values) {
        double[] finite = values.stream().mapToDouble(Double::doubleValue).filter(v -> !Double.isNaN(v)).toArray();
        if (finite.length == 0) {
            return Double.NaN;
        }
        String aggregate = chart.aggregate() == null ? "mean" : chart.aggregate();
        return switch (aggregate) {
            case "median" -> Percentiles.medianMidpoint(finite);
            case "max" -> java.util.Arrays.stream(finite).max().orElseThrow();
            case "min" -> java.util.Arrays.stream(finite).min().orElseThrow();
            default -> java.util.Arrays.stream(finite).average().orElseThrow();
        };
    }

    private static boolean matches(Swept run, Map<String, JsonNode> where) {
        if (where == null) {
            return true;
        }
        for (Map.Entry<String, JsonNode> entry : where.entrySet()) {
            if (!Aggregates.sameValue(run.parameters().get(entry.getKey()), entry.getValue())) {
                return false;
            }
        }
        return true;
    }
}
