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
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tierlab.experiments.ChartFiles;
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

    static void writeTables(Path folder, List<WorkloadResult> results) throws IOException {
        StringColumn workload = StringColumn.create("workload");
        StringColumn role = StringColumn.create("role");
        StringColumn pass = StringColumn.create("pass");
        StringColumn metric = StringColumn.create("metric");
        StringColumn unit = StringColumn.create("unit");
        DoubleColumn liveMedian = DoubleColumn.create("liveMedian");
        DoubleColumn liveMin = DoubleColumn.create("liveMin");
        DoubleColumn liveMax = DoubleColumn.create("liveMax");
        DoubleColumn liveSpread = DoubleColumn.create("liveSpread");
        DoubleColumn sim = DoubleColumn.create("sim");
        DoubleColumn error = DoubleColumn.create("relativeError");
        DoubleColumn simAfter = DoubleColumn.create("simDriveAfter");
        DoubleColumn errorAfter = DoubleColumn.create("relativeErrorDriveAfter");
        StringColumn verdict = StringColumn.create("verdict");
        for (WorkloadResult result : results) {
            for (Comparison.Row row : result.rows()) {
                workload.append(row.workload());
                role.append(result.role());
                pass.append(row.pass());
                metric.append(row.metric());
                unit.append(row.unit());
                liveMedian.append(row.liveMedian());
                liveMin.append(row.liveMin());
                liveMax.append(row.liveMax());
                liveSpread.append(row.liveSpread());
                sim.append(row.sim());
                error.append(row.relativeError());
                simAfter.append(row.simDriveAfter());
                errorAfter.append(row.relativeErrorDriveAfter());
                verdict.append(Verdict.of(row).label());
            }
        }
        ResultFiles.writeCsv(Table.create("validation", workload, role, pass, metric, unit, liveMedian, liveMin, liveMax, liveSpread,
                sim, error, simAfter, errorAfter, verdict), folder.resolve(CSV));
        writeDecisionKinds(folder, results);
        writeDrive(folder, results);
        StringColumn decisionWorkload = StringColumn.create("workload");
        DoubleColumn requests = DoubleColumn.create("requests");
        DoubleColumn identical = DoubleColumn.create("identical");
        StringColumn sameOrder = StringColumn.create("sameOrder");
        DoubleColumn agreeing = DoubleColumn.create("liveRunsIdenticalToSim");
        DoubleColumn simLookups = DoubleColumn.create("simLookupCalls");
        DoubleColumn liveLookups = DoubleColumn.create("liveLookupCalls");
        StringColumn divergence = StringColumn.create("firstDivergence");
        StringColumn kinds = StringColumn.create("decisionCountsSimLive");
        for (WorkloadResult result : results) {
            Comparison.Decisions d = result.decisions();
            decisionWorkload.append(result.name());
            requests.append(d.requests());
            identical.append(d.identical());
            sameOrder.append(Boolean.toString(d.sameOrder()));
            agreeing.append(d.liveRepeatsAgreeing());
            simLookups.append(d.simLookupCalls());
            liveLookups.append(d.liveLookupCalls());
            divergence.append(d.firstDivergence() == null ? "" : d.firstDivergence());
            kinds.append(d.kindsThatDiffer());
        }
        ResultFiles.writeCsv(Table.create("decisions", decisionWorkload, requests, identical, sameOrder, agreeing, simLookups,
                liveLookups, divergence, kinds), folder.resolve(DECISIONS_CSV));
    }

    /** Per workload and decision kind: how many the simulation made beside the live runs' median, least and most. */
    private static void writeDecisionKinds(Path folder, List<WorkloadResult> results) throws IOException {
        StringColumn workload = StringColumn.create("workload");
        StringColumn kind = StringColumn.create("kind");
        DoubleColumn sim = DoubleColumn.create("sim");
        DoubleColumn liveMedian = DoubleColumn.create("liveMedian");
        DoubleColumn liveMin = DoubleColumn.create("liveMin");
        DoubleColumn liveMax = DoubleColumn.create("liveMax");
        DoubleColumn error = DoubleColumn.create("relativeError");
        for (WorkloadResult result : results) {
            for (Comparison.KindCount count : Comparison.kindCounts(result.live(), result.sim())) {
                workload.append(result.name());
                kind.append(count.kind());
                sim.append(count.sim());
                liveMedian.append(count.liveMedian());
                liveMin.append(count.liveMin());
                liveMax.append(count.liveMax());
                error.append(count.relativeError());
            }
        }
        ResultFiles.writeCsv(Table.create("decision-kinds", workload, kind, sim, liveMedian, liveMin, liveMax, error),
                folder.resolve(DECISION_KINDS_CSV));
    }

    /** Per workload and replay (before, after the live runs): what the drive moved and how fast. */
    private static void writeDrive(Path folder, List<WorkloadResult> results) throws IOException {
        StringColumn workload = StringColumn.create("workload");
        StringColumn phase = StringColumn.create("replay");
        DoubleColumn writeBytes = DoubleColumn.create("writeBytes");
        DoubleColumn writeOps = DoubleColumn.create("writeOps");
        DoubleColumn writeSeconds = DoubleColumn.create("writeSeconds");
        DoubleColumn writeRate = DoubleColumn.create("writeBytesPerSecond");
        DoubleColumn readBytes = DoubleColumn.create("readBytes");
        DoubleColumn readOps = DoubleColumn.create("readOps");
        DoubleColumn readSeconds = DoubleColumn.create("readSeconds");
        DoubleColumn readRate = DoubleColumn.create("readBytesPerSecond");
        DoubleColumn fileBytes = DoubleColumn.create("fileBytes");
        StringColumn backend = StringColumn.create("backend");
        for (WorkloadResult result : results) {
            if (result.drive() == null) {
                continue;
            }
            for (var entry : List.of(Map.entry("before", result.drive().before()), Map.entry("after", result.drive().after()))) {
                var rates = entry.getValue();
                workload.append(result.name());
                phase.append(entry.getKey());
                writeBytes.append(rates.writeBytes());
                writeOps.append(rates.writeOps());
                writeSeconds.append(rates.writeSeconds());
                writeRate.append(rates.writeBytesPerSecond());
                readBytes.append(rates.readBytes());
                readOps.append(rates.readOps());
                readSeconds.append(rates.readSeconds());
                readRate.append(rates.readBytesPerSecond());
                fileBytes.append(rates.fileBytes());
                backend.append(rates.backend());
            }
        }
        ResultFiles.writeCsv(Table.create("drive", workload, phase, writeBytes, writeOps, writeSeconds, writeRate, readBytes, readOps,
                readSeconds, readRate, fileBytes, backend), folder.resolve(DRIVE_CSV));
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
