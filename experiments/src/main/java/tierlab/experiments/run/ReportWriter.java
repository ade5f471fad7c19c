package tierlab.experiments.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.commons.math3.stat.descriptive.SummaryStatistics;
import tierlab.experiments.run.ExperimentFile.ChartSection;
import tierlab.experiments.run.ExperimentFile.ReferenceRow;

/**
 * {@code report.md}: what was run and how to run it again, the reference system's figures beside
 * tierlab's, the charts (and any that could not be drawn, with the cause), and a table of the means
 * over seeds (all columns are in results.csv). Written from the tables a run wrote
 * ({@link RunTables}), at the end of the run and again by {@code tierlab plot}.
 */
public final class ReportWriter {

    /** A reference row with tierlab's figure: the mean of its metric over the matching runs. */
    public record ReferenceValue(ReferenceRow row, double value, long runs) {}

    private ReportWriter() {
    }

    public static List<ReferenceValue> reference(ChartSpecs specs, RunTables tables) {
        List<ReferenceValue> values = new ArrayList<>();
        if (specs.reference() == null || specs.reference().rows() == null) {
            return values;
        }
        List<RunTables.Cell> groups = tables.cells();
        for (ReferenceRow row : specs.reference().rows()) {
            if (row.metric() == null) {
                values.add(new ReferenceValue(row, Double.NaN, 0));
                continue;
            }
            SummaryStatistics statistics = new SummaryStatistics();
            for (RunTables.Cell group : groups) {
                if (group.matches(row.where())) {
                    // A run without the metric (it failed: its cell is empty) has no value to average.
                    group.runs().stream().map(r -> r.metrics().get(row.metric())).filter(java.util.Objects::nonNull)
                            .forEach(statistics::addValue);
                }
            }
            values.add(new ReferenceValue(row, statistics.getN() == 0 ? Double.NaN : statistics.getMean(), statistics.getN()));
        }
        return values;
    }

    public static String markdown(ChartSpecs specs, RunTables tables, ChartRenderer.Rendered charts,
                                  List<ReferenceValue> reference, List<ReferenceChecks.Evaluated> checks,
                                  List<String> extraSections) {
        StringBuilder md = new StringBuilder();
        List<RunTables.Row> results = tables.runs();
        RunTables.RunRecord info = tables.record();
        md.append("# ").append(tables.name()).append("\n\n");
        if (specs.description() != null) {
            md.append(specs.description().strip()).append("\n\n");
        }
        md.append("## How to reproduce\n\n```sh\n").append(info.command()).append("\n```\n\n");
        long failed = results.stream().filter(RunTables.Row::failed).count();
        md.append(String.format(Locale.ROOT, "%d run%s (%s), mode `%s`, seeds %s; %.1f s of wall time on %d"
                        + " thread%s; tierlab commit `%s`. Every file of this folder is listed in `run.json`"
                        + " with the configuration and decision-trace hashes; sim and hybrid runs are"
                        + " deterministic, so the same file gives the same `results.csv`.%n%n",
                results.size(), results.size() == 1 ? "" : "s",
                tables.axes().isEmpty() ? "no sweep" : "sweep over " + String.join(" × ", tables.axes().stream()
                        .map(a -> "`" + a + "`").toList()),
                tables.mode(), tables.seeds(), info.wallSeconds(), info.threads(), info.threads() == 1 ? "" : "s",
                info.gitCommit()));
        if (failed > 0) {
            md.append("**").append(failed).append(" run").append(failed == 1 ? "" : "s")
                    .append(" did not complete cleanly** (see *Failures* below and the `failure` column).\n\n");
        }
        referenceSection(md, specs, reference, checks);
        for (String section : extraSections) {
            md.append(section.strip()).append("\n\n");
        }
        chartsSection(md, charts);
        md.append(table(specs, tables));
        if (failed > 0) {
            failuresSection(md, results);
        }
        md.append("## Files\n\n- `results.csv`: one row per run, every parameter and metric\n"
                + "- `requests.csv`: every request's TTFT by run and pass\n"
                + "- `timeseries.csv`: L1 occupancy, leases, queue depths over virtual time\n"
                + "- `summary.json`: mean, sd, min, max of every metric per sweep point\n"
                + "- `run.json`: seeds, git commit, configuration and trace hashes, JVM, wall time\n");
        return md.toString();
    }

    /**
     * The reference system's figures beside tierlab's (a fitted row marked so), the checks with PASS or
     * FAIL, then the file's discussion, which refers to them; nothing without any of them.
     */
    private static void referenceSection(StringBuilder md, ChartSpecs specs, List<ReferenceValue> reference,
                                         List<ReferenceChecks.Evaluated> checks) {
        if (specs.reference() == null || reference.isEmpty() && checks.isEmpty() && specs.reference().discussion() == null) {
            return;
        }
        md.append("## The reference system and tierlab\n\n");
        if (specs.reference().source() != null) {
            md.append(specs.reference().source().strip()).append("\n\n");
        }
        if (!reference.isEmpty()) {
            md.append("| | reference | tierlab | fitted? | from |\n|---|---:|---:|---|---|\n");
            for (ReferenceValue value : reference) {
                ReferenceRow row = value.row();
                md.append("| ").append(row.label()).append(" | ").append(row.reference()).append(" | ")
                        .append(row.metric() == null ? "—" : number(value.value())).append(" | ")
                        .append(ReferenceChecks.fitted(row.fitted(), row.fittedFrom())).append(" | ")
                        .append(row.metric() == null ? "" : "`" + row.metric() + "`"
                                + (row.where() == null ? "" : " where " + where(row.where())))
                        .append(" |\n");
            }
            md.append('\n');
            if (reference.stream().anyMatch(value -> Boolean.TRUE.equals(value.row().fitted()))) {
                md.append("A **fitted** row's tierlab figure comes from a profile fitted to that same reference figure:"
                        + " it agrees by construction, and is not a prediction.\n\n");
            }
        }
        ReferenceChecks.markdown(md, checks);
        if (specs.reference().discussion() != null) {
            md.append(specs.reference().discussion().strip()).append("\n\n");
        }
    }

    /** Every chart drawn, and the ones that could not be, with their causes; nothing without charts. */
    private static void chartsSection(StringBuilder md, ChartRenderer.Rendered charts) {
        if (charts.drawn().isEmpty() && charts.failed().isEmpty()) {
            return;
        }
        md.append("## Charts\n\n");
        for (ChartRenderer.Drawn chart : charts.drawn()) {
            md.append("### ").append(chart.title()).append("\n\n![").append(chart.title()).append("](")
                    .append(chart.png()).append(")\n\n(vector: [").append(chart.svg()).append("](").append(chart.svg())
                    .append("))\n\n");
        }
        if (!charts.failed().isEmpty()) {
            md.append("**").append(charts.failed().size()).append(" chart").append(charts.failed().size() == 1 ? "" : "s")
                    .append(" could not be drawn**; every table is complete, and `./tierlab plot` on this folder")
                    .append(" draws them again once the cause is fixed:\n\n");
            for (ChartRenderer.Failed chart : charts.failed()) {
                md.append("- `").append(chart.section().file()).append("` (").append(chart.title()).append("): ")
                        .append(chart.cause()).append('\n');
            }
            md.append('\n');
        }
    }

    private static void failuresSection(StringBuilder md, List<RunTables.Row> results) {
        md.append("## Failures\n\n");
        for (RunTables.Row result : results) {
            if (result.failed()) {
                md.append("- run ").append(result.index()).append(" (").append(result.label())
                        .append("): ").append(result.failure()).append('\n');
                result.examples().forEach(example -> md.append("  - ").append(example).append('\n'));
            }
        }
        md.append('\n');
    }

    static String where(Map<String, JsonNode> where) {
        List<String> parts = new ArrayList<>();
        where.forEach((key, value) -> parts.add("`" + key + "=" + (value.isTextual() ? value.asText() : value) + "`"));
        return String.join(", ", parts);
    }

    /** Means over seeds: the axes, then the metrics the charts and reference rows use. */
    private static String table(ChartSpecs specs, RunTables tables) {
        Set<String> metrics = new LinkedHashSet<>();
        for (ChartSection chart : specs.charts()) {
            if (chart == null || chart.type() == null) {
                continue;
            }
            if (chart.type().equals("heatmap")) {
                metrics.add(chart.z());
            } else if (chart.type().equals("line") || chart.type().equals("bar")) {
                metrics.add(chart.y());
            }
        }
        if (specs.reference() != null && specs.reference().rows() != null) {
            specs.reference().rows().stream().map(ReferenceRow::metric).filter(m -> m != null).forEach(metrics::add);
        }
        for (String pass : tables.passes()) {
            metrics.add(pass + ".elapsedS");
            metrics.add(pass + ".ttftMeanMs");
            metrics.add(pass + ".l1HitRatio");
        }
        if (tables.runs().stream().anyMatch(RunTables.Row::failed)) {
            metrics.add("run.failed");
            metrics.add("run.unfinished");
        }
        // A chart whose spec names no metric (reported as failed) adds no column.
        metrics.removeIf(metric -> metric == null || !tables.metricNames().contains(metric));
        StringBuilder md = new StringBuilder("## Results (mean over seeds)\n\n");
        List<String> axes = tables.axes();
        md.append("| ");
        axes.forEach(axis -> md.append(axis).append(" | "));
        metrics.forEach(metric -> md.append(metric).append(" | "));
        md.append("\n|");
        axes.forEach(axis -> md.append("---|"));
        metrics.forEach(metric -> md.append("---:|"));
        md.append('\n');
        for (RunTables.Cell group : tables.cells()) {
            md.append("| ");
            for (String axis : axes) {
                Object value = group.parameters().get(axis);
                md.append(Aggregates.format(value)).append(" | ");
            }
            for (String metric : metrics) {
                md.append(number(group.mean(metric))).append(" | ");
            }
            md.append('\n');
        }
        return md.append('\n').toString();
    }

    /** Four significant digits, thousands separated; whole numbers as they are. */
    public static String number(double value) {
        if (Double.isNaN(value)) {
            return "—";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return String.format(Locale.ROOT, "%,d", (long) value);
        }
        double magnitude = Math.abs(value);
        int decimals = magnitude >= 1000 ? 0 : magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : magnitude >= 1 ? 3 : 4;
        return String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }
}
