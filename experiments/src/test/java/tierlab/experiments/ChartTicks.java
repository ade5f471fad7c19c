package tierlab.experiments;

import java.awt.image.BufferedImage;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.internal.chartpart.Chart;

/** What a drawn chart's axis shows, read from XChart's tick calculator (not public API, hence reflection). */
public final class ChartTicks {

    private ChartTicks() {
    }

    /** The labels XChart put on an axis of a drawn chart, with their positions along it (pixels). */
    @SuppressWarnings("unchecked")
    public static Map<Double, String> labels(Chart<?, ?> chart, String axis) throws ReflectiveOperationException {
        chart.paint(new BufferedImage(chart.getWidth(), chart.getHeight(), BufferedImage.TYPE_INT_RGB).createGraphics(),
                chart.getWidth(), chart.getHeight());
        Method getter = Chart.class.getDeclaredMethod(axis);
        getter.setAccessible(true);
        Object calculator = getter.invoke(chart).getClass().getMethod("getAxisTickCalculator").invoke(getter.invoke(chart));
        Method labels = calculator.getClass().getMethod("getTickLabels");
        Method locations = calculator.getClass().getMethod("getTickLocations");
        labels.setAccessible(true);
        locations.setAccessible(true);
        List<String> text = (List<String>) labels.invoke(calculator);
        List<Double> at = (List<Double>) locations.invoke(calculator);
        Map<Double, String> ticks = new LinkedHashMap<>();
        for (int i = 0; i < text.size(); i++) {
            if (text.get(i) != null) {
                ticks.put(at.get(i), text.get(i));
            }
        }
        return ticks;
    }

}
