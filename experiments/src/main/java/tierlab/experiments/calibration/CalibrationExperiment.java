package tierlab.experiments.calibration;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;
import tierlab.experiments.ChartFiles;
import tierlab.sim.device.NvmeProfile;

/**
 * Experiment E5, calibration: measure the device with the live engine, fit the simulator's NVMe
 * model to the measurements, predict every measured point with the fitted model (all through
 * {@link Calibration}), and write ({@link CalibrationFiles})
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
 * {@code tierlab run} of a {@code kind: calibration} file runs it through {@link CalibrationRun};
 * {@link #main} is the same without the runner, and refits an earlier run's measurements
 * ({@code --from-runs}) without measuring again.
 */
public final class CalibrationExperiment {

    public static final String POINTS_CSV = "calibration-points.csv";
    public static final String RUNS_CSV = "calibration-runs.csv";
    public static final String PROFILE_YAML = "fitted-profile.yaml";
    public static final String SUMMARY_JSON = "calibration-summary.json";

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
        Calibration.Result result = Calibration.run(plan(settings, pcieSettings), new Calibration.Progress(null, progress));
        return CalibrationFiles.write(outputDirectory, result, ChartFiles.FILES);
    }

    /** E5's plan: the grid, and the PCIe sweep through the first GPU found (or none); the base preset's host section. */
    static Calibration.Plan plan(CalibrationSettings settings, PcieSweep.Settings pcieSettings) {
        Calibration.PciePlan pcie = pcieSettings == null ? new Calibration.PciePlan.Skip("calibration.pcie is false")
                : new Calibration.PciePlan.Sweep(null, pcieSettings);
        return new Calibration.Plan(settings, pcie, null, null);
    }

    /**
     * Fits, predicts and writes from measurements already taken (a sweep just run, one read back,
     * or synthetic ones in a test).
     */
    public static CalibrationSummary analyze(Path outputDirectory, CalibrationSettings settings, CalibrationSweep.SweepResult sweep)
            throws IOException {
        return analyze(outputDirectory, settings, sweep, ChartFiles.FILES);
    }

    /**
     * {@link #analyze} with the charts written by {@code charts}. The profile and the tables are
     * written first; a chart that fails is named in {@link CalibrationSummary#chartFailures()}.
     */
    static CalibrationSummary analyze(Path outputDirectory, CalibrationSettings settings, CalibrationSweep.SweepResult sweep,
                                      ChartFiles.Writer charts) throws IOException {
        return analyze(outputDirectory, settings, sweep,
                new PcieCalibration.NotMeasured("only NVMe measurements were handed in (" + sweep.backendName() + ")"), charts);
    }

    /** {@link #analyze} with the PCIe part's outcome, which goes into the profile, a table, a chart and the summary. */
    static CalibrationSummary analyze(Path outputDirectory, CalibrationSettings settings, CalibrationSweep.SweepResult sweep,
                                      PcieCalibration.Outcome pcie, ChartFiles.Writer charts) throws IOException {
        Calibration.Result result = Calibration.fromSweep(plan(settings, null), sweep, pcie);
        return CalibrationFiles.write(outputDirectory, result, charts);
    }

    // ---- command line --------------------------------------------------------------------------

    /** The flags of {@link #main}, read by picocli; {@link #parse} turns them into {@link Options}. */
    @Command(name = "CalibrationExperiment", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Measures the drive through the live engine, fits the simulator's NVMe model and writes the"
                    + " profile, tables and charts (or refits the runs of an earlier calibration-runs.csv).")
    static final class Flags {
        @Option(names = "--out", paramLabel = "DIR", description = "output directory (default out/calibration)")
        Path outputDirectory = Path.of("out", "calibration");

        @Option(names = "--file", paramLabel = "PATH",
                description = "O_DIRECT test file (default target/calibration/l2.bin; not on tmpfs)")
        Path file = Path.of("target", "calibration", "l2.bin");

        @Option(names = "--quick", description = "a tiny grid (2 sizes x 2 depths, 50 ms per point): seconds, for tests")
        boolean quick;

        @Option(names = "--seconds", paramLabel = "S", description = "seconds per point and repeat (default 0.5)")
        Double seconds;

        @Option(names = "--repeats", paramLabel = "N", description = "interleaved passes over the grid (default 3)")
        Integer repeats;

        @Option(names = "--file-mib", paramLabel = "N", description = "test file size (default 1024)")
        Long fileMib;

        @Option(names = "--backend", paramLabel = "B",
                description = "storage port: io_uring, filechannel or best (default best: io_uring where allowed)")
        String backend;

        @Option(names = "--keep-file", description = "keep the test file (the next run skips filling it)")
        boolean keep;

        @Option(names = "--from-runs", paramLabel = "F",
                description = "measure nothing: refit the runs of an earlier calibration-runs.csv")
        Path fromRuns;
    }

    static String usage() {
        return new CommandLine(new Flags()).getUsageMessage();
    }

    /** The command line's flags: the settings, the output folder, and the runs to refit (null: measure). */
    record Options(CalibrationSettings settings, Path outputDirectory, Path fromRuns) {}

    /** {@code java ... tierlab.experiments.calibration.CalibrationExperiment [flags]}; exit 2 on a bad flag. */
    public static void main(String[] args) {
        PrintStream out = System.out;
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("calibration: " + e.getMessage() + "\n" + usage());
            System.exit(2);
            return;
        }
        if (options == null) {
            out.print(usage());
            return;
        }
        try {
            CalibrationSummary s = run(options, out);
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

    /** Refits the runs named by {@code --from-runs}, or measures; the console lines go to {@code out}. */
    static CalibrationSummary run(Options options, PrintStream out) throws IOException {
        CalibrationSettings settings = options.settings();
        if (options.fromRuns() != null) {
            List<MeasuredPoint> runs = CalibrationRuns.read(options.fromRuns());
            out.printf(Locale.ROOT, "calibration: refitting %d runs from %s%n", runs.size(), options.fromRuns());
            return analyze(options.outputDirectory(), settings, new CalibrationSweep.SweepResult(settings.toSweep(), "refit",
                    "runs read from " + options.fromRuns(), runs, 0));
        }
        out.printf(Locale.ROOT, "calibration: %d points x %d repeat(s) of %.2f s on %s%n",
                settings.toSweep().pointsPerRepeat(), settings.repeats(), settings.secondsPerPoint(), settings.file());
        return run(options.outputDirectory(), settings, out::println);
    }

    /** The flags as options, or null for {@code --help}; a bad flag is an IllegalArgumentException naming it. */
    static Options parse(String[] args) {
        Flags flags = new Flags();
        // A flag given twice takes its last value, as it always has.
        CommandLine line = new CommandLine(flags).setOverwrittenOptionsAllowed(true);
        try {
            line.parseArgs(args);
        } catch (UnmatchedArgumentException e) {
            throw new IllegalArgumentException("unknown flag '" + e.getUnmatched().getFirst() + "'");
        } catch (MissingParameterException e) {
            throw new IllegalArgumentException(flagName(e.getMissing().getFirst()) + " needs a value");
        } catch (ParameterException e) {
            // What is left is a value picocli could not convert: only the number flags have a type to fail.
            if (e.getArgSpec() instanceof OptionSpec option) {
                throw new IllegalArgumentException(option.longestName() + " needs a number, was '" + e.getValue() + "'");
            }
            throw new IllegalArgumentException(e.getMessage());
        }
        if (line.isUsageHelpRequested() || line.isVersionHelpRequested()) {
            return null;
        }
        CalibrationSettings settings = flags.quick ? CalibrationSettings.quick(flags.file) : CalibrationSettings.defaults(flags.file);
        if (flags.seconds != null || flags.repeats != null) {
            settings = settings.withTiming(flags.seconds == null ? settings.secondsPerPoint() : flags.seconds,
                    flags.repeats == null ? settings.repeats() : flags.repeats);
        }
        if (flags.fileMib != null) {
            settings = settings.withFile(flags.file, flags.fileMib << 20);
        }
        if (flags.backend != null) {
            settings = settings.withBackend(flags.backend);
        }
        return new Options(settings.withDeleteFileAfter(!flags.keep), flags.outputDirectory, flags.fromRuns);
    }

    private static String flagName(ArgSpec spec) {
        return spec instanceof OptionSpec option ? option.longestName() : spec.paramLabel();
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
                CalibrationFiles.ceiling(n.maxReadBytesPerSecond()), n.writeBaseLatencyNs() / 1e3, n.writeBytesPerSecondPerChannel() / 1e6,
                CalibrationFiles.ceiling(n.maxWriteBytesPerSecond()), s.points(),
                100 * s.medianThroughputRelativeError(), 100 * s.medianReadThroughputRelativeError(),
                100 * s.medianWriteThroughputRelativeError(), 100 * s.maxThroughputRelativeError(),
                100 * s.medianLatencyRelativeError(), s.fit().rmsLogError(), 100 * s.channelOnlyMedianThroughputRelativeError(),
                PcieCalibration.describe(s.pcie()), s.outputDirectory());
    }
}
