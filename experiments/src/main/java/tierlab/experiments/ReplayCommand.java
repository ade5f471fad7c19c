package tierlab.experiments;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tierlab.engine.persist.CallerPaths;
import tierlab.model.policy.Policies;
import tierlab.model.policy.PolicyChoice;
import tierlab.workload.MooncakeTrace;
import tierlab.workload.MooncakeTraceReader;
import tierlab.workload.RequestTrace;
import tierlab.workload.TraceException;
import tierlab.workload.TraceFormats;

/**
 * {@code tierlab replay}: the block-level miss-ratio curve of a Mooncake trace for each policy at each
 * capacity (E4 in docs/experiments.md, cache level only, comparable with other cache simulators): a CSV, a PNG and an SVG chart and
 * a Markdown report, written into the output folder all at once or not at all.
 */
@Command(
        name = "replay",
        mixinStandardHelpOptions = true,
        description = {
            "Block miss-ratio curves of a trace (Mooncake, Qwen-Bailian, Azure, libCacheSim), one per replacement policy.",
            "Replays the trace's block references through each policy at each L1 capacity and writes"
                    + " miss-ratio.csv, miss-ratio.png, miss-ratio.svg and report.md into the output folder,"
                    + " which is replaced whole and never left half-written."})
public final class ReplayCommand implements Callable<Integer> {

    public static final String DEFAULT_TRACE = "data/mooncake_synthetic_trace.jsonl";
    public static final String DEFAULT_OUT = "out/replay";
    public static final String DEFAULT_CAPACITIES = "1000,2000,4000,8000,16000,32000";

    public static final String CSV_FILE = "miss-ratio.csv";
    private static final String CHART_STEM = "miss-ratio";
    public static final String PNG_FILE = CHART_STEM + ".png";
    public static final String SVG_FILE = CHART_STEM + ".svg";
    public static final String REPORT_FILE = "report.md";
    /** Everything the replay writes; an existing output folder may hold these and nothing else. */
    public static final Set<String> OUTPUT_FILES = Set.of(CSV_FILE, PNG_FILE, SVG_FILE, REPORT_FILE);

    public static final String CHART_TITLE = "Mooncake trace: block miss ratio by L1 capacity";

    /** The chart's writer; tests substitute one that fails, as a host without fonts does. */
    static volatile ChartFiles.Writer chartFiles = ChartFiles.FILES;

    @Spec
    private CommandSpec spec;

    @Option(names = "--trace", paramLabel = "FILE", defaultValue = DEFAULT_TRACE,
            description = "The trace file (Mooncake JSONL unless --format says otherwise); a relative path is taken from the folder you call tierlab in"
                    + " [default: ${DEFAULT-VALUE}, in the repository].")
    private Path trace;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "mooncake",
            description = "The trace's format: ${COMPLETION-CANDIDATES} (docs/traces.md) [default: ${DEFAULT-VALUE}].",
            completionCandidates = FormatNames.class)
    private String format;

    /** The registered trace formats, for the help text. */
    static final class FormatNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return TraceFormats.FORMATS.names().iterator();
        }
    }

    @Option(names = "--out", paramLabel = "DIR", defaultValue = DEFAULT_OUT,
            description = "Output folder, replaced whole [default: ${DEFAULT-VALUE}].")
    private Path out;

    @Option(names = "--capacities", paramLabel = "BLOCKS", split = ",", defaultValue = DEFAULT_CAPACITIES,
            description = "Comma-separated L1 capacities in blocks, each at least 1 [default: ${DEFAULT-VALUE}].")
    private List<Long> capacities;

    @Option(names = "--policies", paramLabel = "POLICIES", split = ",",
            description = "Comma-separated policies, each NAME or NAME:KNOB=VALUE[:KNOB=VALUE...] to set its knobs"
                    + " (e.g. lru,s3-fifo:smallRatio=0.1:ghostRatio=0.9,2q:kin=0.3); a policy may appear at several"
                    + " settings [default: all, at default knobs: ${COMPLETION-CANDIDATES}].",
            completionCandidates = PolicyNames.class)
    private List<String> policies;

    /** The registered policy names, for the help text. */
    static final class PolicyNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Policies.names().iterator();
        }
    }

    @Override
    public Integer call() {
        // Typed paths are the caller's; the defaults name files in the repository, where the launcher runs.
        if (spec.commandLine().getParseResult().hasMatchedOption("--trace")) {
            trace = CallerPaths.resolve(trace);
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--out")) {
            out = CallerPaths.resolve(out);
        }
        if (!TraceFormats.FORMATS.contains(format)) {
            throw new ParameterException(spec.commandLine(), TraceFormats.FORMATS.unknown("--format", format));
        }
        List<Long> capacityBlocks = validatedCapacities();
        List<String> policyNames = validatedPolicies();
        return replayAndWrite(capacityBlocks, policyNames);
    }

    /** The replays and the output folder, once this process holds the folder. */
    private int replayAndWrite(List<Long> capacityBlocks, List<String> policyNames) {
        // Refuse a bad --out before the replays rather than after them.
        AtomicOutputDirectory.checkReplaceable(out, OUTPUT_FILES);

        RequestTrace read;
        MissRatioCurves curves;
        double replaySeconds;
        try {
            // The Mooncake path is the one it always was (MooncakeTraceReader, the same sweep), so its output is unchanged.
            MooncakeTrace mooncake = format.equals("mooncake") ? MooncakeTraceReader.read(trace) : null;
            read = mooncake != null ? RequestTrace.of(mooncake) : TraceFormats.FORMATS.get("--format", format).read(trace);
            PrintWriter stderr = spec.commandLine().getErr();
            read.warnings().forEach(line -> stderr.println("tierlab: warning: " + line));
            stderr.flush();
            long startNs = System.nanoTime();
            curves = mooncake != null ? MissRatioSweep.run(mooncake, policyNames, capacityBlocks)
                    : MissRatioSweep.run(read.blockRequests(), policyNames, capacityBlocks);
            replaySeconds = (System.nanoTime() - startNs) / 1e9;
        } catch (TraceException e) {
            // The trace reader lives in sim/ and cannot know this module's CommandException; its
            // message already names the file (and line), so it is shown to the user as it is.
            throw new CommandException(e.getMessage(), e);
        }

        String report = DemoReport.markdown(curves, read, typedCommand(), fullCommand(capacityBlocks),
                PNG_FILE, CSV_FILE, SVG_FILE);
        String chartTitle = format.equals("mooncake") ? CHART_TITLE
                : DemoReport.formatTitle(format) + " trace: block miss ratio by L1 capacity";
        String[] chartFailure = new String[1];
        AtomicOutputDirectory.write(out, OUTPUT_FILES, folder -> {
            MissRatioTable.writeCsv(curves, folder.resolve(CSV_FILE));
            // The chart last and on its own: a host that cannot draw it (no fonts: "Fontconfig head is
            // null") still gets the table and the report, which says what is missing: GPU hosts often have no fonts.
            String text = report;
            chartFailure[0] = ChartFiles.tryWrite(chartFiles, folder, CHART_STEM, () -> MissRatioChart.of(curves, chartTitle, read.blockTokens()));
            if (chartFailure[0] != null) {
                text += "\n**The chart could not be drawn** (" + chartFailure[0] + "); `" + CSV_FILE + "` holds its data.\n";
            }
            writeText(folder.resolve(REPORT_FILE), text);
        });

        printSummary(spec.commandLine().getOut(), read, curves, replaySeconds, chartFailure[0] == null);
        if (chartFailure[0] != null) {
            PrintWriter stderr = spec.commandLine().getErr();
            stderr.println("tierlab: chart " + PNG_FILE + " not drawn: " + chartFailure[0] + "; the table and the report"
                    + " were written");
            stderr.flush();
            return 1;
        }
        return 0;
    }

    private List<Long> validatedCapacities() {
        TreeSet<Long> sorted = new TreeSet<>();
        for (Long capacity : capacities) {
            if (capacity == null || capacity < 1) {
                throw new ParameterException(spec.commandLine(),
                        "--capacities: every capacity must be a whole number of blocks >= 1, got " + capacity);
            }
            sorted.add(capacity);
        }
        if (sorted.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--capacities: at least one capacity is needed");
        }
        return List.copyOf(sorted);
    }

    /** The chosen policies' labels (a name, or a name with knobs), duplicates dropped, in the order given. */
    private List<String> validatedPolicies() {
        if (policies == null || policies.isEmpty()) {
            return Policies.names();
        }
        List<String> chosen = new ArrayList<>();
        for (String policy : policies) {
            String label;
            try {
                label = PolicyChoice.parse(policy).label();
            } catch (IllegalArgumentException badChoice) {
                throw new ParameterException(spec.commandLine(), "--policies: " + badChoice.getMessage());
            }
            if (!chosen.contains(label)) {
                chosen.add(label);
            }
        }
        return chosen;
    }

    private void printSummary(PrintWriter stdout, RequestTrace read, MissRatioCurves curves, double replaySeconds,
                              boolean chartWritten) {
        stdout.printf(Locale.ROOT, "trace %s: %,d requests, %,d block references, %,d distinct blocks%n",
                read.file(), read.requests().size(), curves.references(), curves.distinctBlocks());
        stdout.printf(Locale.ROOT, "%,d replays (%d policies x %d capacities) in %.1f s%n%n",
                curves.points().size(), curves.policies().size(), curves.capacities().size(), replaySeconds);
        stdout.println("hit ratio by L1 capacity (blocks):");
        // Labels with knobs can be long; the first column fits the longest.
        String labelFormat = "%-" + Math.max(16, curves.policies().stream().mapToInt(String::length).max().orElse(0) + 2) + "s";
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, labelFormat, "policy"));
        for (long capacity : curves.capacities()) {
            header.append(String.format(Locale.ROOT, "%9s", DemoReport.count(capacity)));
        }
        stdout.println(header);
        for (String policy : curves.policies()) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, labelFormat, policy));
            for (long capacity : curves.capacities()) {
                row.append(String.format(Locale.ROOT, "%9s", DemoReport.percent(curves.point(policy, capacity).hitRatio())));
            }
            stdout.println(row);
        }
        stdout.printf(Locale.ROOT, labelFormat + "%9s (any capacity >= %,d blocks)%n%n", "infinite cache",
                DemoReport.percent(curves.infiniteHitRatio()), curves.distinctBlocks());
        for (String observation : DemoReport.observations(curves)) {
            stdout.println(observation.replace("`", ""));
        }
        stdout.println();
        stdout.println("wrote:");
        for (String name : chartWritten ? List.of(CSV_FILE, PNG_FILE, SVG_FILE, REPORT_FILE) : List.of(CSV_FILE, REPORT_FILE)) {
            stdout.println("  " + out.resolve(name));
        }
        stdout.flush();
    }

    /** The command as it was typed, assuming the launcher ran it. */
    private String typedCommand() {
        List<String> words = new ArrayList<>(List.of("./tierlab"));
        List<String> original = spec.commandLine().getParseResult().originalArgs();
        words.addAll(original.isEmpty() || !original.getFirst().equals(spec.name()) ? List.of(spec.name()) : List.of());
        original.forEach(arg -> words.add(shellQuote(arg)));
        return String.join(" ", words);
    }

    /** The same run with every setting spelled out, so defaults changing later cannot change its meaning. */
    private String fullCommand(List<Long> capacityBlocks) {
        return String.join(" ", "./tierlab", spec.name(),
                "--trace", shellQuote(trace.toString()),
                "--format", format,
                "--out", shellQuote(out.toString()),
                "--capacities", String.join(",", capacityBlocks.stream().map(String::valueOf).toList()),
                "--policies", String.join(",", validatedPolicies()));
    }

    private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    static String shellQuote(String word) {
        return SHELL_SAFE.matcher(word).matches() ? word : "'" + word.replace("'", "'\\''") + "'";
    }

    private static void writeText(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
