package tierlab.experiments;

import java.awt.BasicStroke;
import java.awt.Color;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The miss-ratio chart: miss ratio against capacity (log scale), one line per policy. */
public final class MissRatioChart {

    public static final String INFINITE_SERIES = "infinite cache";

    // The Okabe-Ito palette (distinguishable with the common colour-vision deficiencies), less its
    // yellow, which is unreadable on white; black is kept for belady and grey for the bound.
    private static final Color[] COLORS = {
        new Color(0x0072B2), new Color(0xE69F00), new Color(0x009E73), new Color(0xD55E00),
        new Color(0xCC79A7), new Color(0x56B4E9)};
    private static final Marker[] MARKERS = {
        SeriesMarkers.SQUARE, SeriesMarkers.DIAMOND, SeriesMarkers.TRIANGLE_UP, SeriesMarkers.TRIANGLE_DOWN,
        SeriesMarkers.CROSS, SeriesMarkers.PLUS};
    private static final Color BELADY_COLOR = Color.BLACK;
    private static final Color INFINITE_COLOR = new Color(0x777777);

    private MissRatioChart() {
    }

    public static XYChart of(MissRatioCurves curves, String title) {
        return of(curves, title, 512);
    }

    /** @param blockTokens tokens per block of the replayed ids, for the axis title */
    public static XYChart of(MissRatioCurves curves, String title, int blockTokens) {
        List<Long> capacities = curves.capacities();
        // A log axis labels 1-9 of every decade; "5,000 6,000 7,000 ..." runs together at this width,
        // while "5 6 7 ..." in thousands of blocks stays readable.
        boolean thousands = capacities.getFirst() >= 1000;
        double unit = thousands ? 1000.0 : 1.0;
        XYChart chart = new XYChartBuilder()
                .width(ChartFiles.WIDTH_PX)
                .height(ChartFiles.HEIGHT_PX)
                .title(title)
                .xAxisTitle("L1 capacity (" + (thousands ? "thousands of blocks" : "blocks")
                        + "; 1 block = " + blockTokens + " tokens; log scale)")
                .yAxisTitle("block miss ratio (misses / references)")
                .build();
        XYStyler styler = chart.getStyler();
        styler.setLegendPosition(LegendPosition.OutsideE);
        styler.setXAxisLogarithmic(true);
        // Label 2,000, 3,000, ... too, not only the powers of ten: the capacities sit between them.
        styler.setXAxisLogarithmicDecadeOnly(false);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setPlotGridLinesColor(new Color(0xDDDDDD));
        styler.setLegendBorderColor(new Color(0xBBBBBB));
        styler.setYAxisDecimalPattern("0.00");
        // A decimal pattern, not a tick-label function: XChart's function replaces the log-axis tick
        // calculator with a linear one, which puts linear labels under log-placed points.
        styler.setXAxisDecimalPattern("#,##0.###");
        styler.setLocale(Locale.ROOT);

        double[] x = capacities.stream().mapToDouble(capacity -> capacity / unit).toArray();
        int style = 0;
        for (String policy : curves.policies()) {
            double[] y = capacities.stream().mapToDouble(c -> curves.point(policy, c).missRatio()).toArray();
            XYSeries series = chart.addSeries(policy, x, y);
            if (MissRatioCurves.needsFuture(policy)) {
                series.setLineColor(BELADY_COLOR);
                series.setMarkerColor(BELADY_COLOR);
                series.setLineStyle(SeriesLines.DASH_DASH);
                series.setMarker(SeriesMarkers.CIRCLE);
            } else {
                Color color = COLORS[style % COLORS.length];
                series.setLineColor(color);
                series.setMarkerColor(color);
                series.setMarker(MARKERS[style % MARKERS.length]);
                style++;
            }
        }
        double[] boundX = {x[0], x[x.length - 1]};
        double[] boundY = {curves.infiniteMissRatio(), curves.infiniteMissRatio()};
        XYSeries bound = chart.addSeries(INFINITE_SERIES, boundX, boundY);
        bound.setLineColor(INFINITE_COLOR);
        bound.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {2f, 4f}, 0f));
        bound.setMarker(SeriesMarkers.NONE);
        return chart;
    }
}
