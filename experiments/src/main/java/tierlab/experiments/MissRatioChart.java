package tierlab.experiments;

import java.awt.BasicStroke;
import java.awt.Color;
import java.util.List;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The miss-ratio chart: miss ratio against capacity (log scale), one line per policy. */
public final class MissRatioChart {

    public static final String INFINITE_SERIES = "infinite cache";

    private static final Color BELADY_COLOR = Color.BLACK;
    private static final Color INFINITE_COLOR = new Color(0x777777);

    private MissRatioChart() {
    }

    /**
     * @param blockTokens tokens per block of the replayed ids, for the axis title; 0 for a trace of
     *                    cache objects (libCacheSim's), whose unit is one object, not a number of tokens
     */
    public static XYChart of(MissRatioCurves curves, String title, int blockTokens) {
        List<Long> capacities = curves.capacities();
        // A log axis labels 1-9 of every decade; "5,000 6,000 7,000 ..." runs together at this width,
        // while "5 6 7 ..." in thousands of blocks stays readable.
        boolean thousands = capacities.getFirst() >= 1000;
        double unit = thousands ? 1000.0 : 1.0;
        String unitLabel = blockTokens > 0 ? (thousands ? "thousands of blocks" : "blocks") + "; 1 block = " + blockTokens + " tokens"
                : (thousands ? "thousands of objects" : "objects") + " of the trace";
        XYChart chart = new XYChartBuilder()
                .width(ChartFiles.WIDTH_PX)
                .height(ChartFiles.HEIGHT_PX)
                .title(title)
                .xAxisTitle("L1 capacity (" + unitLabel + "; log scale)")
                .yAxisTitle((blockTokens > 0 ? "block" : "object") + " miss ratio (misses / references)")
                .build();
        XYStyler styler = chart.getStyler();
        ChartLooks.common(styler);
        styler.setXAxisLogarithmic(true);
        styler.setYAxisDecimalPattern("0.00");
        // A decimal pattern, not a tick-label function: XChart's function replaces the log-axis tick
        // calculator with a linear one, which puts linear labels under log-placed points.
        styler.setXAxisDecimalPattern("#,##0.###");

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
                ChartLooks.style(series, style++, true);
            }
        }
        // Label 2,000, 3,000, ... too where they fit, since the capacities sit between the powers of ten.
        ChartLooks.logXLabels(chart, x[0], x[x.length - 1], ChartLooks.rounded(x[x.length - 1]));
        double[] boundX = {x[0], x[x.length - 1]};
        double[] boundY = {curves.infiniteMissRatio(), curves.infiniteMissRatio()};
        XYSeries bound = chart.addSeries(INFINITE_SERIES, boundX, boundY);
        bound.setLineColor(INFINITE_COLOR);
        bound.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {2f, 4f}, 0f));
        bound.setMarker(SeriesMarkers.NONE);
        return chart;
    }
}
