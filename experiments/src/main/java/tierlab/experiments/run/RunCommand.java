package tierlab.experiments.run;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.knowm.xchart.XYChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tierlab.experiments.AtomicOutputDirectory;
import tierlab.engine.persist.CallerPaths;
import tierlab.experiments.ExitCleanup;
import tierlab.experiments.OutputFolderCheck;
import tierlab.experiments.StaleOutputs;
import tierlab.experiments.CommandException;
import tierlab.experiments.DemoReport;
import tierlab.experiments.MissRatioChart;
import tierlab.experiments.MissRatioCurves;
import tierlab.experiments.MissRatioSweep;
import tierlab.experiments.MissRatioTable;
import tierlab.model.geometry.BlockKey;
import tierlab.model.sched.RequestSpec;
import tierlab.sim.workload.MooncakeTrace;
import tierlab.sim.workload.MooncakeTraceReader;
import tierlab.sim.workload.TraceException;

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
    static volatile ChartRenderer.ChartWriter chartWriter = ChartRenderer.FILES;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The experiment file (.yaml, .yml or .json).")
    private Path file;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Output folder, replaced whole [default: out/NAME, NAME from the file].")
    private Path out;

    @Option(names = {"-j", "--jobs"}, paramLabel = "N",
            description = "Runs at a time [default: the number of cores].")
    private Integer jobs;

    @Option(names = {"-q", "--quiet"}, description = "No progress output; only the summary at the end.")
    private boolean quiet;

    @Override
    public Integer call() {
        int threads = jobs == null ? Runtime.getRuntime().availableProcessors() : jobs;
        if (threads < 1) {
            throw new ParameterException(spec.commandLine(), "--jobs: must be >= 1, was " + threads);
        }
        file = CallerPaths.resolve(file);
        out = CallerPaths.resolve(out);
        ExperimentLoader.Experiment experiment = ExperimentLoader.load(file);
        // Before any run: what killed runs left beside the output, then whether the output can be written at all.
        Path parent = outFolder(experiment).toAbsolutePath().normalize().getParent();
        if (parent != null) {
            PrintWriter stderr = spec.commandLine().getErr();
            StaleOutputs.clean(parent).forEach(line -> stderr.println("tierlab: " + line));
            stderr.flush();
        }
        checkOutputFolder(experiment, threads);
        if (experiment.kind().equals("calibration")) {
            return CalibrationRun.run(experiment, outFolder(experiment), command(experiment), quiet, spec.commandLine().getOut());
        }
        Path target = outFolder(experiment);
        Set<String> owned = ownedFiles(experiment);
        // A bad --out fails now, not after the runs.
        AtomicOutputDirectory.checkReplaceable(target, owned);
        PrintWriter stdout = spec.commandLine().getOut();

        Instant startedAt = Instant.now();
        long startNs = System.nanoTime();
        Path scratch = scratchFolder(target, experiment);
        RunExecutor executor = new RunExecutor(scratch, l1Budget(experiment));
        Replay replay = missRatioCurves(experiment, executor);
        MissRatioCurves curves = replay == null ? null : replay.curves();
        List<RunResult> results;
        // Closed on every path that runs code: normally here, by the shutdown hook on SIGINT and SIGTERM.
        try (Progress progress = new Progress(experiment, quiet, stdout);
             ExitCleanup.Registration scratchFiles = ExitCleanup.register(() -> deleteOwnScratch(scratch))) {
            results = new LocalSweepExecutor(threads).run(experiment.points(), executor::run, progress);
        }
        double wallSeconds = (System.nanoTime() - startNs) / 1e9;

        RunInfo info = RunInfo.of(experiment, results, command(experiment), wallSeconds, threads, startedAt);
        String runJson = ResultFiles.json(info.jsonWithFacts(experiment, results, executor.factsByRun()));
        ChartSpecs specs = ChartSpecs.of(experiment.file(), ChartSpecs.textOf(experiment.file()), experiment.spec());
        List<String> chartFailures = new ArrayList<>();
        Plotter.Plotted[] plotted = new Plotter.Plotted[1];
        AtomicOutputDirectory.write(target, owned, folder -> {
            // The tables first: everything below is drawn from them, and nothing below can cost them.
            ResultFiles.writeCsv(ResultFiles.results(experiment, results), folder.resolve(ResultFiles.RESULTS));
            ResultFiles.writeCsv(ResultFiles.requests(results), folder.resolve(ResultFiles.REQUESTS));
            ResultFiles.writeCsv(ResultFiles.timeseries(results), folder.resolve(ResultFiles.TIMESERIES));
            Files.copy(experiment.file(), folder.resolve(experimentCopyName(experiment)));
            Files.writeString(folder.resolve(RUN_INFO), runJson, StandardCharsets.UTF_8);
            Files.writeString(folder.resolve(ResultFiles.SUMMARY),
                    ResultFiles.json(ResultFiles.summary(experiment, results, List.of())), StandardCharsets.UTF_8);
            if (curves != null) {
                MissRatioTable.writeCsv(curves, folder.resolve(MISS_RATIO_CSV));
                String section = missRatioSection(curves, replay.blockTokens());
                try {
                    XYChart chart = MissRatioChart.of(curves, "Block miss ratio by L1 capacity (block-level replay)",
                            replay.blockTokens());
                    chartWriter.write(chart, folder.resolve(MISS_RATIO_PNG), folder.resolve(MISS_RATIO_SVG));
                } catch (VirtualMachineError e) {
                    throw e;
                } catch (Throwable e) {
                    String cause = CommandException.withRootCause(e);
                    chartFailures.add("chart miss-ratio (block miss ratio by L1 capacity) not drawn: " + cause);
                    section += "\n**The miss-ratio chart could not be drawn** (" + cause + "); `miss-ratio.csv` holds its data.\n";
                }
                Files.writeString(folder.resolve(Plotter.MISS_RATIO_SECTION), section, StandardCharsets.UTF_8);
            }
            RunTables tables = RunTables.read(folder);
            plotted[0] = Plotter.render(folder, specs, tables, specs.problems(tables), chartWriter);
            // summary.json again, now with the reference rows as the report computed them from the tables.
            Files.writeString(folder.resolve(ResultFiles.SUMMARY),
                    ResultFiles.json(ResultFiles.summary(experiment, results, plotted[0].reference())), StandardCharsets.UTF_8);
        });
        List<ReportWriter.ReferenceValue> reference = plotted[0].reference();
        chartFailures.addAll(Plotter.failureLines(plotted[0].charts()));
        PrintWriter stderr = spec.commandLine().getErr();
        chartFailures.forEach(line -> stderr.println("tierlab: " + line));
        stderr.flush();

        long failed = results.stream().filter(RunResult::failed).count();
        long unexpected = results.stream().filter(r -> r.failed() && r.point().config().store().knownBugs().isEmpty()).count();
        stdout.printf(Locale.ROOT, "%s: %d run%s in %.1f s (%d thread%s)%s%n", experiment.name(), results.size(),
                results.size() == 1 ? "" : "s", wallSeconds, threads, threads == 1 ? "" : "s",
                failed == 0 ? "" : "; " + failed + " did not complete cleanly (see report.md)");
        for (ReportWriter.ReferenceValue value : reference) {
            if (value.row().metric() != null) {
                stdout.printf(Locale.ROOT, "  %-44s reference %-16s tierlab %s%n", value.row().label(),
                        value.row().reference(), ReportWriter.number(value.value()));
            }
        }
        // Only what is there: a chart that failed (no fonts) is not among the files written.
        stdout.println("wrote " + target + "/: " + String.join(", ", owned.stream().sorted()
                .filter(name -> Files.exists(target.resolve(name))).toList()));
        stdout.flush();
        if (unexpected == 0 && !chartFailures.isEmpty()) {
            throw new CommandException(chartFailures.size() + " chart" + (chartFailures.size() == 1 ? "" : "s")
                    + " could not be drawn (see above and " + target.resolve(REPORT) + "); every table was written, and"
                    + " './tierlab plot " + target + "' draws them once the cause is fixed");
        }
        if (unexpected > 0) {
            // The outputs are complete and say what broke; the exit code tells a script that something did.
            throw new CommandException(unexpected + " run" + (unexpected == 1 ? "" : "s")
                    + " with every race fix on did not complete cleanly; see " + target.resolve(REPORT));
        }
        return 0;
    }

    private Path outFolder(ExperimentLoader.Experiment experiment) {
        return out != null ? out : Path.of("out", experiment.name());
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
                ResultFiles.SUMMARY, RUN_INFO, REPORT, experimentCopyName(experiment)));
        if (experiment.spec().charts() != null) {
            experiment.spec().charts().forEach(chart -> {
                owned.add(chart.file() + ".png");
                owned.add(chart.file() + ".svg");
            });
        }
        if (experiment.spec().missRatioCurve() != null) {
            owned.addAll(List.of(MISS_RATIO_CSV, MISS_RATIO_PNG, MISS_RATIO_SVG, Plotter.MISS_RATIO_SECTION));
        }
        return owned;
    }

    /** The command that reproduces this output, as typed from the repository root. */
    private String command(ExperimentLoader.Experiment experiment) {
        List<String> words = new ArrayList<>(List.of("./tierlab", "run", file.toString()));
        if (out != null) {
            words.add("--out");
            words.add(out.toString());
        }
        return String.join(" ", words);
    }

    /** Block-level replay of the first run's requests; for a mooncake trace, its own 512-token blocks. */
    private record Replay(MissRatioCurves curves, int blockTokens) {}

    private static Replay missRatioCurves(ExperimentLoader.Experiment experiment, RunExecutor executor) {
        ExperimentFile.MissRatioSection section = experiment.spec().missRatioCurve();
        if (section == null || experiment.points().isEmpty()) {
            return null;
        }
        List<String> policies = section.policies() == null ? tierlab.model.policy.Policies.names() : section.policies();
        for (String policy : policies) {
            if (!tierlab.model.policy.Policies.names().contains(policy)) {
                throw new CommandException(experiment.file() + ": missRatioCurve.policies: unknown policy '" + policy
                        + "' (known: " + String.join(", ", tierlab.model.policy.Policies.names()) + ")");
            }
        }
        List<Long> capacities = section.capacitiesBlocks() == null ? List.of(1000L, 2000L, 4000L, 8000L, 16000L, 32000L)
                : section.capacitiesBlocks();
        if (capacities.isEmpty() || capacities.stream().anyMatch(c -> c == null || c < 1)) {
            throw new CommandException(experiment.file() + ": missRatioCurve.capacitiesBlocks: whole numbers >= 1");
        }
        capacities = capacities.stream().sorted().distinct().toList();
        RunConfig first = experiment.points().getFirst().config();
        try {
            if (first.workload() instanceof WorkloadPlan.Mooncake mooncake) {
                MooncakeTrace trace = MooncakeTraceReader.read(mooncake.trace());
                return new Replay(MissRatioSweep.run(trace, policies, capacities), 512);
            }
            // Other workloads: the chains of every pass in arrival order, each block key a dense id.
            Map<BlockKey, Long> ids = new HashMap<>();
            List<long[]> requests = new ArrayList<>();
            for (List<RequestSpec> pass : executor.passes(first).requests()) {
                pass.stream().sorted(java.util.Comparator.comparingLong(RequestSpec::arrivalNs)
                        .thenComparingLong(RequestSpec::requestId)).forEach(request -> requests.add(
                        request.chain().stream().mapToLong(key -> ids.computeIfAbsent(key, k -> (long) ids.size())).toArray()));
            }
            return new Replay(MissRatioSweep.run(requests, policies, capacities), first.workload().geometry().blockTokens());
        } catch (TraceException e) {
            throw new CommandException(e.getMessage(), e);
        }
    }

    private static String missRatioSection(MissRatioCurves curves, int blockTokens) {
        StringBuilder md = new StringBuilder("## Block-level miss-ratio curves\n\n");
        md.append(String.format(Locale.ROOT, "The workload's %,d block references (%,d distinct %d-token blocks) replayed"
                        + " through each policy at each capacity, as other cache simulators do; `belady` is the offline"
                        + " optimum. The simulated runs add timing, leases, promotions and save admission.%n%n",
                curves.references(), curves.distinctBlocks(), blockTokens));
        md.append("![block miss ratio by L1 capacity](").append(MISS_RATIO_PNG).append(")\n\nMiss ratio by capacity (blocks):\n\n");
        DemoReport.appendPivot(md, curves, false);
        md.append("\nShare of the infinite cache's hits captured:\n\n");
        DemoReport.appendPivot(md, curves, true);
        md.append('\n');
        for (String observation : DemoReport.observations(curves)) {
            md.append(observation).append('\n');
        }
        return md.toString();
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
     * Each hybrid or live run's L2 file must fit where it goes (issue 14 point 7): the free space of
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
