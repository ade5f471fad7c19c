package tierlab.experiments.run;

import java.util.ArrayList;
import java.util.List;
import tierlab.metrics.PassMetric;

/**
 * The metric columns of {@code results.csv}. Per-pass figures are named {@code PASS.metric}
 * ({@code warm.l1HitRatio}) after {@link PassMetric}, the one list of per-pass metrics; figures of
 * the whole run are {@code run.metric}. Charts and reference rows name metrics the same way, and
 * the loader refuses a name that is not here. The catalogue's metric table is {@link #markdownTable()}.
 */
public final class Metrics {

    /** A whole-run figure: its column name, unit and one-line doc (values come from {@link RunResult#runMetrics()}). */
    public record RunMetric(String name, String unit, String doc) {}

    /** Whole-run metrics in column order. */
    public static final List<RunMetric> RUN_METRICS = List.of(
            new RunMetric("run.failed", "0/1", "1 when the run broke (an invariant violated, a stall)"),
            new RunMetric("run.unfinished", "requests", "requests submitted but never finished"),
            new RunMetric("run.leftovers", "items", "leases, reservations, pending writes, borrows, queued stores or operations left at quiescence"),
            new RunMetric("run.mismatches", "blocks", "loads whose payload was not their key's"),
            new RunMetric("run.l2Disagreements", "units", "sim/hybrid: L2 units whose bytes are not their key's at the end"),
            new RunMetric("run.realMatches", "loads", "hybrid/live: loads checked on real bytes that matched"),
            new RunMetric("run.realMismatches", "loads", "hybrid/live: loads checked on real bytes that did not"),
            new RunMetric("run.simulatedS", "s", "virtual time the run took (sim/hybrid)"),
            new RunMetric("run.events", "events", "simulator events fired (sim/hybrid)"));

    /** Whole-run metric names in column order. */
    public static final List<String> RUN = RUN_METRICS.stream().map(RunMetric::name).toList();

    private Metrics() {
    }

    /** Every metric name for runs with these passes, in column order. */
    public static List<String> names(List<String> passes) {
        List<String> names = new ArrayList<>();
        for (String pass : passes) {
            for (PassMetric metric : PassMetric.values()) {
                names.add(pass + "." + metric.metricName());
            }
        }
        names.addAll(RUN);
        return names;
    }

    /** The catalogue's metric table (Markdown), generated from the two lists so the docs cannot drift. */
    public static String markdownTable() {
        StringBuilder table = new StringBuilder("| metric | unit | meaning |\n|---|---|---|\n");
        for (PassMetric metric : PassMetric.values()) {
            table.append("| `PASS.").append(metric.metricName()).append("` | ").append(metric.unit()).append(" | ")
                    .append(metric.doc()).append(" |\n");
        }
        for (RunMetric metric : RUN_METRICS) {
            table.append("| `").append(metric.name()).append("` | ").append(metric.unit()).append(" | ")
                    .append(metric.doc()).append(" |\n");
        }
        return table.toString();
    }
}
