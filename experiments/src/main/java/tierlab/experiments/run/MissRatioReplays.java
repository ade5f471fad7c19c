package tierlab.experiments.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tierlab.experiments.ChartFiles;
import tierlab.experiments.CommandException;
import tierlab.experiments.DemoReport;
import tierlab.experiments.MissRatioChart;
import tierlab.experiments.MissRatioCurves;
import tierlab.experiments.MissRatioSweep;
import tierlab.experiments.MissRatioTable;
import tierlab.model.geometry.BlockKey;
import tierlab.model.policy.PolicyChoice;
import tierlab.model.request.RequestSpec;
import tierlab.workload.MooncakeTrace;
import tierlab.workload.MooncakeTraceReader;
import tierlab.workload.RequestTrace;
import tierlab.workload.TraceException;

/**
 * An experiment's {@code missRatioCurve}: the block-level replay of its workload through each policy
 * at each capacity. A trace is replayed at its own blocks (Mooncake 512 tokens, Qwen 16, Azure the
 * synthesis's); a generated workload as the first run's block chains.
 *
 * <p>When the grid sweeps several traces (union grids over {@code workload.type} and
 * {@code workload.trace}), each trace gets its curves: {@code miss-ratio.csv} then starts with a
 * {@code trace} column, each trace has its chart {@code miss-ratio-NAME.png} and {@code .svg}, and
 * the report section has one part per trace. With one trace, or a generated workload, the files are
 * {@code miss-ratio.csv}, {@code .png}, {@code .svg} as they always were.
 */
final class MissRatioReplays {

    /**
     * The curves of one trace.
     *
     * @param name        the trace's file name (with its synthesis settings when one file appears with several)
     * @param chartStem   the chart's file name without extension
     * @param curves      every policy at every capacity
     * @param blockTokens tokens per replayed block; 0 for a trace of cache objects
     */
    record Replay(String name, String chartStem, MissRatioCurves curves, int blockTokens) {}

    private static final List<Long> DEFAULT_CAPACITIES = List.of(1000L, 2000L, 4000L, 8000L, 16000L, 32000L);

    private MissRatioReplays() {
    }

    /** One point of each distinct trace in grid order; one point in all when the workload is generated. */
    private static Map<String, RunConfig> tracesOf(ExperimentLoader.Experiment experiment) {
        Map<String, RunConfig> traces = new LinkedHashMap<>();
        for (RunPoint point : experiment.points()) {
            String key = switch (point.config().workload()) {
                case WorkloadPlan.Mooncake plan -> "mooncake " + plan.trace();
                case WorkloadPlan.Trace plan -> plan.format() + " " + plan.trace() + " " + plan.synthesis();
                default -> "";
            };
            traces.putIfAbsent(key, point.config());
        }
        return traces;
    }

    /** The files the curves take in the output folder (for the owned-files list, before any run). */
    static List<String> ownedFiles(ExperimentLoader.Experiment experiment) {
        if (experiment.spec().missRatioCurve() == null) {
            return List.of();
        }
        List<String> files = new ArrayList<>(List.of(RunCommand.MISS_RATIO_CSV, Plotter.MISS_RATIO_SECTION));
        for (String stem : chartStems(experiment)) {
            files.add(stem + ".png");
            files.add(stem + ".svg");
        }
        return files;
    }

    private static List<String> chartStems(ExperimentLoader.Experiment experiment) {
        Map<String, RunConfig> traces = tracesOf(experiment);
        if (traces.size() <= 1) {
            return List.of("miss-ratio");
        }
        List<String> stems = new ArrayList<>();
        for (RunConfig config : traces.values()) {
            String stem = "miss-ratio-" + traceFile(config).getFileName().toString().replaceFirst("\\.[^.]*$", "")
                    .toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "");
            String unique = stem;
            for (int n = 2; stems.contains(unique); n++) {
                unique = stem + "-" + n;
            }
            stems.add(unique);
        }
        return stems;
    }

    private static Path traceFile(RunConfig config) {
        return switch (config.workload()) {
            case WorkloadPlan.Mooncake plan -> plan.trace();
            case WorkloadPlan.Trace plan -> plan.trace();
            default -> throw new IllegalStateException("only trace workloads are told apart");
        };
    }

    /** The curves of every trace of the grid (none without a missRatioCurve section). */
    static List<Replay> compute(ExperimentLoader.Experiment experiment, RunExecutor executor) {
        ExperimentFile.MissRatioSection section = experiment.spec().missRatioCurve();
        if (section == null || experiment.points().isEmpty()) {
            return List.of();
        }
        List<String> policies = policies(experiment.file(), section.policies());
        List<Long> capacities = section.capacitiesBlocks() == null ? DEFAULT_CAPACITIES : section.capacitiesBlocks();
        if (capacities.isEmpty() || capacities.stream().anyMatch(c -> c == null || c < 1)) {
            throw new CommandException(experiment.file() + ": missRatioCurve.capacitiesBlocks: whole numbers >= 1");
        }
        List<Long> sorted = capacities.stream().sorted().distinct().toList();
        Map<String, RunConfig> traces = tracesOf(experiment);
        List<String> stems = chartStems(experiment);
        List<Replay> replays = new ArrayList<>();
        int index = 0;
        for (RunConfig config : traces.values()) {
            String name = traces.size() <= 1 ? "" : traceFile(config).getFileName().toString();
            replays.add(replay(config, executor, policies, sorted, name, stems.get(index++)));
        }
        return List.copyOf(replays);
    }

    private static Replay replay(RunConfig config, RunExecutor executor, List<String> policies, List<Long> capacities,
                                 String name, String stem) {
        try {
            if (config.workload() instanceof WorkloadPlan.Mooncake mooncake) {
                MooncakeTrace trace = MooncakeTraceReader.read(mooncake.trace());
                return new Replay(name, stem, MissRatioSweep.run(trace, policies, capacities), 512);
            }
            if (config.workload() instanceof WorkloadPlan.Trace plan) {
                RequestTrace trace = executor.trace(plan);
                return new Replay(name, stem, MissRatioSweep.run(trace.blockRequests(), policies, capacities),
                        trace.blockTokens());
            }
            // Other workloads: the chains of every pass in arrival order, each block key a dense id.
            Map<BlockKey, Long> ids = new HashMap<>();
            List<long[]> requests = new ArrayList<>();
            for (List<RequestSpec> pass : executor.passes(config).requests()) {
                pass.stream().sorted(java.util.Comparator.comparingLong(RequestSpec::arrivalNs)
                        .thenComparingLong(RequestSpec::requestId)).forEach(request -> requests.add(
                        request.chain().stream().mapToLong(key -> ids.computeIfAbsent(key, k -> (long) ids.size())).toArray()));
            }
            return new Replay(name, stem, MissRatioSweep.run(requests, policies, capacities),
                    config.workload().geometry().blockTokens());
        } catch (TraceException e) {
            throw new CommandException(e.getMessage(), e);
        }
    }

    /**
     * The curves' policies: every registered one when the file names none; otherwise each entry a
     * name or a name with knobs ({@code s3-fifo:ghostRatio=0.9}, the syntax of {@code tierlab replay
     * --policies}), checked against the registry, duplicates (by label) dropped.
     */
    static List<String> policies(Path file, List<String> named) {
        if (named == null) {
            return tierlab.model.policy.Policies.names();
        }
        List<String> labels = new ArrayList<>();
        for (String policy : named) {
            String label;
            try {
                label = PolicyChoice.parse(policy).label();
            } catch (IllegalArgumentException badChoice) {
                throw new CommandException(file + ": missRatioCurve.policies: " + badChoice.getMessage());
            }
            if (!labels.contains(label)) {
                labels.add(label);
            }
        }
        if (labels.isEmpty()) {
            throw new CommandException(file + ": missRatioCurve.policies: at least one policy is needed");
        }
        return labels;
    }

    /** Writes the table, the charts and the report section; a chart that cannot be drawn is a line in {@code chartFailures}. */
    static void write(List<Replay> replays, Path folder, ChartFiles.Writer chartWriter, List<String> chartFailures)
            throws IOException {
        if (replays.isEmpty()) {
            return;
        }
        boolean several = replays.size() > 1;
        Table table = null;
        StringBuilder section = new StringBuilder();
        for (Replay replay : replays) {
            Table own = MissRatioTable.of(replay.curves());
            if (several) {
                StringColumn trace = StringColumn.create("trace");
                for (int row = 0; row < own.rowCount(); row++) {
                    trace.append(replay.name());
                }
                own.insertColumn(0, trace);
            }
            table = table == null ? own : table.append(own);
            String part = section(replay, several);
            String title = "Block miss ratio by L1 capacity (block-level replay)" + (several ? ": " + replay.name() : "");
            String cause = ChartFiles.tryWrite(chartWriter, folder, replay.chartStem(),
                    () -> MissRatioChart.of(replay.curves(), title, replay.blockTokens()));
            if (cause != null) {
                chartFailures.add("chart " + replay.chartStem() + " (block miss ratio by L1 capacity) not drawn: " + cause);
                part += "\n**The miss-ratio chart could not be drawn** (" + cause + "); `miss-ratio.csv` holds its data.\n";
            }
            section.append(part);
        }
        tierlab.experiments.CsvFiles.write(table, folder.resolve(RunCommand.MISS_RATIO_CSV));
        Files.writeString(folder.resolve(Plotter.MISS_RATIO_SECTION), section.toString(), StandardCharsets.UTF_8);
    }

    private static String section(Replay replay, boolean several) {
        MissRatioCurves curves = replay.curves();
        StringBuilder md = new StringBuilder(several ? "## Block-level miss-ratio curves: " + replay.name() + "\n\n"
                : "## Block-level miss-ratio curves\n\n");
        String blocks = replay.blockTokens() > 0 ? replay.blockTokens() + "-token blocks" : "cache objects";
        md.append(String.format(Locale.ROOT, "The workload's %,d block references (%,d distinct %s) replayed"
                        + " through each policy at each capacity, as other cache simulators do; `belady` is the offline"
                        + " optimum. The simulated runs add timing, leases, promotions and save admission.%n%n",
                curves.references(), curves.distinctBlocks(), blocks));
        md.append("![block miss ratio by L1 capacity](").append(replay.chartStem()).append(".png)\n\nMiss ratio by capacity (blocks):\n\n");
        DemoReport.appendPivot(md, curves, false);
        md.append("\nShare of the infinite cache's hits captured:\n\n");
        DemoReport.appendPivot(md, curves, true);
        md.append('\n');
        for (String observation : DemoReport.observations(curves)) {
            md.append(observation).append('\n');
        }
        return md.toString();
    }
}
