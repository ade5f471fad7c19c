package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import tierlab.experiments.ChartTicks;
import tierlab.experiments.CommandException;
import tierlab.experiments.run.ExperimentFile.ChartSection;

/**
 * Charts fit for a paper: no silent average over an axis the chart does not name, round ticks, a look
 * per series that never repeats, rounded legends, error bars where seeds differ and the paper style.
 */
class PaperChartsTest {

    @TempDir
    Path folder;

    private static ChartSection chart(String type, String x, String y, String z, String series, String aggregate,
                                      String style, String errorBars) {
        return new ChartSection(type, "c", null, x, y, z, series, "all", null, null, null, null, null, aggregate, style,
                errorBars);
    }

    /** A sweep cell with parameters {@code a} (text) and {@code n} (number), one run per value of {@code metric}. */
    private static RunTables.Cell cell(String a, double n, double[] metric, double[] ttftMs) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("a", a);
        parameters.put("n", n);
        Map<String, JsonNode> axes = new LinkedHashMap<>();
        axes.put("a", TextNode.valueOf(a));
        axes.put("n", n == Math.rint(n) ? IntNode.valueOf((int) n) : com.fasterxml.jackson.databind.node.DoubleNode.valueOf(n));
        List<RunTables.Row> runs = new ArrayList<>();
        for (int seed = 0; seed < metric.length; seed++) {
            runs.add(new RunTables.Row(seed, a + "/" + n, seed + 1, parameters, Map.of("m", metric[seed]), null, List.of(),
                    Map.of("all", ttftMs), Map.of()));
        }
        return new RunTables.Cell(parameters, axes, runs);
    }

    private static RunTables tables(List<RunTables.Cell> cells) {
        List<RunTables.Row> rows = cells.stream().flatMap(c -> c.runs().stream()).toList();
        return new RunTables(null, "t", "sim", List.of("a", "n"), List.of("m"), List.of("all"), List.of(1L), null, rows, cells);
    }

    private static final double[] NO_TTFT = {1};

    @Test
    void aBarOverAnUnnamedSweptAxisIsRefusedAtLoadNamingTheChartAndTheAxis() throws IOException {
        Path file = Files.writeString(folder.resolve("folds.yaml"), RunCommandTest.SMALL.replace(
                "{type: bar, file: bars, x: store.policy, y: warm.elapsedS, aggregate: mean}",
                "{type: bar, file: bars, x: store.policy, y: warm.elapsedS}"));
        CommandException refused = assertThrows(CommandException.class, () -> ExperimentLoader.load(file));
        assertTrue(refused.getMessage().startsWith(file + ": charts[1] (bars) would average over the swept axis"
                + " 'store.l1CapacityGiB'"), refused.getMessage());
        assertFalse(refused.getMessage().contains("\n"));
        // Named in where, the same chart is one value per bar and loads.
        Path named = Files.writeString(folder.resolve("named.yaml"), RunCommandTest.SMALL.replace(
                "{type: bar, file: bars, x: store.policy, y: warm.elapsedS, aggregate: mean}",
                "{type: bar, file: bars, x: store.policy, y: warm.elapsedS, where: {store.l1CapacityGiB: 2}}"));
        assertEquals("small", ExperimentLoader.load(named).name());
    }

    @Test
    void anAggregateCombinesTheFoldedAxisAndTheAxisLabelSaysHow() {
        List<RunTables.Cell> cells = List.of(cell("p", 1, new double[] {1267}, NO_TTFT), cell("p", 2, new double[] {2806}, NO_TTFT),
                cell("q", 1, new double[] {10}, NO_TTFT), cell("q", 2, new double[] {30}, NO_TTFT));
        CategoryChart bar = (CategoryChart) ChartRenderer.draw(chart("bar", "a", "m", null, null, "max", null, null), tables(cells));
        assertEquals(List.of(2806.0, 30.0), List.copyOf(bar.getSeriesMap().get("m").getYData()));
        assertEquals("m (max over n)", bar.getYAxisTitle());
        HeatMapChart heat = (HeatMapChart) ChartRenderer.draw(chart("heatmap", "a", "a", "m", null, "min", null, null), tables(cells));
        assertEquals("m (min over n)", heat.getHeatMapSeries().getName());
    }

    @Test
    void everyCatalogueFileStillLoads() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("catalog"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml") && !f.getFileName().toString().startsWith("validation"))
                    .sorted().toList()) {
                assertNotNull(ExperimentLoader.load(file).name(), file.toString());
            }
        }
    }

    @Test
    void aCdfHasFiveToTenRoundTicksOnItsFractionAxis() throws ReflectiveOperationException {
        double[] ttft = new double[200];
        for (int i = 0; i < ttft.length; i++) {
            ttft[i] = 5 + i * 3.7;
        }
        XYChart cdf = (XYChart) ChartRenderer.draw(chart("cdf", null, null, null, "a", null, null, null),
                tables(List.of(cell("p", 1, new double[] {1}, ttft), cell("q", 2, new double[] {1}, ttft))));
        List<Double> inRange = ChartTicks.labels(cdf, "getYAxis").values().stream().map(Double::parseDouble)
                .filter(v -> v >= 0 && v <= 1).toList();
        assertTrue(inRange.size() >= 5 && inRange.size() <= 11, inRange.toString());
        for (double tick : inRange) {
            assertEquals(0, Math.round(tick * 1000) % 50, "a tick at a multiple of 0.05: " + inRange);
        }
    }

    @Test
    void twelveSeriesGetTwelveLooksAndTooManyIsRefusedNamingTheLimit() {
        List<RunTables.Cell> cells = new ArrayList<>();
        for (int s = 0; s < 12; s++) {
            cells.add(cell("p" + s, 1, new double[] {s}, NO_TTFT));
            cells.add(cell("p" + s, 2, new double[] {s + 1}, NO_TTFT));
        }
        XYChart line = (XYChart) ChartRenderer.draw(chart("line", "n", "m", null, "a", null, null, null), tables(cells));
        Set<String> looks = new HashSet<>();
        for (XYSeries series : line.getSeriesMap().values()) {
            looks.add(series.getLineColor() + "/" + series.getMarker().getClass().getSimpleName());
        }
        assertEquals(12, looks.size(), looks.toString());

        List<RunTables.Cell> many = new ArrayList<>();
        for (int s = 0; s < 65; s++) {
            many.add(cell("p" + s, 1, new double[] {s}, NO_TTFT));
        }
        CommandException refused = assertThrows(CommandException.class,
                () -> ChartRenderer.draw(chart("line", "n", "m", null, "a", null, null, null), tables(many)));
        assertTrue(refused.getMessage().contains("65 series and at most 64"), refused.getMessage());
    }

    @Test
    void legendsAndCellsShowRoundedValues() {
        List<RunTables.Cell> cells = List.of(cell("p", 0.123456789, new double[] {2814.57421875}, NO_TTFT),
                cell("q", 0.123456789, new double[] {17.5}, NO_TTFT));
        HeatMapChart heat = (HeatMapChart) ChartRenderer.draw(chart("heatmap", "a", "n", "m", null, null, null, null), tables(cells));
        assertNotNull(heat.getStyler().getHeatMapDecimalValueFormatter(), "the colour legend is formatted");
        assertEquals("2,815", heat.getStyler().getHeatMapDecimalValueFormatter().apply(2814.57421875));
        XYChart line = (XYChart) ChartRenderer.draw(chart("line", "n", "m", null, "n", null, null, null), tables(cells.subList(0, 1)));
        assertEquals(Set.of("n=0.1235"), line.getSeriesMap().keySet());
    }

    @Test
    void pointsWhoseSeedsDifferCarryErrorBarsAndTheLabelSaysWhatTheyShow() {
        List<RunTables.Cell> cells = List.of(cell("p", 1, new double[] {10, 12, 14}, NO_TTFT), cell("p", 2, new double[] {20, 20, 20}, NO_TTFT));
        XYChart line = (XYChart) ChartRenderer.draw(chart("line", "n", "m", null, null, null, null, null), tables(cells));
        XYSeries series = line.getSeriesMap().get("m");
        assertNotNull(series.getExtraValues(), "error bars");
        assertEquals(2.0, series.getExtraValues()[0], 1e-12);
        assertEquals(0.0, series.getExtraValues()[1], 1e-12);
        assertEquals("m (mean ± 1 sd over 3 seeds)", line.getYAxisTitle());
        XYChart without = (XYChart) ChartRenderer.draw(chart("line", "n", "m", null, null, null, null, "none"), tables(cells));
        assertEquals(null, without.getSeriesMap().get("m").getExtraValues());
    }

    @Test
    void thePaperStyleHasNoTitleLargerFontsAndItsOwnSize() {
        List<RunTables.Cell> cells = List.of(cell("p", 1, new double[] {1}, NO_TTFT), cell("p", 2, new double[] {2}, NO_TTFT));
        XYChart normal = (XYChart) ChartRenderer.draw(chart("line", "n", "m", null, null, null, null, null), tables(cells));
        XYChart paper = (XYChart) ChartRenderer.draw(chart("line", "n", "m", null, null, null, "paper", null), tables(cells));
        assertTrue(normal.getStyler().isChartTitleVisible());
        assertFalse(paper.getStyler().isChartTitleVisible());
        assertTrue(paper.getStyler().getAxisTickLabelsFont().getSize() > normal.getStyler().getAxisTickLabelsFont().getSize());
        assertTrue(paper.getStyler().getAxisTitleFont().getSize() > normal.getStyler().getAxisTitleFont().getSize());
        assertEquals(List.of(tierlab.experiments.ChartLooks.PAPER_WIDTH_PX, tierlab.experiments.ChartLooks.PAPER_HEIGHT_PX),
                List.of(paper.getWidth(), paper.getHeight()));
    }
}
