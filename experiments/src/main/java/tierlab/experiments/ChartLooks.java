package tierlab.experiments;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.math.BigDecimal;
import java.math.MathContext;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * What every chart of tierlab looks like: one colour/marker/line set that never repeats within a
 * chart, rounded numbers in legends and cell labels, log-axis labels that do not run into each
 * other, and the {@code paper} style (no title, larger fonts, one fixed size).
 */
public final class ChartLooks {

    // The Okabe-Ito palette less its yellow (unreadable on white), then black and grey: distinguishable
    // with the common colour-vision deficiencies.
    private static final Color[] COLORS = {
        new Color(0x0072B2), new Color(0xE69F00), new Color(0x009E73), new Color(0xD55E00),
        new Color(0xCC79A7), new Color(0x56B4E9), Color.BLACK, new Color(0x777777)};
    private static final Marker[] MARKERS = {
        SeriesMarkers.CIRCLE, SeriesMarkers.SQUARE, SeriesMarkers.DIAMOND, SeriesMarkers.TRIANGLE_UP,
        SeriesMarkers.TRIANGLE_DOWN, SeriesMarkers.CROSS, SeriesMarkers.PLUS, SeriesMarkers.OVAL};
    private static final BasicStroke[] LINES = {
        SeriesLines.SOLID, SeriesLines.DASH_DASH, SeriesLines.DOT_DOT, SeriesLines.DASH_DOT};
    /** Distinct colour × marker pairs: series i takes colour i mod 8 and marker (i mod 8 + i div 8) mod 8. */
    public static final int MAX_MARKED_SERIES = COLORS.length * MARKERS.length;
    /** Distinct colour × line-style pairs for series drawn without markers (CDFs, time series). */
    public static final int MAX_LINE_SERIES = COLORS.length * LINES.length;
    /** The {@code paper} style's size: a two-column figure at about 150 dpi. */
    public static final int PAPER_WIDTH_PX = 1050;
    public static final int PAPER_HEIGHT_PX = 650;
    /** Pixels between the closest log-axis labels: less than this and they read as one number. */
    private static final double MIN_LABEL_GAP_PX = 6;

    private ChartLooks() {
    }

    /** The colour of series {@code index}: the palette in order. */
    public static Color color(int index) {
        return COLORS[index % COLORS.length];
    }

    /** Marker of series {@code index}: shifted by one per round of colours, so no colour/marker pair repeats. */
    public static Marker marker(int index) {
        return MARKERS[(index % COLORS.length + index / COLORS.length) % MARKERS.length];
    }

    /** Line style of series {@code index}, shifted the same way, for series drawn without markers. */
    public static BasicStroke line(int index) {
        return LINES[(index % COLORS.length + index / COLORS.length) % LINES.length];
    }

    /**
     * Null when {@code seriesCount} series can each get their own look, else the refusal in one line:
     * beyond the limit two series would be drawn alike and the legend could not tell them apart.
     */
    public static String tooManySeries(int seriesCount, boolean markers) {
        int limit = markers ? MAX_MARKED_SERIES : MAX_LINE_SERIES;
        if (seriesCount <= limit) {
            return null;
        }
        return "the chart has " + seriesCount + " series and at most " + limit + " can be told apart ("
                + COLORS.length + " colours × " + (markers ? MARKERS.length + " markers" : LINES.length + " line styles")
                + "); narrow it with where or a series with fewer values";
    }

    /** Colours series {@code index} and gives it its marker (or, without markers, its line style). */
    public static void style(XYSeries series, int index, boolean markers) {
        series.setLineColor(color(index));
        series.setMarkerColor(color(index));
        if (markers) {
            series.setMarker(marker(index));
        } else {
            series.setMarker(SeriesMarkers.NONE);
            series.setLineStyle(line(index));
        }
    }

    /** {@code value} to 4 significant digits with thousands separators: 2814.57421875 → "2,815", 0.123456 → "0.1235". */
    public static String rounded(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return Double.toString(value);
        }
        BigDecimal significant = new BigDecimal(value).round(new MathContext(4));
        DecimalFormat format = new DecimalFormat("#,##0.########", DecimalFormatSymbols.getInstance(Locale.ROOT));
        return format.format(significant);
    }

    /** White background, light grid, legend outside on the right, ROOT locale: the look every chart shares. */
    public static void common(Styler styler) {
        styler.setLegendPosition(Styler.LegendPosition.OutsideE);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setLegendBorderColor(new Color(0xBBBBBB));
        if (styler instanceof AxesChartStyler axes) {
            axes.setPlotGridLinesColor(new Color(0xDDDDDD));
            axes.setLocale(Locale.ROOT);
            axes.setErrorBarsColorSeriesColor(true);
        }
    }

    /** The {@code paper} style: no title, fonts about 1.5 times the default, for a figure in a paper. */
    public static void paper(Styler styler) {
        styler.setChartTitleVisible(false);
        styler.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 17));
        if (styler instanceof AxesChartStyler axes) {
            axes.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 19));
            axes.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 16));
        }
    }

    /**
     * Log-axis labels: every 1–9 of each decade when the closest two (8 and 9 of the last decade) stay
     * apart at this width, else the powers of ten only. Estimated from the font size (a digit is about
     * 0.6 em wide), since the chart is laid out only when it is drawn.
     */
    public static void logXLabels(XYChart chart, double minX, double maxX, String widestLabel) {
        AxesChartStyler styler = chart.getStyler();
        double decades = Math.max(Math.log10(maxX / minX), 1e-9);
        // The plot takes about three quarters of the width; the legend outside takes the rest.
        double plotPx = chart.getWidth() * 0.75;
        double gapPx = Math.log10(9.0 / 8.0) / decades * plotPx;
        double labelPx = widestLabel.length() * 0.6 * styler.getAxisTickLabelsFont().getSize();
        styler.setXAxisLogarithmicDecadeOnly(gapPx < labelPx + MIN_LABEL_GAP_PX);
    }

    /**
     * Y values that lie on an even lattice (a CDF's 1/n, 2/n, ...) make XChart 3.8 put a tick at
     * each of them (about 50 at 0.02 spacing). A point off the lattice, drawn nowhere and not in the
     * legend, puts the axis back on its ordinary calculator (5–10 round ticks).
     */
    public static void avoidLatticeTicks(XYChart chart, double x) {
        XYSeries anchor = chart.addSeries(" ", new double[] {x}, new double[] {Math.PI / 1000});
        anchor.setMarker(SeriesMarkers.NONE);
        anchor.setLineColor(new Color(0, 0, 0, 0));
        anchor.setShowInLegend(false);
    }
}
