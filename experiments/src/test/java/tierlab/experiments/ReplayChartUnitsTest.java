package tierlab.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Font;
import java.awt.font.FontRenderContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.internal.chartpart.Chart;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;

/** The replay chart's capacity axis: in the trace's own unit, with labels that stay apart. */
class ReplayChartUnitsTest {

    @TempDir
    Path folder;

    /** Replays {@code trace} with {@code capacities} and returns the chart the replay drew. */
    private Chart<?, ?> replayChart(Path trace, String format, String capacities) {
        List<Chart<?, ?>> drawn = new ArrayList<>();
        ReplayCommand.chartFiles = (chart, png, svg) -> drawn.add(chart);
        try {
            CommandRun run = CommandRun.of(Main.newCommandLine(), "replay", "--trace", trace.toString(), "--format", format,
                    "--out", folder.resolve("out-" + format + capacities.length()).toString(), "--capacities", capacities,
                    "--policies", "lru,fifo");
            assertEquals(0, run.exitCode(), run.err());
        } finally {
            ReplayCommand.chartFiles = ChartFiles.FILES;
        }
        return drawn.getFirst();
    }

    @Test
    void aTraceOfCacheObjectsIsLabelledInObjectsAndItsLogLabelsDoNotCollide() throws IOException, ReflectiveOperationException {
        StringBuilder csv = new StringBuilder("clock_time,obj_id,obj_size\n");
        for (int i = 0; i < 3000; i++) {
            csv.append(i).append(',').append((i * 7919L) % 1500).append(",4096\n");
        }
        Path trace = Files.writeString(folder.resolve("objects.csv"), csv);
        XYChart chart = (XYChart) replayChart(trace, "lcs-csv", "100,1000,10000,100000,1000000");
        assertFalse(chart.getXAxisTitle().contains("tokens"), chart.getXAxisTitle());
        assertTrue(chart.getXAxisTitle().contains("objects"), chart.getXAxisTitle());

        Font font = chart.getStyler().getAxisTickLabelsFont();
        FontRenderContext context = new FontRenderContext(null, true, false);
        double previousEnd = Double.NEGATIVE_INFINITY;
        for (Map.Entry<Double, String> tick : ChartTicks.labels(chart, "getXAxis").entrySet()) {
            double width = font.getStringBounds(tick.getValue(), context).getWidth();
            double start = tick.getKey() - width / 2;
            assertTrue(start > previousEnd, "label '" + tick.getValue() + "' overlaps the one before it");
            previousEnd = tick.getKey() + width / 2;
        }
    }
}
