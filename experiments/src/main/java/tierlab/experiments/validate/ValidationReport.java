package tierlab.experiments.validate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;
import tierlab.experiments.ChartFiles;
import tierlab.experiments.ColumnTable;
import tierlab.experiments.calibration.DriveReplay;
import tierlab.experiments.run.ResultFiles;
import tierlab.metrics.Percentiles;

/**
 * The files of {@code out/NAME/}: {@code validation.csv} (one row per workload, pass and metric),
 * {@code decisions.csv}, {@code report.md}, and per workload three charts (per-request TTFT sim
 * against live with the y = x line, TTFT CDFs overlaid, L2 throughput over time). The tables and the
 * report are written before any chart, and a chart that fails is named in the report, never fatal.
 */
final class ValidationReport {
    static final String CSV = "validation.csv";
    static final String DECISIONS_CSV = "decisions.csv";
    static final String DECISION_KINDS_CSV = "decision-kinds.csv";
    static final String DRIVE_CSV = "drive.csv";
    static final String REPORT = "report.md";
    static final String PROFILE = "fitted-profile.yaml";
    /** Above this relative error a metric gets its own paragraph in the report. */
    static final double DISCUSS_ABOVE = 0.10;

    /**
     * One workload's outcome.
     *
     * @param role                held-out or tuned (ValidationFile)
     * @param simDriveAfter       the simulation on the profile capped by the drive replay after the live runs; null without one
     * @param drive               the drive replays before and after the live runs; null without them
     * @param driveFailure        why a replay the file asked for did not happen; null when it did or was not asked for
     * @param kvBytesPerToken     the workload's KV bytes per token
     * @param computeFillNsPerMiB the time per MiB of computed KV that live mode spends writing its payload
     *                            (no GPU here; on the D2H stream, at staging): measured, never charged by the simulator
     */
    record WorkloadResult(String name, String role, List<Observation> live, Observation sim, Observation simDriveAfter,
                          DriveCheck drive, String driveFailure, List<Comparison.Row> rows,
                          Comparison.Decisions decisions, long kvBytesPerToken, double computeFillNsPerMiB) {

        boolean heldOut() {
            return role.equals(ValidationFile.HELD_OUT);
        }

        /** Seconds live spent writing computed KV's payload in {@code pass} (by the simulated token count). */
        double fillSeconds(String pass) {
            return sim.passes().stream().filter(p -> p.pass().equals(pass)).findFirst()
                    .map(p -> p.value(tierlab.metrics.PassMetric.COMPUTED_PROMPT_TOKENS) * kvBytesPerToken / (1 << 20)
                            * computeFillNsPerMiB / 1e9).orElse(0.0);
        }

        boolean failed() {
            return sim.failure() != null || live.stream().anyMatch(o -> o.failure() != null)
                    || (simDriveAfter != null && simDriveAfter.failure() != null);
        }
    }

    private ValidationReport() {
    }

    static List<String> chartNames(String workload) {
        List<String> names = new ArrayList<>();
        for (String chart : List.of("ttft-scatter-", "ttft-cdf-", "l2-throughput-")) {
            names.add(chart + workload + ".png");
            names.add(chart + workload + ".svg");
        }
        return names;
    }

    /** One compared metric with its workload's role, as a row of {@value #CSV}. */
    private record MetricRow(String role, Comparison.Row row) {}

    private static final ColumnTable<MetricRow> VALIDATION = ColumnTable.<MetricRow>named("validation")
            .text("workload", r -> r.row().workload()).text("role", MetricRow::role).text("pass", r -> r.row().pass())
            .text("metric", r -> r.row().metric()).text("unit", r -> r.row().unit())
            .decimal("liveMedian", r -> r.row().liveMedian()).decimal("liveMin", r -> r.row().liveMin())
            .decimal("liveMax", r -> r.row().liveMax()).decimal("liveSpread", r -> r.row().liveSpread())
            .decimal("sim", r -> r.row().sim()).decimal("relativeError", r -> r.row().relativeError())
            .decimal("simDriveAfter", r -> r.row().simDriveAfter())
            .decimal("relativeErrorDriveAfter", r -> r.row().relativeErrorDriveAfter())
            .text("verdict", r -> Verdict.of(r.row()).label());

    private static final ColumnTable<WorkloadResult> DECISIONS = ColumnTable.<WorkloadResult>named("decisions")
            .text("workload", WorkloadResult::name).decimal("requests", r -> r.decisions().requests())
            .decimal("identical", r -> r.decisions().identical())
            .text("sameOrder", r -> Boolean.toString(r.decisions().sameOrder()))
            .decimal("liveRunsIdenticalToSim", r -> r.decisions().liveRepeatsAgreeing())
            .decimal("simLookupCalls", r -> r.decisions().simLookupCalls())
            .decimal("liveLookupCalls", r -> r.decisions().liveLookupCalls())
            .text("firstDivergence", r -> r.decisions().firstDivergence() == null ? "" : r.decisions().firstDivergence())
            .text("decisionCountsSimLive", r -> r.decisions().kindsThatDiffer());

    /** One decision kind's counts in one workload. */
    private record KindRow(String workload, Comparison.KindCount count) {}

    private static final ColumnTable<KindRow> DECISION_KINDS = ColumnTable.<KindRow>named("decision-kinds")
            .text("workload", KindRow::workload).text("kind", r -> r.count().kind()).decimal("sim", r -> r.count().sim())
            .decimal("liveMedian", r -> r.count().liveMedian()).decimal("liveMin", r -> r.count().liveMin())
            .decimal("liveMax", r -> r.count().liveMax()).decimal("relativeError", r -> r.count().relativeError());

    /** One drive replay (before or after the live runs) of one workload. */
    private record ReplayRow(String workload, String replay, DriveReplay.Rates rates) {}

    private static final ColumnTable<ReplayRow> DRIVE = ColumnTable.<ReplayRow>named("drive")
            .text("workload", ReplayRow::workload).text("replay", ReplayRow::replay)
            .decimal("writeBytes", r -> r.rates().writeBytes()).decimal("writeOps", r -> r.rates().writeOps())
            .decimal("writeSeconds", r -> r.rates().writeSeconds()).decimal("writeBytesPerSecond", r -> r.rates().writeBytesPerSecond())
            .decimal("readBytes", r -> r.rates().readBytes()).decimal("readOps", r -> r.rates().readOps())
            .decimal("readSeconds", r -> r.rates().readSeconds()).decimal("readBytesPerSecond", r -> r.rates().readBytesPerSecond())
            .decimal("fileBytes", r -> r.rates().fileBytes()).text("backend", r -> r.rates().backend());

    static void writeTables(Path folder, List<WorkloadResult> results) throws IOException {
        List<MetricRow> metrics = new ArrayList<>();
        for (WorkloadResult result : results) {
            result.rows().forEach(row -> metrics.add(new MetricRow(result.role(), row)));
        }
        ResultFiles.writeCsv(VALIDATION.of(metrics), folder.resolve(CSV));
        writeDecisionKinds(folder, results);
        writeDrive(folder, results);
        ResultFiles.writeCsv(DECISIONS.of(results), folder.resolve(DECISIONS_CSV));
    }

    /** Per workload and decision kind: how many the simulation made beside the live runs' median, least and most. */
    private static void writeDecisionKinds(Path folder, List<WorkloadResult> results) throws IOException {
        List<KindRow> rows = new ArrayList<>();
        for (WorkloadResult result : results) {
            Comparison.kindCounts(result.live(), result.sim()).forEach(count -> rows.add(new KindRow(result.name(), count)));
        }
        ResultFiles.writeCsv(DECISION_KINDS.of(rows), folder.resolve(DECISION_KINDS_CSV));
    }

    /** Per workload and replay (before, after the live runs): what the drive moved and how fast. */
    private static void writeDrive(Path folder, List<WorkloadResult> results) throws IOException {
        List<ReplayRow> rows = new ArrayList<>();
        for (WorkloadResult result : results) {
            if (result.drive() != null) {
                rows.add(new ReplayRow(result.name(), "before", result.drive().before()));
                rows.add(new ReplayRow(result.name(), "after", result.drive().after()));
            }
        }
        ResultFiles.writeCsv(DRIVE.of(rows), folder.resolve(DRIVE_CSV));
    }

    /** Draws every chart, each on its own; returns one line per chart that failed (the tables are already written). */
    static List<String> writeCharts(Path folder, List<WorkloadResult> results, ChartFiles.Writer writer) {
        List<String> failures = new ArrayList<>();
        for (WorkloadResult result : results) {
            Map<String, ChartFiles.Drawing> charts = new LinkedHashMap<>();
            charts.put("ttft-scatter-", () -> scatter(result));
            charts.put("ttft-cdf-", () -> cdf(result));
            charts.put("l2-throughput-", () -> throughput(result));
            charts.forEach((prefix, drawing) -> {
                String base = prefix + result.name();
                String cause = ChartFiles.tryWrite(writer, folder, base, drawing);
                if (cause != null) {
                    failures.add(base + ": " + cause);
                }
            });
        }
        return failures;
    }

    private static XYChart chart(String title, String x, String y) {
        XYChart chart = new XYChartBuilder().width(ChartFiles.WIDTH_PX).height(ChartFiles.HEIGHT_PX).title(title)
                .xAxisTitle(x).yAxisTitle(y).build();
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setPlotBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setLocale(Locale.ROOT);
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
        return chart;
    }

    private static XYChart scatter(WorkloadResult result) {
        XYChart chart = chart(result.name() + ": per-request TTFT, simulated against live", "live TTFT, median of runs (ms)",
                "simulated TTFT (ms)");
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        result.sim().ttftNsByRequest().forEach((id, simNs) -> {
            double[] live = result.live().stream().map(o -> o.ttftNsByRequest().get(id)).filter(v -> v != null)
                    .mapToDouble(Long::doubleValue).toArray();
            if (live.length > 0) {
                xs.add(Percentiles.medianMidpoint(live) / 1e6);
                ys.add(simNs / 1e6);
            }
        });
        double max = 1;
        for (int i = 0; i < xs.size(); i++) {
            max = Math.max(max, Math.max(xs.get(i), ys.get(i)));
        }
        XYSeries points = chart.addSeries("requests", xs, ys);
        points.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        XYSeries identity = chart.addSeries("y = x", new double[] {0, max}, new double[] {0, max});
        identity.setMarker(SeriesMarkers.NONE);
        return chart;
    }

    private static XYChart cdf(WorkloadResult result) {
        XYChart chart = chart(result.name() + ": TTFT distribution, live runs and simulation", "TTFT (ms)", "fraction of requests");
        for (Observation live : result.live()) {
            addCdf(chart, "live run " + (live.repeat() + 1), live.ttftNsByRequest().values());
        }
        addCdf(chart, "simulated", result.sim().ttftNsByRequest().values());
        return chart;
    }

    private static void addCdf(XYChart chart, String name, java.util.Collection<Long> ttftNs) {
        double[] values = ttftNs.stream().mapToDouble(v -> v / 1e6).sorted().toArray();
        if (values.length == 0) {
            return;
        }
        double[] fractions = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            fractions[i] = (i + 1.0) / values.length;
        }
        chart.addSeries(name, values, fractions).setMarker(SeriesMarkers.NONE);
    }

    private static XYChart throughput(WorkloadResult result) {
        XYChart chart = chart(result.name() + ": L2 throughput over time, first live run and simulation", "time from start (s)",
                "L2 MB/s completed");
        addRates(chart, "live read", result.live().getFirst().l2Timeline(), 1);
        addRates(chart, "live write", result.live().getFirst().l2Timeline(), 2);
        addRates(chart, "sim read", result.sim().l2Timeline(), 1);
        addRates(chart, "sim write", result.sim().l2Timeline(), 2);
        return chart;
    }

    /** Rates between consecutive timeline points (MB/s), over windows of at least 100 ms. */
    private static void addRates(XYChart chart, String name, List<long[]> timeline, int column) {
        List<Double> times = new ArrayList<>();
        List<Double> rates = new ArrayList<>();
        long[] from = null;
        for (long[] point : timeline) {
            if (from == null) {
                from = point;
                continue;
            }
            long spanNs = point[0] - from[0];
            if (spanNs >= 100_000_000L) {
                times.add(point[0] / 1e9);
                rates.add((point[column] - from[column]) * 1e3 / spanNs);
                from = point;
            }
        }
        if (!times.isEmpty()) {
            chart.addSeries(name, times, rates).setMarker(SeriesMarkers.NONE);
        }
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // What cannot be deleted is left behind; nothing reads it.
        }
    }

    static String fmt(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        double abs = Math.abs(value);
        return String.format(Locale.ROOT, abs >= 1000 ? "%,.0f" : abs >= 10 ? "%.1f" : abs >= 0.1 ? "%.3f" : "%.4f", value);
    }

    static String pct(double value) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%+.1f%%", value * 100);
    }

    static double[] values(List<Double> list) {
        return list.stream().mapToDouble(Double::doubleValue).toArray();
    }

    static double maxAbs(double[] values) {
        return Arrays.stream(values).map(Math::abs).max().orElse(Double.NaN);
    }
}
