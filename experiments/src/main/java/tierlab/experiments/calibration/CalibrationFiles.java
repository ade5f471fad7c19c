package tierlab.experiments.calibration;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tech.tablesaw.api.Table;
import tierlab.engine.persist.AtomicFiles;
import tierlab.experiments.ChartFiles;
import tierlab.experiments.ColumnTable;
import tierlab.experiments.CsvFiles;

/**
 * Writes an E5 calibration's files from its {@link Calibration.Result}: the fitted profile with a
 * header saying where each number came from, the points and runs tables, the summary JSON, then the
 * charts. Files are written one by one, each beside its final name and then renamed, so no reader
 * sees half a file; the directory may hold other files (a runner's report, say), which are left alone.
 */
final class CalibrationFiles {

    private CalibrationFiles() {
    }

    /**
     * Writes every file into {@code outputDirectory}; the profile and the tables first, the charts
     * last and each on its own, so a chart that fails (named in the summary) never costs them.
     */
    static CalibrationSummary write(Path outputDirectory, Calibration.Result calibration, ChartFiles.Writer charts)
            throws IOException {
        Files.createDirectories(outputDirectory);
        Path profileFile = outputDirectory.resolve(CalibrationExperiment.PROFILE_YAML);
        CalibrationSummary summary = new CalibrationSummary(outputDirectory, profileFile, calibration, List.of());
        FittedProfiles.save(calibration.profile(), profileFile, profileHeader(summary));
        List<CalibrationPoint> points = calibration.nvme().points();
        AtomicFiles.write(outputDirectory.resolve(CalibrationExperiment.POINTS_CSV), file -> CsvFiles.write(pointsTable(points), file));
        AtomicFiles.write(outputDirectory.resolve(CalibrationExperiment.RUNS_CSV),
                file -> CsvFiles.write(runsTable(calibration.sweep().runs()), file));
        AtomicFiles.write(outputDirectory.resolve(CalibrationExperiment.SUMMARY_JSON), file -> Files.writeString(file, summaryJson(summary)));
        List<String> chartFailures = new ArrayList<>(PcieCalibration.write(outputDirectory, calibration.pcie(), charts));
        chartFailures.addAll(0, CalibrationCharts.writeAll(outputDirectory, points, " (" + summary.backend() + ")", charts));
        return new CalibrationSummary(outputDirectory, profileFile, calibration, chartFailures);
    }

    private static final ColumnTable<CalibrationPoint> POINTS = ColumnTable.<CalibrationPoint>named("calibration-points")
            .text("access", p -> p.measured().benchCase().access().fioRw())
            .integer("block_bytes", p -> p.measured().benchCase().blockBytes())
            .integer("queue_depth", p -> p.measured().benchCase().queueDepth()).integer("repeats", CalibrationPoint::repeats)
            .decimal("measured_iops", p -> p.measured().iops()).decimal("measured_mb_s", p -> p.measured().megabytesPerSecond())
            .decimal("measured_latency_mean_us", p -> p.measured().meanLatencyNs() / 1e3)
            .decimal("measured_latency_p50_us", p -> p.measured().p50LatencyNs() / 1e3)
            .decimal("measured_latency_p99_us", p -> p.measured().p99LatencyNs() / 1e3)
            .decimal("io_uring_enter_per_op", p -> p.measured().enterCallsPerOp())
            .decimal("model_iops", p -> p.model().iops()).decimal("model_mb_s", p -> p.model().bytesPerSecond() / 1e6)
            .decimal("model_latency_mean_us", p -> p.model().meanLatencyNs() / 1e3)
            .decimal("model_latency_p99_us", p -> p.model().p99LatencyNs() / 1e3)
            .decimal("throughput_relative_error", CalibrationPoint::throughputRelativeError)
            .decimal("latency_relative_error", CalibrationPoint::latencyRelativeError);

    /** One measured run and its place in the order the sweep ran them. */
    private record OrderedRun(int order, MeasuredPoint run) {}

    private static final ColumnTable<OrderedRun> RUNS = ColumnTable.<OrderedRun>named("calibration-runs")
            .text("access", r -> r.run().benchCase().access().fioRw()).integer("block_bytes", r -> r.run().benchCase().blockBytes())
            .integer("queue_depth", r -> r.run().benchCase().queueDepth()).integer("repeat", r -> r.run().repeat())
            .integer("order", OrderedRun::order).whole("ops", r -> r.run().ops())
            .decimal("elapsed_s", r -> r.run().elapsedNs() / 1e9).decimal("iops", r -> r.run().iops())
            .decimal("mb_s", r -> r.run().megabytesPerSecond()).decimal("latency_mean_us", r -> r.run().meanLatencyNs() / 1e3)
            .decimal("latency_p50_us", r -> r.run().p50LatencyNs() / 1e3).decimal("latency_p99_us", r -> r.run().p99LatencyNs() / 1e3)
            .whole("io_uring_enter_calls", r -> r.run().enterCalls());

    static Table pointsTable(List<CalibrationPoint> points) {
        return POINTS.of(points);
    }

    static Table runsTable(List<MeasuredPoint> runs) {
        List<OrderedRun> ordered = new ArrayList<>();
        for (MeasuredPoint run : runs) {
            ordered.add(new OrderedRun(ordered.size(), run));
        }
        return RUNS.of(ordered);
    }

    private static String profileHeader(CalibrationSummary s) {
        CalibrationSettings settings = s.calibration().plan().grid();
        NvmeFit.ClosedLoopFit fit = s.fit();
        return String.format(Locale.ROOT, """
                Fitted by tierlab's calibration experiment (E5) on %s, kernel %s, %s.
                Measured: %d points x %d repeat(s), %.2f s each, on %s (%s), %s.
                Closed-loop fit: %d channel(s); reads %d ns + bytes / %.0f MB/s per channel, device ceiling %s
                (rms log error %.3f); writes %d ns + bytes / %.0f MB/s per channel, device ceiling %s (rms log error %.3f).
                Model vs measurement, throughput: median relative error %.1f%% (reads %.1f%%, writes %.1f%%), worst %.1f%%;
                the channel model without ceilings: %.1f%%.
                Base profile for GPU and host: %s.
                %s (pcie.source says where the PCIe figures come from).""",
                CalibrationSettings.hostName(), System.getProperty("os.version"),
                ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), s.points(), settings.repeats(),
                settings.secondsPerPoint(), settings.file(), humanBytes(settings.fileBytes()), s.backendStatus(),
                fit.channels(), fit.read().baseLatencyNs(), fit.read().bytesPerSecondPerChannel() / 1e6,
                ceiling(fit.read().maxBytesPerSecond()), fit.read().rmsLogError(), fit.write().baseLatencyNs(),
                fit.write().bytesPerSecondPerChannel() / 1e6, ceiling(fit.write().maxBytesPerSecond()), fit.write().rmsLogError(),
                100 * s.medianThroughputRelativeError(), 100 * s.medianReadThroughputRelativeError(),
                100 * s.medianWriteThroughputRelativeError(), 100 * s.maxThroughputRelativeError(),
                100 * s.channelOnlyMedianThroughputRelativeError(), settings.baseProfile(), PcieCalibration.describe(s.pcie()));
    }

    static String ceiling(double bytesPerSecond) {
        return bytesPerSecond > 0 ? String.format(Locale.ROOT, "%.0f MB/s", bytesPerSecond / 1e6) : "none";
    }

    private static String summaryJson(CalibrationSummary s) throws IOException {
        CalibrationSettings settings = s.calibration().plan().grid();
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("experiment", "calibration");
        root.put("backend", s.backend());
        root.put("backend_status", s.backendStatus());
        root.put("points", s.points());
        root.put("runs", s.runs());
        root.put("seconds_per_point", settings.secondsPerPoint());
        root.put("repeats", settings.repeats());
        root.put("sweep_wall_seconds", s.sweepWallSeconds());
        root.put("profile_file", CalibrationExperiment.PROFILE_YAML);
        root.put("profile_name", settings.profileName());
        ObjectNode nvme = root.putObject("fitted_nvme");
        nvme.put("channels", s.nvme().channels());
        nvme.put("queue_depth", s.nvme().queueDepth());
        nvme.put("read_base_latency_ns", s.nvme().readBaseLatencyNs());
        nvme.put("read_bytes_per_second_per_channel", s.nvme().readBytesPerSecondPerChannel());
        nvme.put("write_base_latency_ns", s.nvme().writeBaseLatencyNs());
        nvme.put("write_bytes_per_second_per_channel", s.nvme().writeBytesPerSecondPerChannel());
        nvme.put("max_read_bytes_per_second", s.nvme().maxReadBytesPerSecond());
        nvme.put("max_write_bytes_per_second", s.nvme().maxWriteBytesPerSecond());
        ObjectNode error = root.putObject("model_vs_measurement");
        error.put("median_throughput_relative_error", s.medianThroughputRelativeError());
        error.put("median_read_throughput_relative_error", s.medianReadThroughputRelativeError());
        error.put("median_write_throughput_relative_error", s.medianWriteThroughputRelativeError());
        error.put("max_throughput_relative_error", s.maxThroughputRelativeError());
        error.put("median_latency_relative_error", s.medianLatencyRelativeError());
        error.put("channel_model_only_median_throughput_relative_error", s.channelOnlyMedianThroughputRelativeError());
        error.put("rms_log_throughput_error", s.fit().rmsLogError());
        ArrayNode byChannels = error.putArray("rms_log_error_by_channels");
        s.fit().errorByChannels().forEach(byChannels::add);
        ObjectNode pcie = root.putObject("pcie");
        pcie.put("measured", s.pcie() instanceof PcieCalibration.Measured);
        pcie.put("status", PcieCalibration.describe(s.pcie()));
        pcie.put("h2d_bytes_per_second", s.pcieProfile().h2dBytesPerSecond());
        pcie.put("h2d_latency_ns", s.pcieProfile().h2dLatencyNs());
        pcie.put("d2h_bytes_per_second", s.pcieProfile().d2hBytesPerSecond());
        pcie.put("d2h_latency_ns", s.pcieProfile().d2hLatencyNs());
        pcie.put("source", s.pcieProfile().source());
        return mapper.writeValueAsString(root) + "\n";
    }

    private static String humanBytes(long bytes) {
        return bytes % (1L << 30) == 0 ? (bytes >> 30) + " GiB" : (bytes >> 20) + " MiB";
    }
}
