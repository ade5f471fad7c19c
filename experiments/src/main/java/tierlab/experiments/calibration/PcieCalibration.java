package tierlab.experiments.calibration;

import java.awt.BasicStroke;
import java.awt.Color;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;
import tierlab.engine.cuda.CudaDevice;
import tierlab.engine.cuda.CudaException;
import tierlab.engine.persist.AtomicFiles;
import tierlab.experiments.ChartFiles;
import tierlab.sim.device.PcieProfile;

/**
 * E5's PCIe part: the {@link PcieSweep} through the CUDA binding, fitted by {@link PcieFit} into
 * the fitted profile's {@code pcie} section, with a table ({@value #POINTS_CSV}) and a chart
 * ({@value #CHART}.png/.svg). Without CUDA, or when CUDA fails mid-sweep, the calibration says
 * "PCIe not measured: why" and the profile keeps the base preset's figures, its
 * {@code pcie.source} saying so.
 */
public final class PcieCalibration {

    public static final String POINTS_CSV = "pcie-points.csv";
    public static final String CHART = "pcie-throughput";

    /** What the PCIe part of one calibration found. */
    public sealed interface Outcome permits Measured, NotMeasured {}

    /**
     * @param device     the CUDA device, driver and runtime, in words
     * @param fit        the fitted model, or null when the points could not be fitted
     * @param fitFailure why not, or null
     */
    public record Measured(String device, List<PcieSweep.Point> points, PcieFit.Fit fit, String fitFailure) implements Outcome {
        public Measured {
            points = List.copyOf(points);
        }
    }

    /** @param reason one sentence: no libcudart, no driver, no device, or what CUDA said */
    public record NotMeasured(String reason) implements Outcome {}

    private PcieCalibration() {}

    /** Finds the GPU and runs the sweep; {@code progress} (may be null) gets a line per point. */
    public static Outcome measure(PcieSweep.Settings settings, Consumer<String> progress) {
        return measure(CudaDevice.probe(), settings, progress);
    }

    /**
     * Runs the sweep through {@code device} and fits it; a device that is not available, or CUDA
     * failing mid-sweep, is an outcome that says why, as is a sweep the fit cannot explain.
     */
    public static Outcome measure(CudaDevice device, PcieSweep.Settings settings, Consumer<String> progress) {
        if (!device.available()) {
            return new NotMeasured(device.description());
        }
        List<PcieSweep.Point> points;
        try {
            points = new PcieSweep(device.api().orElseThrow(), device.device(), settings).run(progress);
        } catch (CudaException | IllegalStateException e) {
            return new NotMeasured("CUDA failed during the sweep on " + device.description() + ": " + e.getMessage());
        }
        try {
            return new Measured(device.description(), points, PcieFit.fit(points), null);
        } catch (IllegalArgumentException e) {
            return new Measured(device.description(), points, null, e.getMessage());
        }
    }

    /** The fitted profile's PCIe section: the fit, or the preset's figures marked as not measured. */
    public static PcieProfile profile(Outcome outcome, PcieProfile preset, String presetName) {
        return switch (outcome) {
            case Measured m when m.fit() != null -> m.fit().profile().withSource("measured by tierlab E5 through CUDA on "
                    + m.device() + ", " + ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                    + ": one stream per direction, copies of " + sizes(m.points()) + " from pinned memory");
            case Measured m -> preset.withSource("preset " + presetName + "'s figures: PCIe measured but not fitted: " + m.fitFailure());
            case NotMeasured n -> preset.withSource("preset " + presetName + "'s figures: PCIe not measured: " + n.reason());
        };
    }

    /** One line for the console and the report's first mention. */
    public static String describe(Outcome outcome) {
        return switch (outcome) {
            case Measured m when m.fit() != null -> "PCIe fitted on " + m.device() + ": "
                    + PcieTables.fitLine("H2D", m.fit().hostToDevice()) + "; " + PcieTables.fitLine("D2H", m.fit().deviceToHost());
            case Measured m -> "PCIe measured on " + m.device() + " but not fitted: " + m.fitFailure();
            case NotMeasured n -> "PCIe not measured: " + n.reason();
        };
    }

    /**
     * Writes {@value #POINTS_CSV} (the header alone when nothing was measured) and, when measured,
     * the chart; returns the chart's failure line, or an empty list.
     */
    static List<String> write(Path directory, Outcome outcome, ChartFiles.Writer charts) throws java.io.IOException {
        List<PcieSweep.Point> points = outcome instanceof Measured m ? m.points() : List.of();
        AtomicFiles.writeString(directory.resolve(POINTS_CSV), PcieTables.csv(points));
        if (points.isEmpty()) {
            return List.of();
        }
        // As the NVMe charts: a chart that fails never costs the table and the profile.
        String cause = ChartFiles.tryWrite(charts, directory, CHART, () -> chart(points, ((Measured) outcome).device()));
        return cause == null ? List.of() : List.of("chart " + CHART + " not drawn: " + cause);
    }

    /** The report's PCIe section (markdown). */
    public static String reportSection(Outcome outcome, PcieProfile written, List<String> chartFailures) {
        StringBuilder md = new StringBuilder("## PCIe\n\n");
        switch (outcome) {
            case NotMeasured n -> md.append("**PCIe not measured: ").append(n.reason()).append("**. The fitted profile keeps the")
                    .append(" base preset's PCIe figures (`pcie.source` says so): ")
                    .append(String.format(Locale.ROOT, "H2D %.2f GB/s + %.1f µs, D2H %.2f GB/s + %.1f µs per copy.%n%n",
                            written.h2dBytesPerSecond() / 1e9, written.h2dLatencyNs() / 1e3,
                            written.d2hBytesPerSecond() / 1e9, written.d2hLatencyNs() / 1e3));
            case Measured m -> {
                md.append("Host↔GPU copies through the CUDA binding on ").append(m.device())
                        .append(": `cudaMemcpyAsync` from an mlocked arena registered with `cudaHostRegister` (and, for")
                        .append(" reference, from pageable memory), medians over repeats; `").append(POINTS_CSV)
                        .append("` holds every point.\n\n");
                if (m.fit() != null) {
                    md.append("Fitted into the profile's `pcie` section (latency + bytes / bandwidth per copy, one FIFO")
                            .append(" engine per direction, from the single-stream points):\n\n- ")
                            .append(PcieTables.fitLine("H2D", m.fit().hostToDevice())).append("\n- ")
                            .append(PcieTables.fitLine("D2H", m.fit().deviceToHost())).append("\n\n");
                } else {
                    md.append("**Not fitted: ").append(m.fitFailure()).append("**; the profile keeps the preset's figures.\n\n");
                }
                md.append(PcieTables.markdown(m.points()));
                String failure = chartFailures.stream().filter(f -> f.startsWith("chart " + CHART + " ")).findFirst().orElse(null);
                md.append(failure == null ? "![" + CHART + "](" + CHART + ".png)" : "**" + failure + "**; the table holds its data.")
                        .append("\n\n");
            }
        }
        return md.toString();
    }

    // Okabe-Ito blue and vermillion: host-to-device and device-to-host.
    private static final Color H2D_COLOR = new Color(0x0072B2);
    private static final Color D2H_COLOR = new Color(0xD55E00);

    /** GB/s against copy size: one line per direction and stream count (darker: more streams), pageable as markers. */
    static XYChart chart(List<PcieSweep.Point> points, String device) {
        XYChart chart = new XYChartBuilder().width(ChartFiles.WIDTH_PX).height(ChartFiles.HEIGHT_PX)
                .title("Host-GPU copies through CUDA: " + device.replaceAll(" \\(.*", ""))
                .xAxisTitle("copy size (KiB, log scale)").yAxisTitle("throughput (GB/s)").build();
        chart.getStyler().setLegendPosition(LegendPosition.OutsideE);
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotGridLinesColor(new Color(0xDDDDDD));
        chart.getStyler().setXAxisDecimalPattern("#,##0.###");
        chart.getStyler().setLocale(Locale.ROOT);
        List<Integer> streamCounts = points.stream().filter(PcieSweep.Point::pinned).map(PcieSweep.Point::streams)
                .distinct().sorted().toList();
        for (PcieSweep.Direction direction : PcieSweep.Direction.values()) {
            Color base = direction == PcieSweep.Direction.H2D ? H2D_COLOR : D2H_COLOR;
            for (int i = 0; i < streamCounts.size(); i++) {
                int streams = streamCounts.get(i);
                List<PcieSweep.Point> line = new ArrayList<>(points.stream()
                        .filter(p -> p.pinned() && p.direction() == direction && p.streams() == streams)
                        .sorted(java.util.Comparator.comparingLong(PcieSweep.Point::copyBytes)).toList());
                if (line.isEmpty()) {
                    continue;
                }
                XYSeries series = chart.addSeries(direction + ", " + streams + (streams == 1 ? " stream" : " streams"),
                        line.stream().mapToDouble(p -> p.copyBytes() / 1024.0).toArray(),
                        line.stream().mapToDouble(p -> p.bytesPerSecond() / 1e9).toArray());
                Color color = shade(base, i, streamCounts.size());
                series.setLineColor(color);
                series.setMarkerColor(color);
                series.setMarker(SeriesMarkers.CIRCLE);
                series.setLineStyle(new BasicStroke(2f));
            }
            List<PcieSweep.Point> pageable = points.stream().filter(p -> !p.pinned() && p.direction() == direction)
                    .sorted(java.util.Comparator.comparingLong(PcieSweep.Point::copyBytes)).toList();
            if (!pageable.isEmpty()) {
                XYSeries series = chart.addSeries(direction + ", pageable",
                        pageable.stream().mapToDouble(p -> p.copyBytes() / 1024.0).toArray(),
                        pageable.stream().mapToDouble(p -> p.bytesPerSecond() / 1e9).toArray());
                series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
                series.setMarker(SeriesMarkers.DIAMOND);
                series.setMarkerColor(base.brighter());
            }
        }
        return chart;
    }

    /** The i-th of n shades of {@code base}: lighter for fewer streams. */
    private static Color shade(Color base, int i, int n) {
        double light = n <= 1 ? 0 : 0.55 * (n - 1 - i) / (n - 1);
        return new Color((int) (base.getRed() + (255 - base.getRed()) * light), (int) (base.getGreen() + (255 - base.getGreen()) * light),
                (int) (base.getBlue() + (255 - base.getBlue()) * light));
    }

    private static String sizes(List<PcieSweep.Point> points) {
        List<Long> sizes = points.stream().filter(p -> p.pinned() && p.streams() == 1).map(PcieSweep.Point::copyBytes)
                .distinct().sorted().toList();
        return sizes.isEmpty() ? "no size" : PcieSweep.size(sizes.getFirst()) + " to " + PcieSweep.size(sizes.getLast());
    }
}
