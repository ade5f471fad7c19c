package tierlab.experiments.calibration;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tierlab.bench.calibration.CalibrationSweep;
import tierlab.bench.calibration.FittedProfiles;
import tierlab.bench.calibration.MeasuredPoint;
import tierlab.bench.calibration.NvmeClosedLoop;
import tierlab.bench.calibration.NvmeFit;
import tierlab.bench.calibration.PcieSweep;
import tierlab.engine.persist.AtomicFiles;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.NvmeProfile;
import tierlab.sim.device.PcieProfile;

/**
 * Experiment E5, calibration: measure the device with the live engine, fit the simulator's NVMe
 * model to the measurements, predict every measured point with the fitted model, and write
 *
 * <pre>
 *   calibration-points.csv   one row per grid point: measured medians, model prediction, relative errors
 *   calibration-runs.csv     one row per measured run (point × repeat), for the spread between repeats
 *   fitted-profile.yaml      a device profile (the base preset's GPU and host, the fitted NVMe and PCIe)
 *                            that any experiment can name; DeviceProfile.load reads it
 *   pcie-points.csv          the PCIe sweep through CUDA (PcieCalibration); only a header without CUDA,
 *                            when the profile keeps the preset's PCIe figures, marked in pcie.source
 *   pcie-throughput.png/.svg GB/s against copy size per direction and stream count (when measured)
 *   calibration-summary.json the fitted parameters and the error figures
 *   throughput-read|write.png/.svg      MB/s against block size, one colour per queue depth
 *   latency-vs-qd-read|write.png/.svg   mean latency against queue depth, for three block sizes
 * </pre>
 *
 * The fit is {@link NvmeFit#fitClosedLoop}: channels, base latency and per-channel bandwidth
 * (separately for reads and writes) from every point at once; the prediction runs the model in the
 * same closed loop as the benchmark ({@link NvmeClosedLoop}). Files are written one by one, each
 * beside its final name and then renamed, so no reader sees half a file; the directory may hold
 * other files (a runner's report, say), which are left alone.
 */
public final class CalibrationExperiment {

    public static final String POINTS_CSV = "calibration-points.csv";
    public static final String RUNS_CSV = "calibration-runs.csv";
    public static final String PROFILE_YAML = "fitted-profile.yaml";
    public static final String SUMMARY_JSON = "calibration-summary.json";
    /** Seed of the model's predictions (the fitted profile has no jitter, so it changes nothing today). */
    private static final long PREDICTION_SEED = 1;

    private CalibrationExperiment() {}

    /** Measures, fits, predicts and writes; {@code progress} receives one line per measured run (may be null). */
    public static CalibrationSummary run(Path outputDirectory, CalibrationSettings settings, Consumer<String> progress)
            throws IOException {
        return run(outputDirectory, settings, PcieSweep.Settings.defaults(), progress);
    }

    /**
     * {@link #run(Path, CalibrationSettings, Consumer)} with the PCIe sweep's settings, or null to
     * measure the drive only (the profile then keeps the preset's PCIe figures, saying so).
     */
    public static CalibrationSummary run(Path outputDirectory, CalibrationSettings settings, PcieSweep.Settings pcieSettings,
                                         Consumer<String> progress) throws IOException {
        CalibrationSweep.SweepResult sweep;
        try {
            sweep = CalibrationSweep.run(settings.toSweep(), point -> {
                if (progress != null) {
                    progress.accept(point.toString());
                }
            });
        } finally {
            if (settings.deleteFileAfter()) {
                CalibrationSweep.deleteFile(settings.file());
            }
        }
        // Its outcome is a line of describe(): progress stays one line per measured NVMe run.
        PcieCalibration.Outcome pcie = pcieSettings == null ? new PcieCalibration.NotMeasured("calibration.pcie is false")
                : PcieCalibration.measure(pcieSettings, null);
        return analyze(outputDirectory, settings, sweep, pcie, CalibrationCharts.FILES);
    }

    /**
     * Fits, predicts and writes from measurements already taken (a sweep just run, one read back,
     * or synthetic ones in a test).
     */
    public static CalibrationSummary analyze(Path outputDirectory, CalibrationSettings settings, CalibrationSweep.SweepResult sweep)
            throws IOException {
        return analyze(outputDirectory, settings, sweep, CalibrationCharts.FILES);
    }

    /**
     * {@link #analyze} with the charts written by {@code charts}. The profile and the tables are
     * written first; a chart that fails is named in {@link CalibrationSummary#chartFailures()}.
     */
    static CalibrationSummary analyze(Path outputDirectory, CalibrationSettings settings, CalibrationSweep.SweepResult sweep,
                                      CalibrationCharts.ChartWriter charts) throws IOException {
        return analyze(outputDirectory, settings, sweep,
                new PcieCalibration.NotMeasured("only NVMe measurements were handed in (" + sweep.backendName() + ")"), charts);
    }

    /** {@link #analyze} with the PCIe part's outcome, which goes into the profile, a table, a chart and the summary. */
    static CalibrationSummary analyze(Path outputDirectory, CalibrationSettings settings, CalibrationSweep.SweepResult sweep,
                                      PcieCalibration.Outcome pcie, CalibrationCharts.ChartWriter charts) throws IOException {
        List<MeasuredPoint> medians = sweep.medians();
        List<NvmeFit.Measurement> measurements = new ArrayList<>();
        int deepest = 1;
        for (MeasuredPoint p : medians) {
            measurements.add(new NvmeFit.Measurement(p.read(), p.benchCase().blockBytes(), p.benchCase().queueDepth(),
                    p.bytesPerSecond(), p.meanLatencyNs()));
            deepest = Math.max(deepest, p.benchCase().queueDepth());
        }
        NvmeFit.ClosedLoopFit fit = NvmeFit.fitClosedLoop(measurements, Math.max(64, deepest));
        NvmeProfile nvme = fit.profile();
        List<CalibrationPoint> points = predict(nvme, medians, sweep.runs());

        DeviceProfile preset = DeviceProfile.preset(settings.baseProfile());
        PcieProfile pcieProfile = PcieCalibration.profile(pcie, preset.pcie(), settings.baseProfile());
        DeviceProfile profile = preset.withName(settings.profileName()).withNvme(nvme).withPcie(pcieProfile);
        double[] all = errors(points, p -> true);
        double[] reads = errors(points, CalibrationPoint::read);
        double[] writes = errors(points, p -> !p.read());
        double medianLatencyError = median(points.stream().mapToDouble(CalibrationPoint::latencyRelativeError).toArray());
        NvmeFit.ClosedLoopFit channelOnly = NvmeFit.fitClosedLoop(measurements, Math.max(64, deepest), false);
        double channelOnlyError = median(predict(channelOnly.profile(), medians, sweep.runs()).stream()
                .mapToDouble(CalibrationPoint::throughputRelativeError).toArray());
        Files.createDirectories(outputDirectory);
        Path profileFile = outputDirectory.resolve(PROFILE_YAML);
        CalibrationSummary summary = new CalibrationSummary(outputDirectory, profileFile, sweep.backendName(), sweep.backendStatus(),
                points.size(), sweep.runs().size(), nvme, fit, median(all), median(reads), median(writes),
                Arrays.stream(all).max().orElse(0), medianLatencyError, channelOnlyError, sweep.wallNs() / 1e9, List.of(),
                pcie, pcieProfile);

        FittedProfiles.save(profile, profileFile, profileHeader(settings, sweep, summary));
        AtomicFiles.write(outputDirectory.resolve(POINTS_CSV), file -> pointsTable(points).write().csv(file.toFile()));
        AtomicFiles.write(outputDirectory.resolve(RUNS_CSV), file -> runsTable(sweep.runs()).write().csv(file.toFile()));
        AtomicFiles.write(outputDirectory.resolve(SUMMARY_JSON), file -> Files.writeString(file, summaryJson(settings, summary)));
        // Charts last, each on its own: a failed chart never costs the profile and the tables above.
        List<String> chartFailures = new ArrayList<>(PcieCalibration.write(outputDirectory, pcie, charts));
        chartFailures.addAll(0, CalibrationCharts.writeAll(outputDirectory, points, " (" + sweep.backendName() + ")", charts));
        return summary.withChartFailures(chartFailures);
    }

    /** Each measured point's prediction by the fitted model, in grid order. */
    static List<CalibrationPoint> predict(NvmeProfile nvme, List<MeasuredPoint> medians, List<MeasuredPoint> runs) {
        List<CalibrationPoint> points = new ArrayList<>();
        for (MeasuredPoint p : medians.stream().sorted(MeasuredPoint.GRID_ORDER).toList()) {
            int repeats = (int) runs.stream().filter(r -> r.benchCase().equals(p.benchCase())).count();
            points.add(new CalibrationPoint(p, repeats, NvmeClosedLoop.predict(nvme, p.read(), p.benchCase().blockBytes(),
                    p.benchCase().queueDepth(), PREDICTION_SEED)));
        }
        return List.copyOf(points);
    }

    static Table pointsTable(List<CalibrationPoint> points) {
        StringColumn access = StringColumn.create("access");
        IntColumn blockBytes = IntColumn.create("block_bytes");
        IntColumn queueDepth = IntColumn.create("queue_depth");
        IntColumn repeats = IntColumn.create("repeats");
        DoubleColumn iops = DoubleColumn.create("measured_iops");
        DoubleColumn mbs = DoubleColumn.create("measured_mb_s");
        DoubleColumn mean = DoubleColumn.create("measured_latency_mean_us");
        DoubleColumn p50 = DoubleColumn.create("measured_latency_p50_us");
        DoubleColumn p99 = DoubleColumn.create("measured_latency_p99_us");
        DoubleColumn enters = DoubleColumn.create("io_uring_enter_per_op");
        DoubleColumn modelIops = DoubleColumn.create("model_iops");
        DoubleColumn modelMbs = DoubleColumn.create("model_mb_s");
        DoubleColumn modelMean = DoubleColumn.create("model_latency_mean_us");
        DoubleColumn modelP99 = DoubleColumn.create("model_latency_p99_us");
        DoubleColumn throughputError = DoubleColumn.create("throughput_relative_error");
        DoubleColumn latencyError = DoubleColumn.create("latency_relative_error");
        for (CalibrationPoint p : points) {
            MeasuredPoint m = p.measured();
            access.append(m.benchCase().access().fioRw());
            blockBytes.append(m.benchCase().blockBytes());
            queueDepth.append(m.benchCase().queueDepth());
            repeats.append(p.repeats());
            iops.append(m.iops());
            mbs.append(m.megabytesPerSecond());
            mean.append(m.meanLatencyNs() / 1e3);
            p50.append(m.p50LatencyNs() / 1e3);
            p99.append(m.p99LatencyNs() / 1e3);
            enters.append(m.enterCallsPerOp());
            modelIops.append(p.model().iops());
            modelMbs.append(p.model().bytesPerSecond() / 1e6);
            modelMean.append(p.model().meanLatencyNs() / 1e3);
            modelP99.append(p.model().p99LatencyNs() / 1e3);
            throughputError.append(p.throughputRelativeError());
            latencyError.append(p.latencyRelativeError());
        }
        return Table.create("calibration-points", access, blockBytes, queueDepth, repeats, iops, mbs, mean, p50, p99, enters,
                modelIops, modelMbs, modelMean, modelP99, throughputError, latencyError);
    }

    static Table runsTable(List<MeasuredPoint> runs) {
        StringColumn access = StringColumn.create("access");
        IntColumn blockBytes = IntColumn.create("block_bytes");
        IntColumn queueDepth = IntColumn.create("queue_depth");
        IntColumn repeat = IntColumn.create("repeat");
        IntColumn order = IntColumn.create("order");
        LongColumn ops = LongColumn.create("ops");
        DoubleColumn seconds = DoubleColumn.create("elapsed_s");
        DoubleColumn iops = DoubleColumn.create("iops");
        DoubleColumn mbs = DoubleColumn.create("mb_s");
        DoubleColumn mean = DoubleColumn.create("latency_mean_us");
        DoubleColumn p50 = DoubleColumn.create("latency_p50_us");
        DoubleColumn p99 = DoubleColumn.create("latency_p99_us");
        LongColumn enters = LongColumn.create("io_uring_enter_calls");
        int index = 0;
        for (MeasuredPoint m : runs) {
            access.append(m.benchCase().access().fioRw());
            blockBytes.append(m.benchCase().blockBytes());
            queueDepth.append(m.benchCase().queueDepth());
            repeat.append(m.repeat());
            order.append(index++);
            ops.append(m.ops());
            seconds.append(m.elapsedNs() / 1e9);
            iops.append(m.iops());
            mbs.append(m.megabytesPerSecond());
            mean.append(m.meanLatencyNs() / 1e3);
            p50.append(m.p50LatencyNs() / 1e3);
            p99.append(m.p99LatencyNs() / 1e3);
            enters.append(m.enterCalls());
        }
        return Table.create("calibration-runs", access, blockBytes, queueDepth, repeat, order, ops, seconds, iops, mbs, mean,
                p50, p99, enters);
    }

    private static String profileHeader(CalibrationSettings settings, CalibrationSweep.SweepResult sweep, CalibrationSummary s) {
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
                settings.secondsPerPoint(), settings.file(), humanBytes(settings.fileBytes()), sweep.backendStatus(),
                fit.channels(), fit.read().baseLatencyNs(), fit.read().bytesPerSecondPerChannel() / 1e6,
                ceiling(fit.read().maxBytesPerSecond()), fit.read().rmsLogError(), fit.write().baseLatencyNs(),
                fit.write().bytesPerSecondPerChannel() / 1e6, ceiling(fit.write().maxBytesPerSecond()), fit.write().rmsLogError(),
                100 * s.medianThroughputRelativeError(), 100 * s.medianReadThroughputRelativeError(),
                100 * s.medianWriteThroughputRelativeError(), 100 * s.maxThroughputRelativeError(),
                100 * s.channelOnlyMedianThroughputRelativeError(), settings.baseProfile(), PcieCalibration.describe(s.pcie()));
    }

    private static String ceiling(double bytesPerSecond) {
        return bytesPerSecond > 0 ? String.format(Locale.ROOT, "%.0f MB/s", bytesPerSecond / 1e6) : "none";
    }

    private static String summaryJson(CalibrationSettings settings, CalibrationSummary s) throws IOException {
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
        root.put("profile_file", PROFILE_YAML);
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

    private static double[] errors(List<CalibrationPoint> points, java.util.function.Predicate<CalibrationPoint> which) {
        return points.stream().filter(which).mapToDouble(CalibrationPoint::throughputRelativeError).toArray();
    }

    /** The median (Commons Math); NaN for no values. */
    static double median(double[] values) {
        return new Median().evaluate(values);
    }

    private static String humanBytes(long bytes) {
        return bytes % (1L << 30) == 0 ? (bytes >> 30) + " GiB" : (bytes >> 20) + " MiB";
    }

    // ---- command line --------------------------------------------------------------------------

    static final String USAGE = """
            usage: CalibrationExperiment [--out DIR] [--file PATH] [--quick] [--seconds S] [--repeats N]
                                         [--file-mib N] [--backend io_uring|filechannel|best] [--keep-file]
                                         [--from-runs CSV]
              --out DIR      output directory (default out/calibration)
              --file PATH    O_DIRECT test file (default target/calibration/l2.bin; not on tmpfs)
              --quick        a tiny grid (2 sizes x 2 depths, 50 ms per point): seconds, for tests
              --seconds S    seconds per point and repeat (default 0.5)
              --repeats N    interleaved passes over the grid (default 3)
              --file-mib N   test file size (default 1024)
              --backend B    storage port (default best: io_uring where allowed)
              --keep-file    keep the test file (the next run skips filling it)
              --from-runs F  measure nothing: refit the runs of an earlier calibration-runs.csv
            """;

    /** {@code java ... tierlab.experiments.calibration.CalibrationExperiment [flags]}; exit 2 on a bad flag. */
    public static void main(String[] args) {
        PrintStream out = System.out;
        CalibrationSettings settings;
        Path outputDirectory = Path.of("out", "calibration");
        Path runsToRefit;
        try {
            Path file = Path.of("target", "calibration", "l2.bin");
            boolean quick = false;
            Double seconds = null;
            Integer repeats = null;
            Long fileMib = null;
            String backend = null;
            boolean keep = false;
            Path fromRuns = null;
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                switch (flag) {
                    case "--quick" -> quick = true;
                    case "--keep-file" -> keep = true;
                    case "--help", "-h" -> {
                        out.print(USAGE);
                        return;
                    }
                    case "--out", "--file", "--seconds", "--repeats", "--file-mib", "--backend", "--from-runs" -> {
                        if (i + 1 >= args.length) {
                            throw new IllegalArgumentException(flag + " needs a value");
                        }
                        String value = args[++i];
                        try {
                            switch (flag) {
                                case "--out" -> outputDirectory = Path.of(value);
                                case "--file" -> file = Path.of(value);
                                case "--seconds" -> seconds = Double.parseDouble(value);
                                case "--repeats" -> repeats = Integer.parseInt(value);
                                case "--file-mib" -> fileMib = Long.parseLong(value);
                                case "--from-runs" -> fromRuns = Path.of(value);
                                default -> backend = value;
                            }
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException(flag + " needs a number, was '" + value + "'");
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown flag '" + flag + "'");
                }
            }
            settings = quick ? CalibrationSettings.quick(file) : CalibrationSettings.defaults(file);
            if (seconds != null || repeats != null) {
                settings = settings.withTiming(seconds == null ? settings.secondsPerPoint() : seconds,
                        repeats == null ? settings.repeats() : repeats);
            }
            if (fileMib != null) {
                settings = settings.withFile(file, fileMib << 20);
            }
            if (backend != null) {
                settings = settings.withBackend(backend);
            }
            settings = settings.withDeleteFileAfter(!keep);
            runsToRefit = fromRuns;
        } catch (IllegalArgumentException e) {
            System.err.println("calibration: " + e.getMessage() + "\n" + USAGE);
            System.exit(2);
            return;
        }
        try {
            CalibrationSummary s;
            if (runsToRefit != null) {
                List<MeasuredPoint> runs = CalibrationRuns.read(runsToRefit);
                out.printf(Locale.ROOT, "calibration: refitting %d runs from %s%n", runs.size(), runsToRefit);
                s = analyze(outputDirectory, settings, new CalibrationSweep.SweepResult(settings.toSweep(), "refit",
                        "runs read from " + runsToRefit, runs, 0));
            } else {
                out.printf(Locale.ROOT, "calibration: %d points x %d repeat(s) of %.2f s on %s%n",
                        settings.toSweep().pointsPerRepeat(), settings.repeats(), settings.secondsPerPoint(), settings.file());
                s = run(outputDirectory, settings, out::println);
            }
            out.println(describe(s));
            // The profile and the tables are written; a chart that was not (a host without fonts)
            // must still be said, on stderr and in the exit status, as 'tierlab run' does.
            s.chartFailures().forEach(line -> System.err.println("calibration: " + line));
            if (!s.chartFailures().isEmpty()) {
                System.exit(1);
            }
        } catch (IOException | IllegalArgumentException | IllegalStateException e) {
            System.err.println("calibration: " + e.getMessage());
            System.exit(1);
        }
    }

    /** A few lines for a console: the fit and the error. */
    public static String describe(CalibrationSummary s) {
        NvmeProfile n = s.nvme();
        return String.format(Locale.ROOT, """
                fitted %s: channels %d; read base %.1f us, %.1f MB/s per channel, ceiling %s; \
                write base %.1f us, %.1f MB/s per channel, ceiling %s
                model vs measurement over %d points: throughput median relative error %.1f%% (reads %.1f%%, writes %.1f%%, worst %.1f%%); \
                mean latency median relative error %.1f%%; rms log error %.3f; without ceilings the median error is %.1f%%
                %s
                wrote %s""",
                s.profileFile(), n.channels(), n.readBaseLatencyNs() / 1e3, n.readBytesPerSecondPerChannel() / 1e6,
                ceiling(n.maxReadBytesPerSecond()), n.writeBaseLatencyNs() / 1e3, n.writeBytesPerSecondPerChannel() / 1e6,
                ceiling(n.maxWriteBytesPerSecond()), s.points(),
                100 * s.medianThroughputRelativeError(), 100 * s.medianReadThroughputRelativeError(),
                100 * s.medianWriteThroughputRelativeError(), 100 * s.maxThroughputRelativeError(),
                100 * s.medianLatencyRelativeError(), s.fit().rmsLogError(), 100 * s.channelOnlyMedianThroughputRelativeError(),
                PcieCalibration.describe(s.pcie()), s.outputDirectory());
    }
}
