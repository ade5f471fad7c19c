package tierlab.experiments.validate;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import tierlab.experiments.calibration.HostCostBench;
import tierlab.engine.persist.CallerPaths;
import tierlab.experiments.AtomicOutputDirectory;
import tierlab.experiments.CommandException;
import tierlab.experiments.ExitCleanup;
import tierlab.experiments.OutputFolderCheck;
import tierlab.experiments.OutputFolderOption;
import tierlab.experiments.QuietOption;
import tierlab.engine.cuda.CudaDevice;
import tierlab.experiments.ChartFiles;
import tierlab.experiments.calibration.Calibration;
import tierlab.experiments.calibration.DriveReplay;
import tierlab.experiments.calibration.HostCalibrationReport;
import tierlab.experiments.calibration.HostCalibrationSettings;
import tierlab.experiments.run.BuildInfo;
import tierlab.experiments.run.GpuCopyPath;
import tierlab.experiments.run.RunConfig;
import tierlab.experiments.run.RunPasses;
import tierlab.experiments.run.RunFacts;
import tierlab.sim.device.DeviceProfile;

/**
 * {@code tierlab validate FILE}: how far the simulator can be trusted on this host. Calibrates the
 * host (or takes a fitted profile), runs every workload of the file live several times and once in
 * the simulator, and writes the comparison to {@code out/NAME/} (docs/validation.md).
 */
@Command(name = "validate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs each workload of a validation file live (wall clock, io_uring, a real pinned L1 and L2 file,"
                + " payloads verified) several times and in the simulator on this host's fitted profile, and writes"
                + " validation.csv, decisions.csv, charts and report.md to out/NAME (replaced whole). Without a"
                + " 'profile' in the file (or --profile) it first calibrates this host: the NVMe model from the live"
                + " engine's sweep and the host costs from microbenchmarks. See docs/validation.md;"
                + " experiments/catalog/validation.yaml is the catalogue's file."})
public final class ValidateCommand implements Callable<Integer> {

    /** How charts reach their files; a test puts one that fails here, as a host without fonts does. */
    static volatile ChartFiles.Writer chartWriter = ChartFiles.FILES;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The validation file (.yaml, .yml or .json).")
    private Path file;

    @Mixin
    private OutputFolderOption output = new OutputFolderOption();

    @Option(names = "--profile", paramLabel = "FILE",
            description = "A fitted device profile to simulate on instead of calibrating now (overrides the file's 'profile').")
    private Path profile;

    @Option(names = "--repeats", paramLabel = "N", description = "Live runs per workload [default: the file's 'repeats', 3].")
    private Integer repeats;

    @Option(names = "--gpu", paramLabel = "auto|cuda|host",
            description = "The live runs' GPU side (overrides the file's live.gpu): auto = CUDA where a device is usable,"
                    + " else host buffers; cuda = refuse to run without one; host = host buffers.")
    private String gpu;

    @Mixin
    private QuietOption quiet = new QuietOption();

    @Override
    public Integer call() throws IOException {
        checkOptions();
        // The whole file is checked first, on the preset, so a bad field costs no calibration.
        ValidationFile checked = ValidationFile.load(file, "qwen3-8b-h100");
        Path given = profile != null ? profile : ValidationFile.profileOf(file);
        Path target = output.orDefault(checked.name());
        Set<String> owned = new LinkedHashSet<>(List.of(ValidationReport.CSV, ValidationReport.DECISIONS_CSV,
                ValidationReport.DECISION_KINDS_CSV, ValidationReport.DRIVE_CSV, ValidationReport.REPORT, ValidationReport.PROFILE));
        checked.workloads().keySet().forEach(name -> owned.addAll(ValidationReport.chartNames(name)));
        AtomicOutputDirectory.checkReplaceable(target, owned);
        checkRoom(checked, given != null, target);
        PrintWriter stdout = spec.commandLine().getOut();
        // One scratch folder per process: two validations of files with the same name writing beside each
        // other (out folders in one parent) must not delete each other's L2 and calibration files.
        Path scratch = target.toAbsolutePath().normalize().getParent().resolve("." + checked.name() + ".validate-scratch-"
                + ProcessHandle.current().pid());
        String command = "tierlab validate " + file.getFileName() + (profile != null ? " --profile " + profile : "")
                + (repeats != null ? " --repeats " + repeats : "") + (gpu != null ? " --gpu " + gpu : "");
        ValidationFile.Live liveSettings = gpu == null ? checked.live() : new ValidationFile.Live(gpu, checked.live().verify());
        java.util.function.Supplier<CudaDevice> probe = GpuCopyPath.probedOnce();  // a file with live.gpu: host never probes
        CudaDevice cuda = liveGpuSide(liveSettings, probe, stdout);
        try (ExitCleanup.Registration cleanup = ExitCleanup.register(() -> deleteTree(scratch))) {
            Files.createDirectories(scratch);
            Calibrated calibrated = calibrate(checked, given, command, scratch, cuda, liveSettings.verify(), stdout);
            ValidationFile validation = ValidationFile.load(file, calibrated.profileFile().toString());
            List<ValidationReport.WorkloadResult> results = runWorkloads(validation,
                    new ValidationRuns(scratch, liveSettings, probe), scratch, stdout);
            Observation first = results.getFirst().live().getFirst();
            String host = HostDescription.describe(scratch, first.backend(), first.gpuCopies());
            List<String> chartFailures = writeOutput(target, owned, validation, command, host, calibrated, results);
            summary(stdout, target, results, chartFailures);
            // A calibration that could not deliver what its plan asked for leaves a profile that is not this host's.
            calibrated.failures().forEach(line -> stdout.println("tierlab validate: the calibration FAILED: " + line));
            stdout.flush();
            boolean failed = !calibrated.failures().isEmpty() || results.stream().anyMatch(ValidationReport.WorkloadResult::failed);
            return failed ? 1 : 0;
        } finally {
            deleteTree(scratch);
        }
    }

    private void checkOptions() {
        if (repeats != null && (repeats < 1 || repeats > 100)) {
            throw new ParameterException(spec.commandLine(), "--repeats: must be from 1 to 100, was " + repeats);
        }
        if (gpu != null && !ValidationFile.Live.GPUS.contains(gpu)) {
            throw new ParameterException(spec.commandLine(), "--gpu: unknown value '" + gpu + "' (known: "
                    + String.join(", ", ValidationFile.Live.GPUS) + ")");
        }
        file = CallerPaths.resolve(file);
        output.resolveAgainstCaller();
        profile = CallerPaths.resolve(profile);
        if (profile != null && !Files.isRegularFile(profile)) {
            throw new CommandException("--profile: no such profile file: " + profile);
        }
    }

    /**
     * Refuses, before anything is measured, an output folder whose parent (where the scratch folder goes)
     * cannot be written or lacks room for the largest scratch file at a time: the calibration's test files
     * (unless a profile is given) or a workload's L2 file (its live runs and drive replays), plus the outputs.
     */
    private static void checkRoom(ValidationFile checked, boolean profileGiven, Path target) {
        HostCalibrationSettings calibration = checked.calibration();
        long calibrationBytes = profileGiven ? 0 : (long) Math.max(calibration.fileMiB(), calibration.sustainedMiB()) << 20;
        long l2Bytes = checked.workloads().values().stream().mapToLong(w -> w.config().store().l2CapacityBytes()).max().orElse(0);
        long scratchBytes = Math.max(calibrationBytes, l2Bytes);
        OutputFolderCheck.check(target, scratchBytes + OutputFolderCheck.OUTPUT_RESERVE_BYTES, "a scratch file of "
                + OutputFolderCheck.size(scratchBytes) + " at a time (" + (l2Bytes >= calibrationBytes ? "a workload's L2 file"
                : "the calibration's test file") + "), plus tables, charts and report");
    }

    /**
     * The live runs' CUDA device (null for live.gpu: host, which never probes), said in one progress
     * line; a file (or --gpu) that asks for CUDA where there is none is refused before anything is measured.
     */
    private CudaDevice liveGpuSide(ValidationFile.Live liveSettings, java.util.function.Supplier<CudaDevice> probe, PrintWriter stdout) {
        String refusal = GpuCopyPath.refusal(liveSettings.gpu(), probe);
        if (refusal != null) {
            throw new CommandException(file + ": " + refusal);
        }
        CudaDevice cuda = liveSettings.gpu().equals(RunConfig.GPU_HOST) ? null : probe.get();
        progress(stdout, "live GPU side: " + (cuda != null && cuda.available() ? "cuda: " + cuda.description()
                + (liveSettings.verify() ? "; loads verified on the GPU side" : "; not verified (live.verify is false)")
                : RunFacts.HOST_BUFFERS + ": " + (cuda == null ? "live.gpu is host" : cuda.description())));
        return cuda;
    }

    /** The profile the simulation runs on, its file in the scratch folder, and the report's calibration text. */
    private record Calibrated(DeviceProfile profile, Path profileFile, String text, List<String> failures) {}

    private Calibrated calibrate(ValidationFile checked, Path given, String command, Path scratch, CudaDevice cuda, boolean verify,
                                 PrintWriter stdout) throws IOException {
        String calibrationText;
        DeviceProfile fitted;
        List<String> failures = List.of();
        if (given != null) {
            fitted = loadProfile(given);
            calibrationText = "Profile given: " + given + "\n\n" + fitted.toYaml("");
        } else {
            Calibration.Plan plan = checked.calibration().plan(scratch,
                    checked.workloads().values().iterator().next().config().workload().geometry(), checked.name() + "-host",
                    cuda, verify);
            Calibration.Result calibration = Calibration.run(plan, new Calibration.Progress(line -> progress(stdout, line), null));
            fitted = calibration.profile();
            failures = calibration.failures();
            calibration.warnings().forEach(line -> progress(stdout, "calibration warning: " + line));
            calibrationText = HostCalibrationReport.of(calibration).header(command) + "\n\n" + fitted.toYaml("");
        }
        Path profileFile = scratch.resolve(ValidationReport.PROFILE);
        Files.writeString(profileFile, fitted.toYaml(calibrationText.lines().takeWhile(l -> !l.isBlank())
                .reduce("", (a, b) -> a + b + "\n")));
        return new Calibrated(fitted, profileFile, calibrationText, failures);
    }

    /**
     * Every workload: its drive replayed, live {@code repeats} times, its drive replayed again, then
     * simulated on the profile capped by each replay; and the comparison of the two.
     */
    private List<ValidationReport.WorkloadResult> runWorkloads(ValidationFile validation, ValidationRuns runs, Path scratch,
                                                               PrintWriter stdout) {
        int count = repeats != null ? repeats : validation.repeats();
        List<ValidationReport.WorkloadResult> results = new ArrayList<>();
        for (ValidationFile.Workload workload : validation.workloads().values()) {
            RunPasses passes = runs.passes(workload.config());
            DriveReplay.Recording recording = validation.driveReplay() ? runs.simulatedL2Ops(workload.config(), passes) : null;
            Replayed before = replay(recording, scratch, workload, "before", stdout);
            List<Observation> live = new ArrayList<>();
            for (int repeat = 0; repeat < count; repeat++) {
                Observation observed = runs.live(workload.config(), passes, repeat);
                progress(stdout, String.format(Locale.ROOT, "%s: live run %d of %d: %.2f s%s", workload.name(), repeat + 1, count,
                        observed.wallNs() / 1e9, observed.failure() == null ? "" : " (failed: " + observed.failure() + ")"));
                live.add(observed);
            }
            Replayed after = before.rates() == null ? before : replay(recording, scratch, workload, "after", stdout);
            DriveCheck drive = before.rates() == null || after.rates() == null ? null
                    : DriveCheck.of(recording, workload.config().device(), before.rates(), after.rates());
            Observation sim = runs.simulate(drive == null ? workload.config() : workload.config().withDevice(drive.beforeProfile()),
                    passes);
            Observation simAfter = drive == null ? null : runs.simulate(workload.config().withDevice(drive.afterProfile()), passes);
            progress(stdout, workload.name() + ": simulated" + (sim.failure() == null ? "" : " (failed: " + sim.failure() + ")"));
            var geometry = workload.config().workload().geometry();
            // With CUDA the device holds computed KV: there is no host-side fill to account for.
            boolean cudaCopies = live.stream().anyMatch(o -> o.gpuCopies().startsWith("cuda"));
            double fillNsPerMiB = cudaCopies ? 0 : HostCostBench.computeFillNsPerMiB(geometry, 200);
            String driveFailure = before.failure() != null ? before.failure() : after.failure();
            results.add(new ValidationReport.WorkloadResult(workload.name(), workload.role(), live, sim, simAfter, drive, driveFailure,
                    Comparison.rows(workload.name(), live, sim, simAfter), Comparison.decisions(live, sim),
                    geometry.blockBytes() / geometry.blockTokens(), fillNsPerMiB));
        }
        return results;
    }

    /** A replay's rates, or why there are none (null both: the file turned the replay off). */
    private record Replayed(DriveReplay.Rates rates, String failure) {}

    private Replayed replay(DriveReplay.Recording recording, Path scratch, ValidationFile.Workload workload, String phase,
                            PrintWriter stdout) {
        if (recording == null) {
            return new Replayed(null, null);
        }
        try {
            DriveReplay.Rates rates = DriveCheck.measure(recording, scratch, workload.name(), phase,
                    workload.config().store().l2CapacityBytes());
            progress(stdout, workload.name() + ": drive replay " + phase + " the live runs: " + rates.describe());
            return new Replayed(rates, null);
        } catch (IOException e) {
            // The drive could not be measured: the workload is still compared, on the host profile, and the report says why.
            String failure = "the drive replay " + phase + " the live runs failed: " + CommandException.describe(e);
            progress(stdout, workload.name() + ": " + failure);
            return new Replayed(null, failure);
        }
    }

    /** Writes the output folder whole; returns the charts that failed (the tables, profile and report are written regardless). */
    private static List<String> writeOutput(Path target, Set<String> owned, ValidationFile validation, String command, String host,
                                            Calibrated calibrated, List<ValidationReport.WorkloadResult> results) throws IOException {
        List<String> chartFailures = new ArrayList<>();
        String build = BuildInfo.describeCurrent();
        String profileYaml = Files.readString(calibrated.profileFile());
        AtomicOutputDirectory.write(target, owned, folder -> {
            // Tables, profile and report first: a chart that fails below cannot cost them.
            ValidationReport.writeTables(folder, results);
            Files.writeString(folder.resolve(ValidationReport.PROFILE), profileYaml);
            ReportText.write(folder, ReportText.render(validation, command, host, build, calibrated.text(), calibrated.profile().nvme(),
                    results, List.of()));
            chartFailures.addAll(ValidationReport.writeCharts(folder, results, chartWriter));
            if (!chartFailures.isEmpty()) {
                ReportText.write(folder, ReportText.render(validation, command, host, build, calibrated.text(), calibrated.profile().nvme(),
                        results, chartFailures));
            }
        });
        return chartFailures;
    }

    private static DeviceProfile loadProfile(Path file) {
        try {
            return DeviceProfile.load(file);
        } catch (IllegalArgumentException e) {
            throw new CommandException(e.getMessage(), e);
        }
    }

    private void progress(PrintWriter stdout, String line) {
        if (!quiet.quiet()) {
            stdout.println("tierlab validate: " + line);
            stdout.flush();
        }
    }

    private static void summary(PrintWriter stdout, Path target, List<ValidationReport.WorkloadResult> results,
                                List<String> chartFailures) {
        for (ValidationReport.WorkloadResult result : results) {
            StringBuilder line = new StringBuilder(result.name()).append(':');
            for (Comparison.Row row : result.rows()) {
                if (row.metric().equals("elapsedS") || row.metric().equals("ttftP50Ms")) {
                    line.append(' ').append(row.pass()).append('.').append(row.metric()).append(' ')
                            .append(ValidationReport.pct(row.relativeError()));
                }
            }
            Comparison.Decisions d = result.decisions();
            line.append("; decisions ").append(d.identical()).append('/').append(d.requests()).append(" identical");
            if (result.failed()) {
                line.append("; a run FAILED (see report.md)");
            }
            stdout.println(line);
        }
        chartFailures.forEach(failure -> stdout.println("tierlab validate: chart not written: " + failure));
        stdout.println("tierlab validate: wrote " + target.resolve(ValidationReport.REPORT));
        stdout.flush();
    }

    private static void deleteTree(Path folder) {
        if (!Files.exists(folder)) {
            return;
        }
        try (var paths = Files.walk(folder)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(ValidationReport::deleteQuietly);
        } catch (IOException ignored) {
            // Scratch only (under the output folder's parent, named by this process); nothing reads it again.
        }
    }
}
