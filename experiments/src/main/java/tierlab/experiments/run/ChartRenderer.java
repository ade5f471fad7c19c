package tierlab.experiments.run;

import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
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
import tierlab.experiments.ChartFiles;
import tierlab.experiments.ChartLooks;
import tierlab.experiments.run.ExperimentFile.ChartSection;

/**
 * Draws the charts an experiment file asks for from the tables a run wrote ({@link RunTables}):
 * line (a metric against a numeric parameter), bar (against a categorical one), heat map (two
 * parameters), CDF (per-request TTFT) and time series (a sampled quantity over virtual time).
 * Points are means over seeds (with mean ± 1 sd error bars where seeds differ); a point never folds
 * a swept axis the chart does not name unless the chart's {@code aggregate} says how
 * ({@link ChartAggregation}). CDF and time-series charts show each cell's first seed.
 *
 * <p>A chart never costs data: {@link #render} draws and writes each chart on its own, and a chart
 * that cannot be drawn or written (a host without fonts: "Fontconfig head is null"; a spec that
 * matches no run) is returned as a {@link Failed} with its cause, for the report and stderr, while
 * the other charts and every table are still written.
 */
public final class ChartRenderer {

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
        String tooMany = ChartLooks.tooManySeries(series.size(), true);
        if (tooMany != null) {
            throw new tierlab.experiments.CommandException(tooMany);
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
        return value instanceof String text && !text.isEmpty() ? text : shortName + "=" + shown(value);
    }

    /** A parameter value as a chart shows it: whole numbers as they are, fractions to 4 significant digits. */
    static String shown(Object value) {
        return value instanceof Double number && number != Math.rint(number) ? ChartLooks.rounded(number) : Aggregates.format(value);
    }

    /** One plotted point: the aggregate of its cells' means and, for a point of one cell, its seeds' standard deviation. */
    private record Point(double value, double stdev, boolean oneCell) {}

    private static Point point(ChartSection section, String metric, List<RunTables.Cell> cells) {
        double value = ChartAggregation.combine(section, cells.stream().map(c -> c.mean(metric)).toList());
        boolean oneCell = cells.size() == 1;
        double stdev = oneCell && cells.getFirst().statistics(metric).getN() > 1
                ? cells.getFirst().statistics(metric).getStandardDeviation() : 0;
        return new Point(value, stdev, oneCell);
    }

    /** True when the chart draws error bars: it does not turn them off, every point is one cell, and seeds differ somewhere. */
    private static boolean errorBars(ChartSection section, List<Point> points) {
        return !"none".equals(section.errorBars()) && points.stream().allMatch(Point::oneCell)
                && points.stream().anyMatch(p -> p.stdev() > 0);
    }

    /** The y label, with what was folded into each point and what the error bars show. */
    private static String valueLabel(ChartSection section, String label, List<RunTables.Cell> groups, boolean bars) {
        String folded = ChartAggregation.labelSuffix(section, foldedAxes(section, groups));
        int seeds = groups.stream().mapToInt(g -> g.runs().size()).max().orElse(1);
        return label + folded + (bars ? " (mean ± 1 sd over " + seeds + " seeds)" : "");
    }

    static List<String> foldedAxes(ChartSection section, List<RunTables.Cell> groups) {
        List<String> axes = new ArrayList<>(new LinkedHashSet<>(groups.stream().flatMap(g -> g.axisValues().keySet().stream()).toList()));
        return ChartAggregation.foldedAxes(section, groups.stream()
                .map(g -> new ChartAggregation.Swept(g.parameters(), g.axisValues())).toList(), axes);
    }

    private static XYChart line(ChartSection section, List<RunTables.Cell> groups) {
        Map<String, double[][]> drawn = new LinkedHashMap<>();
        List<Point> all = new ArrayList<>();
        for (Map.Entry<String, List<RunTables.Cell>> entry : bySeries(section, groups).entrySet()) {
            Map<Double, List<RunTables.Cell>> byX = new java.util.TreeMap<>();
            for (RunTables.Cell group : entry.getValue()) {
                Object x = group.parameters().get(section.x());
                if (!(x instanceof Number number)) {
                    throw new IllegalArgumentException("x: a line chart needs a numeric parameter, and " + section.x()
                            + " is '" + x + "' (use a bar chart)");
                }
                byX.computeIfAbsent(number.doubleValue(), key -> new ArrayList<>()).add(group);
            }
            List<Point> points = byX.values().stream().map(cells -> point(section, section.y(), cells)).toList();
            all.addAll(points);
            drawn.put(entry.getKey(), new double[][] {byX.keySet().stream().mapToDouble(Double::doubleValue).toArray(),
                points.stream().mapToDouble(Point::value).toArray(), points.stream().mapToDouble(Point::stdev).toArray()});
        }
        boolean bars = errorBars(section, all);
        XYChart chart = xyChart(section, section.x(),
                valueLabel(section, section.yLabel() != null ? section.yLabel() : section.y(), groups, bars));
        int style = 0;
        for (Map.Entry<String, double[][]> entry : drawn.entrySet()) {
            double[][] xyErr = entry.getValue();
            XYSeries series = bars ? chart.addSeries(entry.getKey(), xyErr[0], xyErr[1], xyErr[2])
                    : chart.addSeries(entry.getKey(), xyErr[0], xyErr[1]);
            ChartLooks.style(series, style++, true);
        }
        if (Boolean.TRUE.equals(section.logX())) {
            double[] xs = drawn.values().stream().flatMapToDouble(v -> Arrays.stream(v[0])).filter(v -> v > 0).toArray();
            if (xs.length > 0) {
                double max = Arrays.stream(xs).max().orElseThrow();
                ChartLooks.logXLabels(chart, Arrays.stream(xs).min().orElseThrow(), max, ChartLooks.rounded(max));
            }
        }
        return chart;
    }

    private static CategoryChart bar(ChartSection section, List<RunTables.Cell> groups) {
        List<String> categories = new ArrayList<>(new LinkedHashSet<>(groups.stream().map(g -> g.label(section.x())).toList()));
        Map<String, List<Point>> drawn = new LinkedHashMap<>();
        for (Map.Entry<String, List<RunTables.Cell>> entry : bySeries(section, groups).entrySet()) {
            List<Point> points = new ArrayList<>();
            for (String category : categories) {
                List<RunTables.Cell> cells = entry.getValue().stream().filter(g -> g.label(section.x()).equals(category)).toList();
                points.add(cells.isEmpty() ? new Point(0, 0, true) : point(section, section.y(), cells));
            }
            drawn.put(entry.getKey(), points);
        }
        boolean bars = errorBars(section, drawn.values().stream().flatMap(List::stream).toList());
        int[] size = size(section);
        CategoryChart chart = new CategoryChartBuilder().width(size[0]).height(size[1]).title(title(section))
                .xAxisTitle(section.xLabel() != null ? section.xLabel() : section.x())
                .yAxisTitle(valueLabel(section, section.yLabel() != null ? section.yLabel() : section.y(), groups, bars)).build();
        look(section, chart.getStyler());
        chart.getStyler().setLegendVisible(section.series() != null);
        List<String> shownCategories = categories.stream().map(c -> shownLabel(groups, section.x(), c)).toList();
        int style = 0;
        for (Map.Entry<String, List<Point>> entry : drawn.entrySet()) {
            List<Double> values = entry.getValue().stream().map(Point::value).toList();
            var series = bars ? chart.addSeries(entry.getKey(), shownCategories, values, entry.getValue().stream().map(Point::stdev).toList())
                    : chart.addSeries(entry.getKey(), shownCategories, values);
            series.setFillColor(ChartLooks.color(style++));
        }
        return chart;
    }

    /** The category label of {@code key} (a formatted parameter value) as the chart shows it. */
    private static String shownLabel(List<RunTables.Cell> groups, String parameter, String key) {
        return groups.stream().filter(g -> g.label(parameter).equals(key)).findFirst()
                .map(g -> shown(g.parameters().get(parameter))).orElse(key);
    }

    private static HeatMapChart heatmap(ChartSection section, List<RunTables.Cell> groups) {
        List<Object> xs = distinctSorted(groups, section.x());
        List<Object> ys = distinctSorted(groups, section.y());
        List<Number[]> cells = new ArrayList<>();
        for (int xi = 0; xi < xs.size(); xi++) {
            for (int yi = 0; yi < ys.size(); yi++) {
                String xKey = Aggregates.format(xs.get(xi));
                String yKey = Aggregates.format(ys.get(yi));
                List<RunTables.Cell> here = groups.stream()
                        .filter(g -> Aggregates.format(g.parameters().get(section.x())).equals(xKey)
                                && Aggregates.format(g.parameters().get(section.y())).equals(yKey)).toList();
                double value = ChartAggregation.combine(section, here.stream().map(g -> g.mean(section.z())).toList());
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
        int[] size = size(section);
        HeatMapChart chart = new HeatMapChartBuilder().width(size[0]).height(size[1]).title(title(section))
                .xAxisTitle(section.xLabel() != null ? section.xLabel() : section.x())
                .yAxisTitle(section.yLabel() != null ? section.yLabel() : section.y()).build();
        look(section, chart.getStyler());
        chart.getStyler().setShowValue(true);
        // Rounded in the cells and in the colour legend alike: the legend otherwise prints 2814.57421875.
        chart.getStyler().setHeatMapDecimalValueFormatter(ChartLooks::rounded);
        chart.getStyler().setRangeColors(new Color[] {new Color(0xF7FBFF), new Color(0x6BAED6), new Color(0x08306B)});
        chart.addSeries(section.z() + ChartAggregation.labelSuffix(section, foldedAxes(section, groups)),
                xs.stream().map(ChartRenderer::shown).toList(), ys.stream().map(ChartRenderer::shown).toList(), cells);
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
        checkLineSeries(groups.size());
        int style = 0;
        double minMs = Double.POSITIVE_INFINITY;
        double maxMs = 0;
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
            minMs = Math.min(minMs, sortedMs[0]);
            maxMs = Math.max(maxMs, sortedMs[sortedMs.length - 1]);
            String name = section.series() == null ? run.label() : seriesName(section, group);
            ChartLooks.style(chart.addSeries(uniqueName(chart, name), sortedMs, fraction), style++, false);
        }
        if (style > 0) {
            chart.getStyler().setYAxisMin(0.0);
            chart.getStyler().setYAxisMax(1.0);
            // About 100 px between ticks: 0, 0.2, ..., 1 at the default size.
            chart.getStyler().setYAxisTickMarkSpacingHint(100);
            ChartLooks.avoidLatticeTicks(chart, minMs);
            if (Boolean.TRUE.equals(section.logX())) {
                ChartLooks.logXLabels(chart, minMs, maxMs, ChartLooks.rounded(maxMs));
            }
        }
        return chart;
    }

    private static void checkLineSeries(int count) {
        String tooMany = ChartLooks.tooManySeries(count, false);
        if (tooMany != null) {
            throw new tierlab.experiments.CommandException(tooMany);
        }
    }

    private static XYChart timeseries(ChartSection section, List<RunTables.Cell> groups) {
        XYChart chart = xyChart(section, "virtual time (s)", section.y());
        checkLineSeries(groups.size());
        int style = 0;
        for (RunTables.Cell group : groups) {
            RunTables.Row run = group.runs().getFirst();
            double[] xs = run.samples().get("timeS");
            double[] ys = run.samples().get(section.y());
            if (xs == null || xs.length == 0 || ys == null) {
                continue;
            }
            String name = section.series() == null ? run.label() : seriesName(section, group);
            ChartLooks.style(chart.addSeries(uniqueName(chart, name), xs, ys), style++, false);
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
        int[] size = size(section);
        XYChart chart = new XYChartBuilder().width(size[0]).height(size[1]).title(title(section))
                .xAxisTitle(section.xLabel() != null ? section.xLabel() : xTitle)
                // A line chart's caller composes its label (the file's, what the points fold, what the bars show).
                .yAxisTitle(section.yLabel() != null && !section.type().equals("line") ? section.yLabel() : yTitle).build();
        look(section, chart.getStyler());
        chart.getStyler().setXAxisLogarithmic(Boolean.TRUE.equals(section.logX()));
        chart.getStyler().setYAxisLogarithmic(Boolean.TRUE.equals(section.logY()));
        chart.getStyler().setXAxisDecimalPattern("#,##0.###");
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        return chart;
    }

    /** Width and height in pixels: the paper style's fixed size, else every chart's. */
    static int[] size(ChartSection section) {
        return "paper".equals(section.style()) ? new int[] {ChartLooks.PAPER_WIDTH_PX, ChartLooks.PAPER_HEIGHT_PX}
                : new int[] {ChartFiles.WIDTH_PX, ChartFiles.HEIGHT_PX};
    }

    private static void look(ChartSection section, Styler styler) {
        ChartLooks.common(styler);
        if ("paper".equals(section.style())) {
            ChartLooks.paper(styler);
        }
    }
}
