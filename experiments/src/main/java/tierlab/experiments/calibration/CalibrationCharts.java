package tierlab.experiments.calibration;

import java.awt.BasicStroke;
import java.nio.file.Path;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;
import tierlab.bench.BenchCase;
import tierlab.experiments.ChartFiles;

/**
 * The calibration charts. Measurements are markers (filled for random access, open for
 * sequential), the fitted model is a line of the same colour: where a line runs through its
 * markers, the model explains the device at that queue depth. The model has no notion of random
 * against sequential access, so each colour has one line for both marker shapes.
 */
final class CalibrationCharts {

    // The Okabe-Ito palette without its yellow (unreadable on white), as the demo's chart uses.
    private static final Color[] COLORS = {
        new Color(0x0072B2), new Color(0xE69F00), new Color(0x009E73), new Color(0xD55E00),
        new Color(0xCC79A7), new Color(0x56B4E9), Color.BLACK};

    /** The four charts' file stems, in report order. */
    static final List<String> STEMS = List.of("throughput-read", "throughput-write", "latency-vs-qd-read", "latency-vs-qd-write");

    private CalibrationCharts() {}

    /**
     * Draws and writes the four charts into {@code directory}, each on its own: a chart that cannot
     * be drawn or written (no fonts on the host: "Fontconfig head is null") is skipped and returned
     * as one line naming it and the cause, so it never costs the profile and the tables.
     */
    static List<String> writeAll(Path directory, List<CalibrationPoint> points, String subtitle, ChartFiles.Writer writer) {
        List<String> failures = new ArrayList<>();
        for (String stem : STEMS) {
            boolean read = stem.endsWith("-read");
            String cause = ChartFiles.tryWrite(writer, directory, stem, () -> stem.startsWith("throughput")
                    ? throughput(points, read, subtitle) : latencyVsQueueDepth(points, read, subtitle));
            if (cause != null) {
                failures.add("chart " + stem + " not drawn: " + cause);
            }
        }
        return List.copyOf(failures);
    }

    /** Throughput (MB/s) against block size, one colour per queue depth. */
    static XYChart throughput(List<CalibrationPoint> points, boolean read, String subtitle) {
        XYChart chart = base((read ? "Reads" : "Writes") + ": measured (markers) vs fitted model (lines)" + subtitle,
                "block size (KiB, log scale)", "throughput (MB/s, log scale)");
        // 4 KiB to 2 MiB spans three decades: labels at 2..9 of each would overprint near 1,000.
        chart.getStyler().setXAxisLogarithmicDecadeOnly(true);
        List<Integer> depths = distinct(points, p -> p.measured().benchCase().queueDepth());
        for (int i = 0; i < depths.size(); i++) {
            int qd = depths.get(i);
            Color color = COLORS[i % COLORS.length];
            Predicate<CalibrationPoint> atDepth = p -> p.read() == read && p.measured().benchCase().queueDepth() == qd;
            measured(chart, points, atDepth.and(p -> p.measured().benchCase().access().random()), "QD " + qd + " random",
                    p -> p.measured().benchCase().blockBytes() / 1024.0, p -> p.measured().megabytesPerSecond(), color, true);
            measured(chart, points, atDepth.and(p -> !p.measured().benchCase().access().random()), "QD " + qd + " sequential",
                    p -> p.measured().benchCase().blockBytes() / 1024.0, p -> p.measured().megabytesPerSecond(), color, false);
            model(chart, points, atDepth, "QD " + qd + " model", p -> p.measured().benchCase().blockBytes() / 1024.0,
                    p -> p.model().bytesPerSecond() / 1e6, color);
        }
        return chart;
    }

    /**
     * Mean latency (µs) against queue depth for random access, one colour per block size (the
     * smallest, a middle and the largest measured).
     */
    static XYChart latencyVsQueueDepth(List<CalibrationPoint> points, boolean read, String subtitle) {
        XYChart chart = base((read ? "Random reads" : "Random writes") + ": mean latency, measured (markers) vs model (lines)"
                + subtitle, "queue depth (log scale)", "mean latency (µs, log scale)");
        List<Integer> sizes = distinct(points, p -> p.measured().benchCase().blockBytes());
        List<Integer> shown = new ArrayList<>(new TreeSet<>(List.of(sizes.getFirst(), sizes.get(sizes.size() / 2), sizes.getLast())));
        boolean anyRandom = points.stream().anyMatch(p -> p.read() == read && p.measured().benchCase().access().random());
        for (int i = 0; i < shown.size(); i++) {
            int bytes = shown.get(i);
            Color color = COLORS[i % COLORS.length];
            // Random points when there are any; else the sequential ones stand in.
            Predicate<CalibrationPoint> ofSize = p -> p.read() == read && p.measured().benchCase().blockBytes() == bytes
                    && p.measured().benchCase().access().random() == anyRandom;
            String label = BenchCaseLabels.size(bytes);
            measured(chart, points, ofSize, label + " measured", p -> p.measured().benchCase().queueDepth(),
                    p -> p.measured().meanLatencyNs() / 1e3, color, true);
            model(chart, points, ofSize, label + " model", p -> p.measured().benchCase().queueDepth(),
                    p -> p.model().meanLatencyNs() / 1e3, color);
        }
        return chart;
    }

    private static XYChart base(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder().width(ChartFiles.WIDTH_PX).height(ChartFiles.HEIGHT_PX).title(title)
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        XYStyler styler = chart.getStyler();
        styler.setLegendPosition(LegendPosition.OutsideE);
        styler.setXAxisLogarithmic(true);
        styler.setYAxisLogarithmic(true);
        styler.setXAxisLogarithmicDecadeOnly(false);
        styler.setYAxisLogarithmicDecadeOnly(false);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setPlotGridLinesColor(new Color(0xDDDDDD));
        styler.setLegendBorderColor(new Color(0xBBBBBB));
        styler.setMarkerSize(8);
        // Decimal patterns, not tick-label functions: a function replaces XChart's log-axis tick calculator.
        styler.setXAxisDecimalPattern("#,##0.###");
        styler.setYAxisDecimalPattern("#,##0.###");
        styler.setLocale(Locale.ROOT);
        return chart;
    }

    private static void measured(XYChart chart, List<CalibrationPoint> points, Predicate<CalibrationPoint> which, String name,
                                 ToDoubleFunction<CalibrationPoint> x, ToDoubleFunction<CalibrationPoint> y, Color color,
                                 boolean filled) {
        List<CalibrationPoint> selected = sortedBy(points, which, x);
        if (selected.isEmpty()) {
            return;
        }
        XYSeries series = chart.addSeries(name, selected.stream().mapToDouble(x).toArray(), selected.stream().mapToDouble(y).toArray());
        series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        series.setMarker(filled ? SeriesMarkers.CIRCLE : SeriesMarkers.DIAMOND);
        series.setMarkerColor(filled ? color : color.brighter());
        series.setLineStyle(SeriesLines.NONE);
    }

    private static void model(XYChart chart, List<CalibrationPoint> points, Predicate<CalibrationPoint> which, String name,
                              ToDoubleFunction<CalibrationPoint> x, ToDoubleFunction<CalibrationPoint> y, Color color) {
        // Random and sequential points of one x share a prediction: keep one of each x.
        List<CalibrationPoint> selected = new ArrayList<>();
        for (CalibrationPoint p : sortedBy(points, which, x)) {
            if (selected.isEmpty() || x.applyAsDouble(selected.getLast()) != x.applyAsDouble(p)) {
                selected.add(p);
            }
        }
        if (selected.isEmpty()) {
            return;
        }
        XYSeries series = chart.addSeries(name, selected.stream().mapToDouble(x).toArray(), selected.stream().mapToDouble(y).toArray());
        series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        series.setMarker(SeriesMarkers.NONE);
        series.setLineColor(color);
        series.setLineStyle(new BasicStroke(2f));
    }

    private static List<CalibrationPoint> sortedBy(List<CalibrationPoint> points, Predicate<CalibrationPoint> which,
                                                   ToDoubleFunction<CalibrationPoint> x) {
        return points.stream().filter(which).sorted(java.util.Comparator.comparingDouble(x)).toList();
    }

    private static List<Integer> distinct(List<CalibrationPoint> points, java.util.function.ToIntFunction<CalibrationPoint> key) {
        return List.copyOf(points.stream().mapToInt(key).boxed().collect(java.util.stream.Collectors.toCollection(TreeSet::new)));
    }

    /** Labels shared by the charts and the CSV. */
    static final class BenchCaseLabels {
        private BenchCaseLabels() {}

        static String size(int bytes) {
            return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
        }

        static String access(BenchCase benchCase) {
            return benchCase.access().fioRw();
        }
    }
}
