package tierlab.experiments.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.commons.math3.stat.descriptive.SummaryStatistics;

/**
 * Results grouped by sweep cell (the seeds of one cell are one group), with each metric summarised
 * over the group's seeds. Charts plot the means; {@code summary.json} keeps mean, standard deviation,
 * minimum and maximum.
 */
public final class Aggregates {

    /**
     * One sweep cell as the run knows it, before its tables are written: its parameters (those of
     * its first seed's run), its axis values and its runs. {@code summary.json} is written from these;
     * charts and the report read the cells back from the tables ({@link RunTables.Cell}).
     */
    public record Group(Map<String, Object> parameters, Map<String, JsonNode> axisValues, List<RunResult> runs) {

        public SummaryStatistics statistics(String metric) {
            return Aggregates.statistics(runs.stream().map(RunResult::metrics).toList(), metric);
        }
    }

    /** One metric over runs (their metric maps): NaN and missing values are left out, as for a failed run. */
    static SummaryStatistics statistics(List<Map<String, Double>> runMetrics, String metric) {
        SummaryStatistics statistics = new SummaryStatistics();
        for (Map<String, Double> metrics : runMetrics) {
            Double value = metrics.get(metric);
            if (value != null && !value.isNaN()) {
                statistics.addValue(value);
            }
        }
        return statistics;
    }

    private Aggregates() {
    }

    public static List<Group> groups(List<RunResult> results) {
        Map<Map<String, JsonNode>, List<RunResult>> byCell = new LinkedHashMap<>();
        for (RunResult result : results) {
            byCell.computeIfAbsent(result.point().axisValues(), cell -> new ArrayList<>()).add(result);
        }
        List<Group> groups = new ArrayList<>();
        byCell.forEach((cell, runs) -> {
            Map<String, Object> parameters = new LinkedHashMap<>(runs.getFirst().point().config().parameters());
            parameters.remove("seed");
            groups.add(new Group(parameters, cell, List.copyOf(runs)));
        });
        return groups;
    }

    /** A parameter value and a value written in the file are the same setting (64 equals 64.0). */
    static boolean sameValue(Object parameter, JsonNode written) {
        if (parameter == null || written == null) {
            return false;
        }
        if (parameter instanceof Number number && written.isNumber()) {
            return Double.compare(number.doubleValue(), written.doubleValue()) == 0;
        }
        if (parameter instanceof Boolean flag && written.isBoolean()) {
            return flag == written.booleanValue();
        }
        return Objects.equals(String.valueOf(parameter), written.isTextual() ? written.asText() : written.toString());
    }

    /** A parameter as text: whole numbers without ".0". */
    public static String format(Object value) {
        if (value instanceof Double number && number == Math.rint(number) && !Double.isInfinite(number)) {
            return Long.toString(number.longValue());
        }
        if (value instanceof Double number && !number.isNaN() && !number.isInfinite()) {
            // 0.000305, not 3.05E-4: sizes in GiB of tiny test stores are read by people.
            return new java.math.BigDecimal(Double.toString(number)).stripTrailingZeros().toPlainString();
        }
        if (value instanceof String text && text.isEmpty()) {
            return "none";
        }
        return String.valueOf(value);
    }
}
