package tierlab.experiments.calibration;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import tierlab.experiments.AtomicOutputDirectory;
import tierlab.experiments.CommandException;
import tierlab.experiments.ExitCleanup;
import tierlab.sim.device.NvmeProfile;

/**
 * {@code kind: calibration} (E5) as {@code tierlab run} runs it: measures the drive under the
 * output folder with the live engine, fits the simulator's NVMe model to it ({@link Calibration}),
 * and writes the calibration's tables, charts and fitted profile together with {@code report.md}
 * and {@code run.json}, all at once into {@code out/NAME/}. Measurements are of this machine at this
 * moment, so a re-run gives other numbers (the report says how far apart two runs were).
 */
public final class CalibrationRun {

    /** The runner's report and run record, named as every {@code tierlab run} names them. */
    public static final String REPORT = "report.md";
    public static final String RUN_INFO = "run.json";

    /**
     * The experiment file as the runner read it: what the report and the run record repeat.
     *
     * @param section    the file's {@code calibration:} section, or null for every default
     * @param seeds      the file's seeds (the first seeds the offsets), or null
     * @param discussion the file's {@code reference.discussion}, or null
     * @param gitCommit  the commit tierlab runs from
     */
    public record Experiment(String name, Path file, String fileSha256, String description, String discussion,
                             CalibrationSection section, List<Long> seeds, String gitCommit) {}

    private CalibrationRun() {
    }

    /** Validates the section into settings; the test file sits in {@code scratch}. */
    static CalibrationSettings settings(Experiment experiment, Path scratch) {
        CalibrationSection section = experiment.section();
        CalibrationSettings defaults = CalibrationSettings.defaults(scratch.resolve("calibration.bin"));
        if (section == null) {
            return defaults.withProfileName(experiment.name() + "-fitted");
        }
        try {
            List<Integer> sizes = section.blockSizesKiB() == null ? defaults.blockSizesBytes()
                    : section.blockSizesKiB().stream().map(kib -> {
                        if (kib == null || kib <= 0 || kib > (1 << 20)) {
                            throw new IllegalArgumentException("calibration.blockSizesKiB: whole KiB in 1..1048576, was " + kib);
                        }
                        return kib * 1024;
                    }).toList();
            long fileBytes = section.fileMiB() == null ? defaults.fileBytes() : section.fileMiB() * (1L << 20);
            return new CalibrationSettings(defaults.file(), fileBytes,
                    section.accesses() == null ? defaults.accesses() : section.accesses(), sizes,
                    section.queueDepths() == null ? defaults.queueDepths() : section.queueDepths(),
                    section.secondsPerPoint() == null ? defaults.secondsPerPoint() : section.secondsPerPoint(),
                    section.repeats() == null ? defaults.repeats() : section.repeats(),
                    section.backend() == null ? defaults.backend() : section.backend(),
                    section.baseProfile() == null ? defaults.baseProfile() : section.baseProfile(),
                    experiment.name() + "-fitted", true,
                    experiment.seeds() == null || experiment.seeds().isEmpty() ? defaults.seed() : experiment.seeds().getFirst());
        } catch (IllegalArgumentException e) {
            throw new CommandException(experiment.file() + ": " + e.getMessage(), e);
        }
    }

    /** The PCIe sweep's settings, or null when the file sets {@code calibration.pcie: false}. */
    static PcieSweep.Settings pcieSettings(Experiment experiment) {
        CalibrationSection section = experiment.section();
        return section != null && Boolean.FALSE.equals(section.pcie()) ? null : PcieSweep.Settings.defaults();
    }

    public static Set<String> ownedFiles() {
        Set<String> owned = new LinkedHashSet<>(CalibrationSummary.FILES);
        owned.add(REPORT);
        owned.add(RUN_INFO);
        return owned;
    }

    /** Runs E5 into {@code target}; 0 when everything was written, a CommandException (one line) when not. */
    public static int run(Experiment experiment, Path target, String command, boolean quiet, PrintWriter stdout) {
        Path scratch = target.toAbsolutePath().normalize().getParent().resolve("." + experiment.name() + ".scratch");
        CalibrationSettings settings = settings(experiment, scratch);
        Set<String> owned = ownedFiles();
        AtomicOutputDirectory.checkReplaceable(target, owned);
        try {
            Files.createDirectories(scratch);
        } catch (IOException e) {
            throw new CommandException("cannot create " + scratch + " for the calibration's test file: " + e.getMessage(), e);
        }
        Instant startedAt = Instant.now();
        long startNs = System.nanoTime();
        CalibrationSummary[] summary = new CalibrationSummary[1];
        // SIGINT or SIGTERM during the measurements: the test file (up to GiBs) goes too.
        ExitCleanup.Registration testFile = ExitCleanup.register(() -> {
            try {
                Files.deleteIfExists(settings.file());
                Files.deleteIfExists(scratch);
            } catch (IOException ignored) {
                // A leftover empty scratch folder is harmless.
            }
        });
        try {
            AtomicOutputDirectory.write(target, owned, folder -> {
                try {
                    summary[0] = CalibrationExperiment.run(folder, settings, pcieSettings(experiment), quiet ? null : line -> {
                        synchronized (stdout) {
                            stdout.println(line);
                            stdout.flush();
                        }
                    });
                } catch (IllegalArgumentException e) {
                    // The fit refuses measurements it cannot explain (say, times that do not grow with size).
                    throw new CommandException(experiment.file() + ": the measurements could not be fitted: " + e.getMessage(), e);
                }
                double wallSeconds = (System.nanoTime() - startNs) / 1e9;
                // The profile's path as the output folder will have it, not the temporary folder's.
                CalibrationSummary placed = summary[0];
                Files.writeString(folder.resolve(REPORT), report(experiment, placed, target, command, wallSeconds),
                        StandardCharsets.UTF_8);
                Files.writeString(folder.resolve(RUN_INFO), json(runJson(experiment, settings,
                        placed, command, wallSeconds, startedAt)), StandardCharsets.UTF_8);
            });
        } finally {
            testFile.close();
        }
        stdout.println(CalibrationExperiment.describe(summary[0]).replace(summary[0].outputDirectory().toString(), target.toString()));
        stdout.println("wrote " + target + "/: " + String.join(", ", owned.stream().sorted().toList()));
        stdout.flush();
        if (!summary[0].chartFailures().isEmpty()) {
            // The profile and the tables are written; the exit code tells a script that charts are missing.
            throw new CommandException(String.join("; ", summary[0].chartFailures()) + " (every table and the fitted profile"
                    + " were written; see " + target.resolve(REPORT) + ")");
        }
        return 0;
    }

    private static String report(Experiment experiment, CalibrationSummary s, Path target, String command,
                                 double wallSeconds) {
        NvmeProfile nvme = s.nvme();
        StringBuilder md = new StringBuilder("# ").append(experiment.name()).append("\n\n");
        if (experiment.description() != null) {
            md.append(experiment.description().strip()).append("\n\n");
        }
        md.append("## How to reproduce\n\n```sh\n").append(command).append("\n```\n\n");
        md.append(String.format(Locale.ROOT, "%d grid points, %d measured runs through `%s` (%s), %.0f s of measuring,"
                        + " %.0f s in all; tierlab commit `%s`. A measurement is of this machine at this moment: a"
                        + " re-run gives other numbers.%n%n", s.points(), s.runs(), s.backend(), s.backendStatus(),
                s.sweepWallSeconds(), wallSeconds, experiment.gitCommit()));
        md.append("## The fitted profile\n\n`").append(target.resolve(CalibrationExperiment.PROFILE_YAML))
                .append("` is a device profile: an experiment names it with `device: <path relative to the experiment file>`.\n\n");
        md.append("| NVMe term | reads | writes |\n|---|---:|---:|\n");
        md.append(String.format(Locale.ROOT, "| channels | %d | %d |%n", nvme.channels(), nvme.channels()));
        md.append(String.format(Locale.ROOT, "| base latency (µs) | %.1f | %.1f |%n", nvme.readBaseLatencyNs() / 1e3,
                nvme.writeBaseLatencyNs() / 1e3));
        md.append(String.format(Locale.ROOT, "| bandwidth per channel (MB/s) | %,.0f | %,.0f |%n",
                nvme.readBytesPerSecondPerChannel() / 1e6, nvme.writeBytesPerSecondPerChannel() / 1e6));
        md.append(String.format(Locale.ROOT, "| device-wide ceiling (MB/s) | %s | %s |%n%n",
                ceiling(nvme.maxReadBytesPerSecond()), ceiling(nvme.maxWriteBytesPerSecond())));
        md.append("## Model against measurement\n\n");
        md.append(String.format(Locale.ROOT, "| median relative error of throughput | %.1f%% (reads %.1f%%, writes %.1f%%) |%n"
                        + "|---|---|%n| worst point | %.1f%% |%n| median relative error of mean latency | %.1f%% |%n"
                        + "| the same fit without the device-wide ceilings | %.1f%% |%n%n",
                100 * s.medianThroughputRelativeError(), 100 * s.medianReadThroughputRelativeError(),
                100 * s.medianWriteThroughputRelativeError(), 100 * s.maxThroughputRelativeError(),
                100 * s.medianLatencyRelativeError(), 100 * s.channelOnlyMedianThroughputRelativeError()));
        if (experiment.discussion() != null) {
            md.append(experiment.discussion().strip()).append("\n\n");
        }
        md.append(PcieCalibration.reportSection(s.pcie(), s.pcieProfile(), s.chartFailures()));
        md.append("## Charts\n\n");
        for (String chart : List.of("throughput-read", "throughput-write", "latency-vs-qd-read", "latency-vs-qd-write")) {
            String failure = s.chartFailures().stream().filter(f -> f.startsWith("chart " + chart + " ")).findFirst().orElse(null);
            md.append(failure == null ? "![" + chart + "](" + chart + ".png)" : "**" + failure + "**; the tables hold its data.")
                    .append("\n\n");
        }
        md.append("## Files\n\n- `calibration-points.csv`: per grid point, measured medians, model prediction, relative errors\n"
                + "- `calibration-runs.csv`: every measured run (point × repeat)\n"
                + "- `fitted-profile.yaml`: the device profile\n- `calibration-summary.json`: fitted parameters and errors\n"
                + "- `pcie-points.csv`: the PCIe sweep (only its header when PCIe was not measured)\n"
                + "- `run.json`: commit, JVM, settings, wall time\n");
        return md.toString();
    }

    private static String ceiling(double bytesPerSecond) {
        return bytesPerSecond <= 0 ? "none" : String.format(Locale.ROOT, "%,.0f", bytesPerSecond / 1e6);
    }

    private static ObjectNode runJson(Experiment experiment, CalibrationSettings settings,
                                      CalibrationSummary summary, String command, double wallSeconds, Instant startedAt) {
        ObjectNode root = new ObjectMapper().createObjectNode();
        root.put("name", experiment.name());
        root.put("kind", "calibration");
        root.put("file", experiment.file().toString());
        root.put("fileSha256", experiment.fileSha256());
        root.put("command", command);
        root.put("gitCommit", experiment.gitCommit());
        root.put("seed", settings.seed());
        root.put("backend", summary.backend());
        root.put("backendStatus", summary.backendStatus());
        root.put("points", summary.points());
        root.put("runs", summary.runs());
        ObjectNode jvm = root.putObject("jvm");
        jvm.put("version", System.getProperty("java.version"));
        jvm.put("vendor", System.getProperty("java.vendor"));
        root.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        root.put("cores", Runtime.getRuntime().availableProcessors());
        root.put("startedAt", startedAt.toString());
        root.put("wallSeconds", wallSeconds);
        List<String> files = new ArrayList<>(ownedFiles());
        root.putPOJO("files", files);
        return root;
    }

    private static String json(ObjectNode node) {
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(node) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException("a tree of plain values always serialises", e);
        }
    }
}
