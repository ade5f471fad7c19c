package tierlab.experiments.run;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import tierlab.experiments.CommandException;
import tierlab.experiments.run.ExperimentFile.ChartSection;
import tierlab.experiments.run.ExperimentFile.ReferenceRow;

/**
 * The {@code charts} and {@code reference} sections: every axis names a parameter the runs have and
 * every metric one of {@link Metrics#names}, so a chart never fails after the runs are done.
 */
final class ChartChecks {

    private ChartChecks() {
    }

    public static final Set<String> CHART_TYPES = Set.of("line", "bar", "heatmap", "cdf", "timeseries");
    public static final List<String> SAMPLE_SERIES = List.of("l1UsedGiB", "leasedGiB", "storeQueueDepth", "running",
            "waiting", "prefetching", "inflightOps");

    static void checkCharts(ExperimentLoader.Experiment experiment) {
        List<ChartSection> charts = experiment.spec().charts() == null ? List.of() : experiment.spec().charts();
        Set<String> files = new LinkedHashSet<>();
        Set<String> parameters = parameterNames(experiment);
        for (int i = 0; i < charts.size(); i++) {
            ChartSection chart = charts.get(i);
            String at = experiment.file() + ": charts[" + i + "]";
            if (chart == null || chart.type() == null || !CHART_TYPES.contains(chart.type())) {
                throw new CommandException(at + ".type: one of " + String.join(", ", CHART_TYPES.stream().sorted().toList()));
            }
            if (chart.file() == null || !ExperimentLoader.NAME.matcher(chart.file()).matches()) {
                throw new CommandException(at + ".file: a base name of lower-case letters, digits and dashes (the chart is"
                        + " written as FILE.png and FILE.svg)");
            }
            if (!files.add(chart.file())) {
                throw new CommandException(at + ".file: '" + chart.file() + "' is used by an earlier chart");
            }
            switch (chart.type()) {
                case "line", "bar" -> {
                    requireParameter(at + ".x", chart.x(), parameters);
                    requireMetric(at + ".y", chart.y(), experiment.metricNames());
                }
                case "heatmap" -> {
                    requireParameter(at + ".x", chart.x(), parameters);
                    requireParameter(at + ".y", chart.y(), parameters);
                    requireMetric(at + ".z", chart.z(), experiment.metricNames());
                }
                case "cdf" -> {
                    if (chart.pass() == null || !experiment.passes().contains(chart.pass())) {
                        throw new CommandException(at + ".pass: the pass whose per-request TTFT to plot, one of "
                                + experiment.passes());
                    }
                }
                case "timeseries" -> {
                    if (chart.y() == null || !SAMPLE_SERIES.contains(chart.y())) {
                        throw new CommandException(at + ".y: one of " + String.join(", ", SAMPLE_SERIES));
                    }
                }
                default -> throw new IllegalStateException(chart.type());
            }
            if (chart.series() != null) {
                requireParameter(at + ".series", chart.series(), parameters);
            }
            if (chart.where() != null) {
                for (String key : chart.where().keySet()) {
                    requireParameter(at + ".where." + key, key, parameters);
                }
            }
            checkLook(at, chart);
            String folded = ChartAggregation.problem(chart, experiment.points().stream()
                    .map(p -> new ChartAggregation.Swept(p.config().parameters(), p.axisValues())).toList(), experiment.axes());
            if (folded != null) {
                throw new CommandException(at + " (" + chart.file() + ") " + folded);
            }
        }
    }

    /** aggregate, style and errorBars take one of their few values. */
    static void checkLook(String at, ChartSection chart) {
        String problem = lookProblem(chart);
        if (problem != null) {
            throw new CommandException(at + "." + problem);
        }
    }

    /** "FIELD: one of ..." for the first of aggregate, style, errorBars with a value it does not take, else null. */
    static String lookProblem(ChartSection chart) {
        if (chart.aggregate() != null && !ChartAggregation.AGGREGATES.contains(chart.aggregate())) {
            return "aggregate: one of " + String.join(", ", ChartAggregation.AGGREGATES) + ", was '" + chart.aggregate() + "'";
        }
        if (chart.style() != null && !ChartAggregation.STYLES.contains(chart.style())) {
            return "style: one of " + String.join(", ", ChartAggregation.STYLES) + ", was '" + chart.style() + "'";
        }
        if (chart.errorBars() != null && !ChartAggregation.ERROR_BARS.contains(chart.errorBars())) {
            return "errorBars: one of " + String.join(", ", ChartAggregation.ERROR_BARS) + ", was '" + chart.errorBars() + "'";
        }
        return null;
    }

    /** The reference rows and checks against the runs' parameters and metrics; {@code text} is the file's, for line numbers. */
    static void checkReference(ExperimentLoader.Experiment experiment, String text) {
        if (experiment.spec().reference() == null) {
            return;
        }
        Set<String> parameters = parameterNames(experiment);
        List<String> checkProblems = ChartSpecs.of(experiment.file(), text, experiment.spec())
                .checkProblems(parameters, experiment.metricNames());
        if (!checkProblems.isEmpty()) {
            throw new CommandException(checkProblems.getFirst());
        }
        List<ReferenceRow> rows = experiment.spec().reference().rows() == null ? List.of() : experiment.spec().reference().rows();
        for (int i = 0; i < rows.size(); i++) {
            ReferenceRow row = rows.get(i);
            String at = experiment.file() + ": reference.rows[" + i + "]";
            if (row == null || row.label() == null || row.reference() == null) {
                throw new CommandException(at + ": a row has a label and the reference's figure");
            }
            if (row.fittedFrom() != null && !Boolean.TRUE.equals(row.fitted())) {
                throw new CommandException(at + ".fittedFrom: names what a fitted row was fitted to; set fitted: true");
            }
            if (row.metric() != null) {
                requireMetric(at + ".metric", row.metric(), experiment.metricNames());
            }
            if (row.where() != null) {
                for (String key : row.where().keySet()) {
                    requireParameter(at + ".where." + key, key, parameters);
                }
            }
        }
    }

    /**
     * The parameters of every point, as results.csv's columns are: an engine's own columns (vllm-v1's
     * prefixCaching, sglang's hostWritePolicy) exist only in its points, not necessarily the first one.
     */
    private static Set<String> parameterNames(ExperimentLoader.Experiment experiment) {
        Set<String> parameters = new LinkedHashSet<>();
        experiment.points().forEach(point -> parameters.addAll(point.config().parameters().keySet()));
        return parameters;
    }

    static void requireParameter(String at, String name, Set<String> parameters) {
        if (name == null || !parameters.contains(name)) {
            throw new CommandException(at + ": " + (name == null ? "missing" : "unknown parameter '" + name + "'")
                    + " (parameters: " + String.join(", ", parameters) + ")");
        }
    }

    static void requireMetric(String at, String name, List<String> metrics) {
        if (name == null || !metrics.contains(name)) {
            throw new CommandException(at + ": " + (name == null ? "missing" : "unknown metric '" + name + "'")
                    + " (metrics: " + String.join(", ", metrics) + ")");
        }
    }
}
