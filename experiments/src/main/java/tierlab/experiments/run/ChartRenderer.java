package tierlab.experiments.run;

import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;
import tierlab.experiments.ChartFiles;
import tierlab.experiments.run.ExperimentFile.ChartSection;

/**
 * Draws the charts an experiment file asks for from the tables a run wrote ({@link RunTables}):
 * line (a metric against a numeric parameter), bar (against a categorical one), heat map (two
 * parameters), CDF (per-request TTFT) and time series (a sampled quantity over virtual time).
 * Points are means over seeds; CDF and time-series charts show each cell's first seed.
 *
 * <p>A chart never costs data: {@link #render} draws and writes each chart on its own, and a chart
 * that cannot be drawn or written (a host without fonts: "Fontconfig head is null"; a spec that
 * matches no run) is returned as a {@link Failed} with its cause, for the report and stderr, while
 * the other charts and every table are still written.
 */
public final class ChartRenderer {

    // The Okabe-Ito palette less its yellow (unreadable on white), then black and grey.
    private static final Color[] COLORS = {
        new Color(0x0072B2), new Color(0xE69F00), new Color(0x009E73), new Color(0xD55E00),
        new Color(0xCC79A7), new Color(0x56B4E9), Color.BLACK, new Color(0x777777)};
    private static final Marker[] MARKERS = {
        SeriesMarkers.CIRCLE, SeriesMarkers.SQUARE, SeriesMarkers.DIAMOND, SeriesMarkers.TRIANGLE_UP,
        SeriesMarkers.TRIANGLE_DOWN, SeriesMarkers.CROSS, SeriesMarkers.PLUS, SeriesMarkers.OVAL};

    /** A drawn chart and the base name of its files. */
    public record Drawn(ChartSection section, Chart<?, ?> chart) {
        public String png() {
            return section.file() + ".png";
        }

        public String svg() {
            return section.file() + ".svg";
        }

        public String title() {
            return ChartRenderer.title(section);
        }
    }

    /** A chart that could not be drawn or written, and why (one line). */
    public record Failed(ChartSection section, String cause) {
        public String title() {
            return ChartRenderer.title(section);
        }
    }

    /** What {@link #render} did: the charts written, the charts that failed. */
    public record Rendered(List<Drawn> drawn, List<Failed> failed) {}

    private ChartRenderer() {
    }

    /**
     * Draws every chart of {@code sections} from {@code tables} and writes it into {@code folder}
     * (each file atomically). {@code problems} are spec problems found beforehand (chart index →
     * one line): those charts are not drawn and are reported as failed.
     */
    public static Rendered render(List<ChartSection> sections, RunTables tables, Map<Integer, String> problems,
                                  Path folder, ChartFiles.Writer writer) {
        List<Drawn> drawn = new ArrayList<>();
        List<Failed> failed = new ArrayList<>();
        for (int i = 0; i < sections.size(); i++) {
            ChartSection section = sections.get(i);
            if (problems.containsKey(i)) {
                failed.add(new Failed(section, problems.get(i)));
                continue;
            }
            Chart<?, ?>[] chart = new Chart<?, ?>[1];
            String cause = ChartFiles.tryWrite(writer, folder, section.file(), () -> chart[0] = draw(section, tables));
            if (cause == null) {
                drawn.add(new Drawn(section, chart[0]));
            } else {
                failed.add(new Failed(section, cause));
            }
        }
        return new Rendered(List.copyOf(drawn), List.copyOf(failed));
    }

    /** One chart from the tables; the spec was checked by {@link ChartSpecs#problems}. */
    static Chart<?, ?> draw(ChartSection section, RunTables tables) {
        List<RunTables.Cell> selected = tables.cells().stream().filter(g -> g.matches(section.where())).toList();
        return switch (section.type()) {
            case "line" -> line(section, selected);
            case "bar" -> bar(section, selected);
            case "heatmap" -> heatmap(section, selected);
            case "cdf" -> cdf(section, selected);
            case "timeseries" -> timeseries(section, selected);
            default -> throw new IllegalStateException(section.type());
        };
    }

    static String title(ChartSection section) {
        if (section.title() != null) {
            return section.title();
        }
        return switch (section.type()) {
            case "heatmap" -> section.z() + " by " + section.x() + " and " + section.y();
            case "cdf" -> "TTFT distribution, " + section.pass() + " pass";
            case "timeseries" -> section.y() + " over virtual time";
            default -> section.y() + " by " + section.x();
        };
    }

    /** Groups split by the series parameter, in first-seen order. */
    private static Map<String, List<RunTables.Cell>> bySeries(ChartSection section, List<RunTables.Cell> groups) {
        Map<String, List<RunTables.Cell>> series = new LinkedHashMap<>();
        for (RunTables.Cell group : groups) {
            series.computeIfAbsent(seriesName(section, group), key -> new ArrayList<>()).add(group);
        }
        return series;
    }

    /** "lru" for a policy, but "promotionsAsHeadroom=true" for a flag or a number, which alone say nothing. */
    static String seriesName(ChartSection section, RunTables.Cell group) {
        if (section.series() == null) {
            return section.type().equals("line") || section.type().equals("bar") ? section.y() : "all runs";
        }
        Object value = group.parameters().get(section.series());
        String shortName = section.series().substring(section.series().lastIndexOf('.') + 1);
        return value instanceof String text && !text.isEmpty() ? text : shortName + "=" + Aggregates.format(value);
    }

    private static XYChart line(ChartSection section, List<RunTables.Cell> groups) {
        XYChart chart = xyChart(section, section.x(), section.y());
        int style = 0;
        for (Map.Entry<String, List<RunTables.Cell>> entry : bySeries(section, groups).entrySet()) {
            // Several cells can share an x within a series when a third axis is not split out: average them.
            Map<Double, List<Double>> byX = new java.util.TreeMap<>();
            for (RunTables.Cell group : entry.getValue()) {
                Object x = group.parameters().get(section.x());
                if (!(x instanceof Number number)) {
                    throw new IllegalArgumentException("x: a line chart needs a numeric parameter, and " + section.x()
                            + " is '" + x + "' (use a bar chart)");
                }
                byX.computeIfAbsent(number.doubleValue(), key -> new ArrayList<>()).add(group.mean(section.y()));
            }
            double[] xs = byX.keySet().stream().mapToDouble(Double::doubleValue).toArray();
            double[] ys = byX.values().stream().mapToDouble(v -> v.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN)).toArray();
            style(chart.addSeries(entry.getKey(), xs, ys), style++);
        }
        return chart;
    }

    private static CategoryChart bar(ChartSection section, List<RunTables.Cell> groups) {
        CategoryChart chart = new CategoryChartBuilder().width(ChartFiles.WIDTH_PX).height(ChartFiles.HEIGHT_PX).title(title(section))
                .xAxisTitle(section.xLabel() != null ? section.xLabel() : section.x())
                .yAxisTitle(section.yLabel() != null ? section.yLabel() : section.y()).build();
        common(chart.getStyler());
        chart.getStyler().setLegendVisible(section.series() != null);
        List<String> categories = new ArrayList<>(new LinkedHashSet<>(groups.stream().map(g -> g.label(section.x())).toList()));
        int style = 0;
        for (Map.Entry<String, List<RunTables.Cell>> entry : bySeries(section, groups).entrySet()) {
            List<Double> values = new ArrayList<>();
            for (String category : categories) {
                values.add(entry.getValue().stream().filter(g -> g.label(section.x()).equals(category))
                        .mapToDouble(g -> g.mean(section.y())).average().orElse(0));
            }
            chart.addSeries(entry.getKey(), categories, values).setFillColor(COLORS[style++ % COLORS.length]);
        }
        return chart;
    }

    private static HeatMapChart heatmap(ChartSection section, List<RunTables.Cell> groups) {
        List<Object> xs = distinctSorted(groups, section.x());
        List<Object> ys = distinctSorted(groups, section.y());
        List<Number[]> cells = new ArrayList<>();
        for (int xi = 0; xi < xs.size(); xi++) {
            for (int yi = 0; yi < ys.size(); yi++) {
                int fx = xi;
                int fy = yi;
                double value = groups.stream()
                        .filter(g -> Aggregates.format(g.parameters().get(section.x())).equals(Aggregates.format(xs.get(fx)))
                                && Aggregates.format(g.parameters().get(section.y())).equals(Aggregates.format(ys.get(fy))))
                        .mapToDouble(g -> g.mean(section.z())).average().orElse(Double.NaN);
                if (!Double.isNaN(value)) {
                    cells.add(new Number[] {xi, yi, value});
                }
            }
        }
        if (cells.isEmpty()) {
            // The chart library's own refusal ("Heat data cannot be empty!!!") would say nothing about the tables.
            throw new tierlab.experiments.CommandException("no run has a value of " + section.z()
                    + " (the runs failed, or its cells in results.csv are empty)");
        }
        HeatMapChart chart = new HeatMapChartBuilder().width(ChartFiles.WIDTH_PX).height(ChartFiles.HEIGHT_PX).title(title(section))
                .xAxisTitle(section.xLabel() != null ? section.xLabel() : section.x())
                .yAxisTitle(section.yLabel() != null ? section.yLabel() : section.y()).build();
        common(chart.getStyler());
        chart.getStyler().setShowValue(true);
        chart.getStyler().setHeatMapValueDecimalPattern("#,##0.###");
        chart.getStyler().setRangeColors(new Color[] {new Color(0xF7FBFF), new Color(0x6BAED6), new Color(0x08306B)});
        chart.addSeries(section.z(), xs.stream().map(Aggregates::format).toList(),
                ys.stream().map(Aggregates::format).toList(), cells);
        return chart;
    }

    private static List<Object> distinctSorted(List<RunTables.Cell> groups, String parameter) {
        List<Object> values = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (RunTables.Cell group : groups) {
            Object value = group.parameters().get(parameter);
            if (seen.add(Aggregates.format(value))) {
                values.add(value);
            }
        }
        if (values.stream().allMatch(v -> v instanceof Number)) {
            values.sort(Comparator.comparingDouble(v -> ((Number) v).doubleValue()));
        }
        return values;
    }

    private static XYChart cdf(ChartSection section, List<RunTables.Cell> groups) {
        XYChart chart = xyChart(section, "TTFT (ms" + (Boolean.TRUE.equals(section.logX()) ? ", log scale)" : ")"),
                "fraction of requests");
        int style = 0;
        for (RunTables.Cell group : groups) {
            RunTables.Row run = group.runs().getFirst();
            double[] values = run.ttftMsByPass().getOrDefault(section.pass(), new double[0]);
            if (values.length == 0) {
                continue;
            }
            // At least 1 ns, so a log axis has no zero.
            double[] sortedMs = Arrays.stream(values).map(v -> Math.max(v, 1e-6)).sorted().toArray();
            double[] fraction = new double[sortedMs.length];
            for (int i = 0; i < sortedMs.length; i++) {
                fraction[i] = (i + 1.0) / sortedMs.length;
            }
            String name = section.series() == null ? run.label() : seriesName(section, group);
            XYSeries series = chart.addSeries(uniqueName(chart, name), sortedMs, fraction);
            style(series, style++);
            series.setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }

    private static XYChart timeseries(ChartSection section, List<RunTables.Cell> groups) {
        XYChart chart = xyChart(section, "virtual time (s)", section.y());
        int style = 0;
        for (RunTables.Cell group : groups) {
            RunTables.Row run = group.runs().getFirst();
            double[] xs = run.samples().get("timeS");
            double[] ys = run.samples().get(section.y());
            if (xs == null || xs.length == 0 || ys == null) {
                continue;
            }
            String name = section.series() == null ? run.label() : seriesName(section, group);
            XYSeries series = chart.addSeries(uniqueName(chart, name), xs, ys);
            style(series, style++);
            series.setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }

    private static String uniqueName(XYChart chart, String name) {
        String candidate = name;
        for (int n = 2; chart.getSeriesMap().containsKey(candidate); n++) {
            candidate = name + " (" + n + ")";
        }
        return candidate;
    }

    private static XYChart xyChart(ChartSection section, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder().width(ChartFiles.WIDTH_PX).height(ChartFiles.HEIGHT_PX).title(title(section))
                .xAxisTitle(section.xLabel() != null ? section.xLabel() : xTitle)
                .yAxisTitle(section.yLabel() != null ? section.yLabel() : yTitle).build();
        common(chart.getStyler());
        chart.getStyler().setXAxisLogarithmic(Boolean.TRUE.equals(section.logX()));
        chart.getStyler().setYAxisLogarithmic(Boolean.TRUE.equals(section.logY()));
        chart.getStyler().setXAxisDecimalPattern("#,##0.###");
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        return chart;
    }

    private static void common(Styler styler) {
        styler.setLegendPosition(LegendPosition.OutsideE);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setLegendBorderColor(new Color(0xBBBBBB));
        if (styler instanceof org.knowm.xchart.style.AxesChartStyler axes) {
            axes.setPlotGridLinesColor(new Color(0xDDDDDD));
            axes.setLocale(Locale.ROOT);
        }
    }

    private static void style(XYSeries series, int index) {
        Color color = COLORS[index % COLORS.length];
        series.setLineColor(color);
        series.setMarkerColor(color);
        series.setMarker(MARKERS[index % MARKERS.length]);
    }
}
