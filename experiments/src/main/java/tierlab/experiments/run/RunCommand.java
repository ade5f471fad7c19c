package tierlab.experiments.run;

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
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tierlab.experiments.AtomicOutputDirectory;
import tierlab.experiments.OutputLock;
import tierlab.experiments.ChartFiles;
import tierlab.engine.persist.CallerPaths;
import tierlab.experiments.ExitCleanup;
import tierlab.experiments.OutputFolderCheck;
import tierlab.experiments.OutputFolderOption;
import tierlab.experiments.QuietOption;
import tierlab.experiments.StaleOutputs;
import tierlab.experiments.CommandException;
import tierlab.experiments.calibration.CalibrationRun;

/**
 * {@code tierlab run FILE}: loads and validates an experiment file, runs every point of its sweep
 * grid (in parallel), and writes {@code out/NAME/} all at once: tables, charts, report and run
 * record. Nothing is written when the file is bad; a failed write leaves the previous output.
 * The charts and the report are drawn from the tables just written ({@link Plotter}), as
 * {@code tierlab plot} draws them later; a chart that fails is named and costs no other file.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Run an experiment file (YAML or JSON) and write its tables, charts and report.",
            "Writes results.csv, requests.csv, timeseries.csv, summary.json, run.json, report.md, a copy of the"
                    + " file as experiment.yaml and each chart as PNG and SVG into out/NAME (NAME from the file), replaced"
                    + " whole and never left half-written; 'tierlab plot out/NAME' re-draws charts and report from them."
                    + " The catalogue is in experiments/catalog/."})
public final class RunCommand implements Callable<Integer> {

    public static final String REPORT = "report.md";
    public static final String RUN_INFO = "run.json";
    /** Base name of the experiment file's copy in the output folder. */
    public static final String EXPERIMENT_COPY = "experiment";
    public static final String MISS_RATIO_CSV = "miss-ratio.csv";
    public static final String MISS_RATIO_PNG = "miss-ratio.png";
    public static final String MISS_RATIO_SVG = "miss-ratio.svg";

    /** How charts reach their files; a test puts one that fails here, as a host without fonts does. */
    static volatile ChartFiles.Writer chartWriter = ChartFiles.FILES;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The experiment file (.yaml, .yml or .json).")
    private Path file;

    @Mixin
    private OutputFolderOption output = new OutputFolderOption();

    @Option(names = {"-j", "--jobs"}, paramLabel = "N",
            description = "Runs at a time [default: the number of cores; 1 for live runs, which measure this host].")
    private Integer jobs;

    @Mixin
    private QuietOption quiet = new QuietOption();

    @Option(names = "--executor", paramLabel = "NAME",
            description = "Where the runs go: local (threads of this JVM) or spark (Apache Spark, one task per run;"
                    + " needs the spark module, docs/spark.md) [default: local].")
    private String executorName = LOCAL_EXECUTOR;

    @Option(names = "--master", paramLabel = "URL",
            description = "With --executor spark: local[N] or spark://HOST:PORT [default: what spark-submit set, else local[*]].")
    private String master;

    static final String LOCAL_EXECUTOR = "local";

    /**
     * Runs at a time unless --jobs says: every core for simulations, one for live runs. Live runs measure
     * the drive, the L1 memory and the GPU of this host; two at once share them and each measures half a
     * machine (seen on a GPU host: two live runs of one file side by side, each slower than alone).
     */
    static int defaultJobs(ExperimentLoader.Experiment experiment) {
        boolean live = experiment.points().stream().anyMatch(point -> point.config().mode().equals("live"));
        return live ? 1 : Runtime.getRuntime().availableProcessors();
    }

    @Override
    public Integer call() {
        if (jobs != null && jobs < 1) {
            throw new ParameterException(spec.commandLine(), "--jobs: must be >= 1, was " + jobs);
        }
        file = CallerPaths.resolve(file);
        output.resolveAgainstCaller();
        ExperimentLoader.Experiment experiment = ExperimentLoader.load(file);
        int threads = jobs != null ? jobs : defaultJobs(experiment);
        // Before any run: what killed runs left beside the output, then whether the output can be written at all.
        Path parent = outFolder(experiment).toAbsolutePath().normalize().getParent();
        if (parent != null) {
            PrintWriter stderr = spec.commandLine().getErr();
            StaleOutputs.clean(parent).forEach(line -> stderr.println("tierlab: " + line));
            stderr.flush();
        }
        checkOutputFolder(experiment, threads);
        // Held until the outputs are in place, so a second run into the same --out is refused; taken after the checks above.
        try (OutputLock held = OutputLock.acquire(outFolder(experiment))) {
            return runHeld(experiment, threads);
        }
    }

    /** The job, once this process holds its output folder. */
    private int runHeld(ExperimentLoader.Experiment experiment, int threads) {
        SweepExecutorProvider provider = remoteProvider(experiment);
        if (experiment.kind().equals("calibration")) {
            ExperimentFile parsed = experiment.spec();
            CalibrationRun.Experiment e5 = new CalibrationRun.Experiment(experiment.name(), experiment.file(), experiment.fileSha256(),
                    parsed.description(), parsed.reference() == null ? null : parsed.reference().discussion(), parsed.calibration(),
                    parsed.seeds(), RunInfo.currentGitCommit());
            return CalibrationRun.run(e5, outFolder(experiment), command(experiment), quiet.quiet(), spec.commandLine().getOut());
        }
        Path target = outFolder(experiment);
        Set<String> owned = ownedFiles(experiment);
        // A bad --out fails now, not after the runs.
        AtomicOutputDirectory.checkReplaceable(target, owned);
        Ran ran = runPoints(experiment, provider, threads, target);
        // A bug's stack trace is shown now and kept in errors.log: its row alone says only its first line.
        String errorsLog = ResultFiles.errorsLog(ran.results());
        if (errorsLog != null) {
            PrintWriter stderr = spec.commandLine().getErr();
            stderr.print("tierlab: a bug stopped some runs (their run.failureKind is 'bug'); stack traces follow and are in "
                    + target.resolve(ResultFiles.ERRORS_LOG) + "\n" + errorsLog);
            stderr.flush();
        }
        List<String> chartFailures = new ArrayList<>();
        Plotter.Plotted plotted = writeOutput(experiment, ran, errorsLog, target, owned, chartFailures);
        PrintWriter stderr = spec.commandLine().getErr();
        chartFailures.forEach(line -> stderr.println("tierlab: " + line));
        stderr.flush();
        summary(experiment, ran, plotted, target, owned);
        // An ablated race fix is meant to break its run; a bug is unexpected whatever the run's settings.
        long unexpected = ran.results().stream().filter(r -> r.failed() && (r.point().config().store().knownBugs().isEmpty()
                || RunFailure.columnValue(r).equals(RunFailure.Kind.BUG.columnValue()))).count();
        if (unexpected == 0 && !chartFailures.isEmpty()) {
            throw new CommandException(chartFailures.size() + " chart" + (chartFailures.size() == 1 ? "" : "s")
                    + " could not be drawn (see above and " + target.resolve(REPORT) + "); every table was written, and"
                    + " './tierlab plot " + target + "' draws them once the cause is fixed");
        }
        if (unexpected > 0) {
            // The outputs are complete and say what broke; the exit code tells a script that something did.
            throw new CommandException(unexpected + " run" + (unexpected == 1 ? "" : "s")
                    + " with every race fix on, or stopped by a bug, did not complete cleanly; see " + target.resolve(REPORT));
        }
        return 0;
    }

    /**
     * What the runs gave: their results, the miss-ratio replays, the run record (run.json), the runs at
     * a time, the remote executor's description (null for a local run) and the wall time of the whole sweep.
     */
    private record Ran(List<RunResult> results, List<MissRatioReplays.Replay> replays, String runJson, int threads,
                       String executorDescription, double wallSeconds) {}

    /** Runs every point, here or in the remote executor, and builds the run record. */
    private Ran runPoints(ExperimentLoader.Experiment experiment, SweepExecutorProvider provider, int threads, Path target) {
        PrintWriter stdout = spec.commandLine().getOut();
        Instant startedAt = Instant.now();
        long startNs = System.nanoTime();
        Path scratch = scratchFolder(target, experiment);
        PrintWriter stderr = spec.commandLine().getErr();
        RunExecutor executor = new RunExecutor(scratch, l1Budget(experiment)).onWarning(line -> {
            synchronized (stderr) {
                stderr.println("tierlab: warning: " + line);
                stderr.flush();
            }
        });
        List<MissRatioReplays.Replay> replays = MissRatioReplays.compute(experiment, executor);
        List<RunResult> results;
        String executorDescription = null;
        // Closed on every path that runs code: normally here, by the shutdown hook on SIGINT and SIGTERM.
        try (SweepExecutorProvider.Remote remote = provider == null ? null : provider.open(experiment, master);
             Progress progress = new Progress(experiment, quiet.quiet(), stdout);
             ExitCleanup.Registration scratchFiles = ExitCleanup.register(() -> deleteOwnScratch(scratch))) {
            if (remote == null) {
                results = new LocalSweepExecutor(threads).run(experiment.points(), executor::run, progress);
            } else {
                // The points run in the remote executor's JVMs; the tables below are written here, as for a local run.
                results = remote.run(experiment.points(), executor::run, progress);
                threads = remote.parallelism();
                executorDescription = remote.description();
            }
        }
        double wallSeconds = (System.nanoTime() - startNs) / 1e9;
        RunInfo info = RunInfo.of(experiment, results, command(experiment), wallSeconds, threads, startedAt);
        com.fasterxml.jackson.databind.node.ObjectNode runRecord =
                info.jsonWithFacts(experiment, results, executor.factsByRun());
        if (executorDescription != null) {
            // Only a remote run names its executor: a local run's run.json stays as it was.
            runRecord.put("executor", executorDescription);
        }
        return new Ran(results, replays, ResultFiles.json(runRecord), threads, executorDescription, wallSeconds);
    }

    /**
     * Writes the output folder whole: the tables first (and errors.log, the bugs' stack traces, when
     * there were any), then the charts and report drawn from them; adds a line for each chart that
     * failed, and returns what the report drew: the reference rows and checks as it computed them.
     */
    private static Plotter.Plotted writeOutput(ExperimentLoader.Experiment experiment, Ran ran, String errorsLog,
                                               Path target, Set<String> owned, List<String> chartFailures) {
        List<RunResult> results = ran.results();
        ChartSpecs specs = ChartSpecs.of(experiment.file(), ChartSpecs.textOf(experiment.file()), experiment.spec());
        Plotter.Plotted[] plotted = new Plotter.Plotted[1];
        AtomicOutputDirectory.write(target, owned, folder -> {
            // The tables first: everything below is drawn from them, and nothing below can cost them.
            ResultFiles.writeCsv(ResultFiles.results(experiment, results), folder.resolve(ResultFiles.RESULTS));
            ResultFiles.writeCsv(ResultFiles.requests(results), folder.resolve(ResultFiles.REQUESTS));
            ResultFiles.writeCsv(ResultFiles.timeseries(results), folder.resolve(ResultFiles.TIMESERIES));
            Files.copy(experiment.file(), folder.resolve(experimentCopyName(experiment)));
            Files.writeString(folder.resolve(RUN_INFO), ran.runJson(), StandardCharsets.UTF_8);
            Files.writeString(folder.resolve(ResultFiles.SUMMARY),
                    ResultFiles.json(ResultFiles.summary(experiment, results, List.of())), StandardCharsets.UTF_8);
            if (errorsLog != null) {
                Files.writeString(folder.resolve(ResultFiles.ERRORS_LOG), errorsLog, StandardCharsets.UTF_8);
            }
            MissRatioReplays.write(ran.replays(), folder, chartWriter, chartFailures);
            RunTables tables = RunTables.read(folder);
            plotted[0] = Plotter.render(folder, specs, tables, specs.problems(tables), chartWriter);
            // summary.json again, now with the reference rows as the report computed them from the tables.
            Files.writeString(folder.resolve(ResultFiles.SUMMARY),
                    ResultFiles.json(ResultFiles.summary(experiment, results, plotted[0].reference())), StandardCharsets.UTF_8);
        });
        chartFailures.addAll(Plotter.failureLines(plotted[0].charts()));
        return plotted[0];
    }

    /** The lines on stdout: the runs, the reference rows, the checks, the files written. */
    private void summary(ExperimentLoader.Experiment experiment, Ran ran, Plotter.Plotted plotted, Path target,
                         Set<String> owned) {
        PrintWriter stdout = spec.commandLine().getOut();
        List<RunResult> results = ran.results();
        long failed = results.stream().filter(RunResult::failed).count();
        int threads = ran.threads();
        stdout.printf(Locale.ROOT, "%s: %d run%s in %.1f s (%s)%s%n", experiment.name(), results.size(),
                results.size() == 1 ? "" : "s", ran.wallSeconds(), ran.executorDescription() != null ? ran.executorDescription()
                        : threads + " thread" + (threads == 1 ? "" : "s"),
                failed == 0 ? "" : "; " + failed + " did not complete cleanly (see report.md)");
        for (ReportWriter.ReferenceValue value : plotted.reference()) {
            if (value.row().metric() != null) {
                stdout.printf(Locale.ROOT, "  %-44s reference %-16s tierlab %s%s%n", value.row().label(),
                        value.row().reference(), ReportWriter.number(value.value()),
                        Boolean.TRUE.equals(value.row().fitted()) ? " (fitted)" : "");
            }
        }
        for (int i = 0; i < plotted.checks().size(); i++) {
            ReferenceChecks.Evaluated check = plotted.checks().get(i);
            stdout.printf(Locale.ROOT, "  check %d %s: %s%n", i + 1, check.passed() ? "PASS" : "FAIL", check.check().claim().strip());
        }
        // Only what is there: a chart that failed (no fonts) is not among the files written.
        stdout.println("wrote " + target + "/: " + String.join(", ", owned.stream().sorted()
                .filter(name -> Files.exists(target.resolve(name))).toList()));
        stdout.flush();
    }

    /**
     * The provider of {@code --executor} when it is not the local one; null for local. Checked before
     * any run: an executor that is not on the class path, or one given a mode it cannot run, is one line.
     */
    private SweepExecutorProvider remoteProvider(ExperimentLoader.Experiment experiment) {
        if (executorName.equals(LOCAL_EXECUTOR)) {
            if (master != null) {
                throw new ParameterException(spec.commandLine(), "--master: only with --executor spark");
            }
            return null;
        }
        SweepExecutorProvider found = null;
        for (SweepExecutorProvider provider : java.util.ServiceLoader.load(SweepExecutorProvider.class)) {
            if (provider.name().equals(executorName)) {
                found = provider;
            }
        }
        if (found == null && executorName.equals("spark")) {
            throw new CommandException("--executor spark: the Spark executor (module spark/, artifact tierlab-spark) is not on"
                    + " the class path; from a checkout, './tierlab build' then './tierlab run FILE --executor spark' adds it"
                    + " (docs/spark.md)");
        }
        if (found == null) {
            throw new ParameterException(spec.commandLine(), "--executor: unknown executor '" + executorName
                    + "' (known: local, spark)");
        }
        if (!experiment.kind().equals("simulation") || !experiment.mode().equals("sim")) {
            // Hybrid and live runs use this machine's memory and NVMe, calibration measures this machine's drive.
            throw new CommandException(experiment.file() + ": --executor " + executorName + " runs sim-mode simulations"
                    + " only; this file is a " + experiment.mode() + "-mode " + experiment.kind() + " (run it without --executor)");
        }
        return found;
    }

    private Path outFolder(ExperimentLoader.Experiment experiment) {
        return output.orDefault(experiment.name());
    }

    /**
     * The name of the copy of the experiment file kept in the output folder ({@code experiment.yaml},
     * or {@code .yml}/{@code .json} like the original): what {@code tierlab plot} reads the charts from.
     */
    static String experimentCopyName(ExperimentLoader.Experiment experiment) {
        String original = experiment.file().getFileName().toString();
        return EXPERIMENT_COPY + original.substring(original.lastIndexOf('.')).toLowerCase(Locale.ROOT);
    }

    /** The experiment file copy in {@code folder}; one line when there is none. */
    static Path experimentCopy(Path folder) {
        for (String extension : List.of(".yaml", ".yml", ".json")) {
            Path copy = folder.resolve(EXPERIMENT_COPY + extension);
            if (Files.isRegularFile(copy)) {
                return copy;
            }
        }
        throw new CommandException(folder + ": no " + EXPERIMENT_COPY + ".yaml in it (written by an older tierlab?);"
                + " name the experiment file with --file");
    }

    static Set<String> ownedFiles(ExperimentLoader.Experiment experiment) {
        Set<String> owned = new LinkedHashSet<>(List.of(ResultFiles.RESULTS, ResultFiles.REQUESTS, ResultFiles.TIMESERIES,
                ResultFiles.SUMMARY, RUN_INFO, REPORT, ResultFiles.ERRORS_LOG, experimentCopyName(experiment)));
        if (experiment.spec().charts() != null) {
            experiment.spec().charts().forEach(chart -> {
                owned.add(chart.file() + ".png");
                owned.add(chart.file() + ".svg");
            });
        }
        owned.addAll(MissRatioReplays.ownedFiles(experiment));
        return owned;
    }

    /** The command that reproduces this output, as typed from the repository root. */
    private String command(ExperimentLoader.Experiment experiment) {
        List<String> words = new ArrayList<>(List.of("./tierlab", "run", file.toString()));
        if (output.given() != null) {
            words.add("--out");
            words.add(output.given().toString());
        }
        return String.join(" ", words);
    }

    /**
     * Deletes this process's scratch L2 files and the scratch folder once it is empty. Files of
     * another tierlab process running the same experiment beside this one (their names carry their
     * process id) are left alone.
     */
    static void deleteOwnScratch(Path folder) {
        if (!Files.isDirectory(folder)) {
            return;
        }
        long pid = ProcessHandle.current().pid();
        try (var files = Files.list(folder)) {
            for (Path path : files.toList()) {
                if (StaleOutputs.scratchFileOwner(path.getFileName().toString()) == pid) {
                    Files.deleteIfExists(path);
                }
            }
            Files.deleteIfExists(folder);
        } catch (IOException ignored) {
            // Not empty (another process's run) or already gone: the next run cleans what a dead process left.
        }
    }

    /**
     * The output folder must be writable and have room for the outputs and for the scratch L2 files
     * of the hybrid and live runs that run at the same time (the largest {@code threads} of them).
     */
    private void checkOutputFolder(ExperimentLoader.Experiment experiment, int threads) {
        checkL2Limits(experiment);
        List<Long> scratchBytes = experiment.points().stream()
                .map(RunPoint::config)
                .filter(config -> !config.mode().equals("sim") && config.l2File() == null)
                // An explicit store.l2LimitGiB stands for the free space the user vouches for.
                .filter(config -> l2LimitGiB(experiment) == null)
                .map(config -> config.store().l2CapacityBytes())
                .sorted(java.util.Comparator.reverseOrder())
                .toList();
        List<Long> concurrent = scratchBytes.subList(0, Math.min(threads, scratchBytes.size()));
        long scratchTotal = concurrent.stream().mapToLong(Long::longValue).sum();
        String why = concurrent.isEmpty() ? "tables, charts and report"
                : concurrent.size() + " scratch L2 file" + (concurrent.size() == 1 ? "" : "s") + " of "
                        + OutputFolderCheck.size(concurrent.getFirst()) + (concurrent.size() == 1 ? "" : " at most")
                        + " for the hybrid/live runs at a time, plus tables, charts and report";
        OutputFolderCheck.check(outFolder(experiment), scratchTotal + OutputFolderCheck.OUTPUT_RESERVE_BYTES, why);
    }

    /**
     * Each hybrid or live run's L2 file must fit where it goes: the free space of
     * its file system, or {@code store.l2LimitGiB}; one line refuses the first that does not,
     * before any run.
     */
    private void checkL2Limits(ExperimentLoader.Experiment experiment) {
        Path scratchFile = scratchFolder(outFolder(experiment), experiment).resolve("l2.bin");
        for (RunPoint point : experiment.points()) {
            RunConfig config = point.config();
            if (config.mode().equals("sim")) {
                continue;
            }
            if (config.l2File() != null) {
                ExperimentFile.StoreSection store = experiment.spec().store();
                boolean overwrite = store != null && Boolean.TRUE.equals(store.l2FileOverwrite());
                String refusedFile = L2FileCheck.refusal(String.valueOf(config.parameters().get("store.l2File")),
                        config.l2File(), overwrite, config.store());
                if (refusedFile != null) {
                    throw new CommandException(experiment.file() + ": " + refusedFile);
                }
            }
            Path l2 = config.l2File() != null ? config.l2File() : scratchFile;
            String refused = HostLimits.l2Refusal(config.mode(), config.store().l2CapacityBytes(),
                    HostLimits.l2(l2, l2LimitGiB(experiment)));
            if (refused != null) {
                throw new CommandException(experiment.file() + ": " + refused);
            }
        }
    }

    /** {@code store.l2LimitGiB} of the file, or null (a host fact, read from the file's store section). */
    private static Double l2LimitGiB(ExperimentLoader.Experiment experiment) {
        return experiment.spec().store() == null ? null : experiment.spec().store().l2LimitGiB();
    }

    /**
     * The L1 budget of the runs: {@code store.l1LimitGiB} when the file sets it, else (null) three
     * quarters of the memory the host has when the first hybrid or live run starts.
     */
    private static L1MemoryBudget l1Budget(ExperimentLoader.Experiment experiment) {
        Double limitGiB = experiment.spec().store() == null ? null : experiment.spec().store().l1LimitGiB();
        return limitGiB == null ? null
                : new L1MemoryBudget((long) (limitGiB * Fields.GIB), "store.l1LimitGiB in the experiment file");
    }

    private static Path scratchFolder(Path target, ExperimentLoader.Experiment experiment) {
        return target.toAbsolutePath().normalize().getParent().resolve("." + experiment.name() + ".scratch");
    }

    /** A progress bar on a terminal; one line per finished run otherwise (logs, CI). */
    private static final class Progress implements SweepExecutor.Progress, AutoCloseable {
        private final ProgressBar bar;
        private final PrintWriter lines;
        private final int total;
        private final AtomicInteger done = new AtomicInteger();

        Progress(ExperimentLoader.Experiment experiment, boolean quiet, PrintWriter stdout) {
            this.total = experiment.points().size();
            boolean terminal = System.console() != null && System.console().isTerminal();
            if (!quiet && terminal) {
                bar = new ProgressBarBuilder().setTaskName(experiment.name()).setInitialMax(total)
                        .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250)
                        .setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
                lines = null;
            } else {
                bar = null;
                lines = quiet ? null : stdout;
            }
        }

        @Override
        public void finished(RunPoint point, RunResult result) {
            int count = done.incrementAndGet();
            if (bar != null) {
                bar.step();
                bar.setExtraMessage(point.label());
            } else if (lines != null) {
                synchronized (lines) {
                    lines.printf(Locale.ROOT, "[%d/%d] %s: %.1f s%s%n", count, total, point.label(), result.wallNs() / 1e9,
                            result.failed() ? " — " + result.failure() : "");
                    lines.flush();
                }
            }
        }

        @Override
        public void close() {
            if (bar != null) {
                bar.close();
            }
        }
    }
}
