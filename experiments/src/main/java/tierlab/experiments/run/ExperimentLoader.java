package tierlab.experiments.run;

import static tierlab.experiments.run.Fields.nanos;
import static tierlab.experiments.run.Fields.or;
import static tierlab.experiments.run.Fields.positive;
import static tierlab.experiments.run.Fields.withField;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tierlab.experiments.CommandException;
import tierlab.model.Registry;
import tierlab.model.geometry.Geometry;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreSettings;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.fault.FaultSettings;

/**
 * Reads an experiment file, expands its sweep grid and resolves every run. Everything that can be
 * wrong with a file is found here, before any run starts, and reported as one
 * {@link CommandException} that names the file, the line where the parser knows it, and the field.
 */
public final class ExperimentLoader {

    public static final Registry<String> KINDS = Registry.<String>of("kind")
            .add("simulation", "simulation")
            .add("calibration", "calibration")
            .build();
    /** live.gpu's values (RunConfig.GPU_*). */
    static final Registry<String> GPUS = Registry.<String>of("live.gpu")
            .add(RunConfig.GPU_AUTO, RunConfig.GPU_AUTO)
            .add(RunConfig.GPU_CUDA, RunConfig.GPU_CUDA)
            .add(RunConfig.GPU_HOST, RunConfig.GPU_HOST)
            .build();
    /** A GPU KV cache of 384k tokens (about 56 GiB of Qwen3-8B KV on an 80 GB H100), in blocks of the geometry. */
    public static final long DEFAULT_GPU_KV_TOKENS = 384_000;
    /**
     * The most runs (sweep points × seeds) a file may ask for unless it raises {@code maxRuns}: far above
     * the catalogue's largest (a few hundred), far below a grid that would take hours to expand and days to run.
     */
    public static final long DEFAULT_MAX_RUNS = 10_000;
    /** The shortest period of the time series: a shorter one samples every event anyway, and below 1 ns it rounds to none. */
    static final double MIN_SAMPLE_INTERVAL_MS = 0.001;
    /** The longest period: 10^12 ms keeps the next sample's time in nanoseconds far from overflow. */
    static final double MAX_SAMPLE_INTERVAL_MS = 1e12;
    /** Names of experiments and chart files: they become folder and file names. */
    static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

    /** A loaded experiment: the file, its grid, and the resolved runs in grid order. */
    public record Experiment(Path file, String fileSha256, ExperimentFile spec, String name, String kind,
                             String mode, List<String> axes, List<RunPoint> points, List<String> metricNames) {
        public List<String> passes() {
            return points.isEmpty() ? List.of() : points.getFirst().config().workload().passes();
        }
    }

    private ExperimentLoader() {
    }

    public static Experiment load(Path file) {
        byte[] bytes = read(file);
        // Bind straight from the text first: Jackson then knows the line of every bad field.
        Source source = new Source(file, new String(bytes, java.nio.charset.StandardCharsets.UTF_8), ExperimentParsing.mapperFor(file));
        ExperimentFile spec = source.bind(null, () -> source.mapper().readValue(bytes, ExperimentFile.class));
        if (spec == null) {
            throw new CommandException(file + ": the experiment file is empty");
        }
        source.checkSections(null, spec);
        JsonNode tree = source.bind(null, () -> source.mapper().readTree(bytes));
        if (!(tree instanceof ObjectNode root)) {
            throw new CommandException(file + ": an experiment file is a mapping of fields (name, workload, store, ...)");
        }
        String name = name(file, spec);
        String kind = kind(file, spec);
        List<Long> seeds = seeds(file, spec);
        List<Map<String, List<JsonNode>>> grids = SweepGrid.grids(file, spec.sweep());
        List<String> axes = axes(file, grids);
        checkRunCount(file, spec, grids, seeds.size());
        // A calibration file's sweep cells are bound and checked too, but it has no runs to resolve.
        List<RunPoint> points = points(source, root, spec, grids, axes, kind.equals("simulation") ? seeds : List.of());
        List<String> passes = checkPoints(file, points);
        String mode = points.isEmpty() ? "sim" : points.getLast().config().mode();
        Experiment experiment = new Experiment(file, sha256(bytes), spec, name, kind, mode, List.copyOf(axes), List.copyOf(points),
                Metrics.names(passes));
        if (kind.equals("simulation")) {
            if (spec.workload() == null) {
                throw new CommandException(file + ": workload: a simulation needs a workload section");
            }
            ChartChecks.checkCharts(experiment);
            ChartChecks.checkReference(experiment, source.text());
        } else if (spec.reference() != null && spec.reference().checks() != null) {
            // A calibration's report is its fit's, drawn from calibration-points.csv: no results.csv to check against.
            throw new CommandException(file + ": reference.checks: only a simulation's report evaluates checks (this file's"
                    + " kind is " + kind + ")");
        }
        return experiment;
    }

    /** The file's text, its path, and the strict mapper for its format: what every binding step needs for its messages. */
    private record Source(Path file, String text, ObjectMapper mapper) {
        <T> T bind(String where, ExperimentParsing.Parse<T> parse) {
            return ExperimentParsing.bind(file, text, where, parse);
        }

        /** The checks binding cannot make: policy knobs by the policy's declared names, the serving engine's name. */
        void checkSections(String where, ExperimentFile spec) {
            StoreSections.checkKnobNames(file, text, where, spec);
            SchedulerSections.checkEngine(file, text, where, spec);
        }
    }

    private static byte[] read(Path file) {
        byte[] bytes;
        try {
            // By size first: a 50 MB file of one long string held the YAML reader for minutes.
            long size = Files.size(file);
            if (size > SizeLimits.MAX_EXPERIMENT_FILE_BYTES) {
                throw new CommandException(String.format(java.util.Locale.ROOT, "%s: the experiment file is %,d bytes;"
                        + " an experiment file is at most %,d bytes (1 MiB)", file, size, SizeLimits.MAX_EXPERIMENT_FILE_BYTES));
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new CommandException(file + ": cannot read the experiment file (" + ExperimentParsing.describeIo(e) + ")", e);
        }
        String binary = tierlab.workload.BinaryContent.describe(bytes);
        if (binary != null) {
            throw new CommandException(file + ": " + binary + "; an experiment file is YAML or JSON text");
        }
        return tierlab.workload.TextFiles.withoutByteOrderMark(bytes);
    }

    private static String name(Path file, ExperimentFile spec) {
        String name = spec.name() != null ? spec.name() : ExperimentParsing.defaultName(file);
        if (!NAME.matcher(name).matches()) {
            throw new CommandException(file + ": name: '" + name + "' must be 1-64 lower-case letters, digits and"
                    + " dashes (it names the output folder out/NAME)");
        }
        return name;
    }

    private static String kind(Path file, ExperimentFile spec) {
        String kind = spec.kind() == null ? "simulation" : spec.kind();
        if (!KINDS.contains(kind)) {
            throw new CommandException(file + ": kind: unknown kind '" + kind + "' (known: " + KINDS.known() + ")");
        }
        return kind;
    }

    private static List<Long> seeds(Path file, ExperimentFile spec) {
        List<Long> seeds = spec.seeds() == null ? List.of(42L) : spec.seeds();
        if (seeds.isEmpty() || seeds.stream().anyMatch(java.util.Objects::isNull)) {
            throw new CommandException(file + ": seeds: give at least one seed, and no empty entries");
        }
        if (new LinkedHashSet<>(seeds).size() != seeds.size()) {
            throw new CommandException(file + ": seeds: " + seeds + " repeats a seed");
        }
        return seeds;
    }

    /** The union of the grids' axes, in the order the file first names them; fields that cannot be swept are refused. */
    private static List<String> axes(Path file, List<Map<String, List<JsonNode>>> grids) {
        List<String> axes = new ArrayList<>();
        for (Map<String, List<JsonNode>> grid : grids) {
            for (Map.Entry<String, List<JsonNode>> entry : grid.entrySet()) {
                String axis = entry.getKey();
                if (entry.getValue().isEmpty()) {
                    throw new CommandException(file + ": sweep." + axis + ": give a list of at least one value");
                }
                if (axis.equals("seeds") || axis.equals("sweep") || axis.equals("name") || axis.startsWith("charts")
                        || axis.startsWith("reference") || axis.equals("mode")) {
                    throw new CommandException(file + ": sweep." + axis + ": this field cannot be swept"
                            + (axis.equals("seeds") ? " (list the seeds in 'seeds' instead)" : ""));
                }
                if (axis.startsWith("device.")) {
                    // device is a name (a preset or a profile file), not a section, so a path into it has nothing
                    // to write into; without this the binder's type error is all the user would see.
                    throw new CommandException(file + ": sweep." + axis + ": a device profile's fields are not swept by"
                            + " path (device names a preset or a profile file); write one profile file per value and"
                            + " sweep device over them, e.g. device: [fast-nvme.yaml, slow-nvme.yaml]");
                }
                if (!axes.contains(axis)) {
                    axes.add(axis);
                }
            }
        }
        return axes;
    }

    /** Counted before anything is expanded: a grid of 10^9 cells is refused at once, not built. */
    private static void checkRunCount(Path file, ExperimentFile spec, List<Map<String, List<JsonNode>>> grids, int seedCount) {
        long maxRuns = spec.maxRuns() == null ? DEFAULT_MAX_RUNS : spec.maxRuns();
        if (maxRuns < 1) {
            throw new CommandException(file + ": maxRuns: must be >= 1, was " + maxRuns);
        }
        long runCount = SweepGrid.runCount(grids, seedCount);
        if (runCount > maxRuns) {
            throw new CommandException(file + ": sweep: " + (runCount == Long.MAX_VALUE ? "more than 9.2e18"
                    : String.format(java.util.Locale.ROOT, "%,d", runCount)) + " runs (sweep points × " + seedCount + " seeds) exceed maxRuns "
                    + String.format(java.util.Locale.ROOT, "%,d", maxRuns) + "; raise maxRuns at the top level of the file to run them");
        }
    }

    /**
     * Every cell of the grids at every seed, resolved, in grid order; a configuration two grids share
     * runs once. Each cell is bound and checked even with no seeds (a calibration file).
     */
    private static List<RunPoint> points(Source source, ObjectNode root, ExperimentFile spec, List<Map<String, List<JsonNode>>> grids,
                                         List<String> axes, List<Long> seeds) {
        Path folder = source.file().toAbsolutePath().normalize().getParent();
        List<RunPoint> points = new ArrayList<>();
        Set<Map<String, Object>> seen = new java.util.HashSet<>();
        // A set in grid order: a cell two grids share runs once, found by hash rather than by a scan of
        // every cell so far (which made a 100,000-point sweep quadratic).
        Set<Map<String, JsonNode>> cells = new LinkedHashSet<>();
        for (Map<String, List<JsonNode>> grid : grids) {
            cells.addAll(SweepGrid.cells(new ArrayList<>(grid.keySet()), grid));
        }
        for (Map<String, JsonNode> cell : cells) {
            ObjectNode copy = root.deepCopy();
            copy.remove("sweep");
            String where = cell.isEmpty() ? null : "sweep point " + SweepGrid.cellLabel(cell);
            for (Map.Entry<String, JsonNode> axis : cell.entrySet()) {
                SweepGrid.set(source.file(), copy, axis.getKey(), axis.getValue());
            }
            ExperimentFile pointSpec = cell.isEmpty() ? spec
                    : source.bind(where, () -> source.mapper().treeToValue(copy, ExperimentFile.class));
            source.checkSections(where, pointSpec);
            Map<String, JsonNode> columns = columns(cell, copy, axes);
            for (long seed : seeds) {
                RunConfig config;
                try {
                    config = resolve(pointSpec, seed, folder, columns);
                } catch (IllegalArgumentException e) {
                    throw new CommandException(source.file() + ": " + (where == null ? "" : where + ": ") + e.getMessage(), e);
                }
                // Two grids of a union may spell one configuration twice (a grid sweeping only
                // batchL2Reads: [true] meets the first grid's default): run it once.
                if (seen.add(config.parameters())) {
                    points.add(new RunPoint(points.size(), cell, seed, config));
                }
            }
        }
        return points;
    }

    /**
     * Every axis of the union gets a column in every run: a cell that does not sweep a deep axis
     * (say workload.synthetic.outputTokens) shows the file's value there.
     */
    private static Map<String, JsonNode> columns(Map<String, JsonNode> cell, ObjectNode copy, List<String> axes) {
        Map<String, JsonNode> columns = new LinkedHashMap<>();
        for (String axis : axes) {
            JsonNode value = cell.containsKey(axis) ? cell.get(axis) : SweepGrid.at(copy, axis);
            if (value != null) {
                columns.put(axis, value);
            }
        }
        return columns;
    }

    /** Checks what the points must share; returns their passes. */
    private static List<String> checkPoints(Path file, List<RunPoint> points) {
        List<String> passes = points.isEmpty() ? List.of() : points.getFirst().config().workload().passes();
        for (RunPoint point : points) {
            if (!point.config().workload().passes().equals(passes)) {
                throw new CommandException(file + ": sweep point " + point.label() + ": its passes "
                        + point.config().workload().passes() + " differ from the first point's " + passes
                        + "; every point of one experiment must report the same passes");
            }
        }
        if (points.size() > 1 && points.getFirst().config().l2File() != null) {
            // Runs of one grid go in parallel; two on one persistent file would rewrite each other's units.
            throw new CommandException(file + ": store.l2File: a persistent L2 file serves one run at a time, and this"
                    + " file has " + points.size() + " runs (sweep points × seeds); keep one");
        }
        return passes;
    }

    /**
     * Resolves one experiment-like section that lives inside another file (a workload of
     * {@code tierlab validate}), already bound from {@code text}: the same fields, defaults and
     * checks as an experiment file's top level, without sweeps. {@code where} names the section in
     * messages ("workloads.e1-like").
     */
    public static RunConfig resolveSection(Path file, String text, String where, ExperimentFile spec, long seed) {
        new Source(file, text, ExperimentParsing.mapperFor(file)).checkSections(where, spec);
        if (spec.workload() == null) {
            throw new CommandException(file + ": " + where + ": workload: a workload needs a workload section");
        }
        try {
            return resolve(spec, seed, file.toAbsolutePath().normalize().getParent(), Map.of());
        } catch (IllegalArgumentException e) {
            throw new CommandException(file + ": " + where + ": " + e.getMessage(), e);
        }
    }

    // ---- resolving one run --------------------------------------------------------------------

    /** Applies defaults and validates; an IllegalArgumentException's message starts with the field path. */
    static RunConfig resolve(ExperimentFile spec, long seed, Path folder, Map<String, JsonNode> cell) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        RunMode runMode = RunMode.REGISTRY.get("mode", spec.mode() == null ? RunMode.SIM.name() : spec.mode());
        String mode = runMode.name();
        if (spec.label() != null) {
            parameters.put("label", spec.label());
        }
        parameters.put("mode", mode);
        parameters.put("seed", seed);

        WorkloadPlan workload = WorkloadSections.resolve(spec.workload(), spec.model(), folder, parameters);
        SizeLimits.checkWorkload(workload, SizeLimits.heapBudgetBytes());
        Geometry geometry = workload.geometry();
        if (StoreSections.baselineOf(spec).equals(RunConfig.HOST_MEMORY) && runMode.realStorage()) {
            throw new IllegalArgumentException("store.baseline: host-memory sizes L1 to the whole workload, which only"
                    + " sim mode can do (hybrid and live pin a real L1)");
        }

        StoreSettings storeSettings = StoreSections.resolve(spec.store(), runMode, geometry, parameters);
        String baseline = StoreSections.baselineOf(spec);
        Path l2File = StoreSections.l2File(spec.store(), runMode, folder, parameters);

        SchedulerSettings schedulerSettings = SchedulerSections.resolve(spec.scheduler(),
                Math.max(1, DEFAULT_GPU_KV_TOKENS / geometry.blockTokens()), baseline.equals(RunConfig.NO_OFFLOAD), parameters);
        // Before any run allocates: a store or GPU pool larger than this JVM can hold is one line, not an OOM.
        SizeLimits.check(storeSettings, (Double) parameters.get("store.l2CapacityGiB"), schedulerSettings,
                SizeLimits.heapBudgetBytes());

        String deviceName = or(spec.device(), "qwen3-8b-h100");
        DeviceProfile device = device(deviceName, folder);
        parameters.put("device", deviceName);
        device = ComputeSections.apply(spec.gpu(), device, geometry.shape(), folder, parameters);
        FaultSettings faults = faults(spec.faults(), parameters);
        long sampleIntervalNs = sampleIntervalNs(spec);
        // Axes deeper than the fixed columns (say workload.synthetic.arrivals.ratePerSecond) get a column too.
        cell.forEach((axis, value) -> parameters.putIfAbsent(axis, value.isNumber() ? value.numberValue()
                : value.isBoolean() ? value.booleanValue() : value.isTextual() ? value.asText() : value.toString()));
        ExperimentFile.LiveSection live = liveSection(spec, runMode, parameters);
        boolean arrivalsTogether = sameInstantArrivalsTogether(spec, runMode, parameters);
        return new RunConfig(mode, seed, workload, storeSettings, schedulerSettings, device, faults, baseline,
                sampleIntervalNs, or(spec.checkInvariants(), false), java.util.Collections.unmodifiableMap(parameters),
                l2File, live.gpu(), live.verify(), arrivalsTogether);
    }

    /** {@code sampleIntervalMs} in nanoseconds, within the bounds a time series can count. */
    private static long sampleIntervalNs(ExperimentFile spec) {
        double sampleMs = positive("sampleIntervalMs", or(spec.sampleIntervalMs(), 100.0));
        if (sampleMs < MIN_SAMPLE_INTERVAL_MS) {
            // 1e-9 ms rounded to 0 ns, which switched sampling off: an empty timeseries.csv without a word.
            throw new IllegalArgumentException("sampleIntervalMs: must be at least " + MIN_SAMPLE_INTERVAL_MS
                    + " (1 µs of virtual time; the time series counts whole nanoseconds), was " + sampleMs);
        }
        if (sampleMs > MAX_SAMPLE_INTERVAL_MS) {
            // The next sample's time would overflow a long of nanoseconds, and wrap into sampling every event.
            throw new IllegalArgumentException("sampleIntervalMs: must be at most " + MAX_SAMPLE_INTERVAL_MS
                    + " (about 31 years of virtual time), was " + sampleMs);
        }
        return Math.round(sampleMs * 1e6);
    }

    /** The live section with its defaults applied (gpu auto, verify true); live rows get its two columns. */
    private static ExperimentFile.LiveSection liveSection(ExperimentFile spec, RunMode runMode, Map<String, Object> parameters) {
        ExperimentFile.LiveSection live = spec.live() == null ? new ExperimentFile.LiveSection(null, null) : spec.live();
        String gpu = or(live.gpu(), RunConfig.GPU_AUTO);
        boolean verifyGpu = or(live.verify(), true);
        if (!GPUS.contains(gpu)) {
            throw new IllegalArgumentException("live.gpu: unknown value '" + gpu + "' (known: " + GPUS.known() + ")");
        }
        if (spec.live() != null && runMode != RunMode.LIVE) {
            throw new IllegalArgumentException("live: applies to live mode only, and this run's mode is " + runMode.name());
        }
        if (runMode == RunMode.LIVE) {
            // Only live rows get these columns: sim and hybrid tables keep theirs.
            parameters.put("live.gpu", gpu);
            parameters.put("live.verify", verifyGpu);
        }
        return new ExperimentFile.LiveSection(gpu, verifyGpu);
    }

    /**
     * {@code sameInstantArrivalsTogether} [false]: a virtual-clock setting (the live loop always hands
     * over every arrival that is due before it ticks). Only a file that turns it on gets its column,
     * so the tables of every other file keep theirs.
     */
    private static boolean sameInstantArrivalsTogether(ExperimentFile spec, RunMode runMode, Map<String, Object> parameters) {
        boolean together = or(spec.sameInstantArrivalsTogether(), false);
        if (spec.sameInstantArrivalsTogether() != null && !runMode.virtualClock()) {
            throw new IllegalArgumentException("sameInstantArrivalsTogether: applies to sim and hybrid mode; the live loop"
                    + " always hands every arrival that is due to the engine before it ticks");
        }
        if (together) {
            parameters.put("sameInstantArrivalsTogether", true);
        }
        return together;
    }

    /**
     * Profiles already parsed, by preset name or by file, size and modification time: every sweep point
     * resolves its device, and parsing the same YAML with a fresh mapper for each of 10,000 points took
     * most of a large sweep's loading time. A profile is an immutable record.
     */
    private static final Map<String, DeviceProfile> DEVICES = new java.util.concurrent.ConcurrentHashMap<>();

    private static DeviceProfile device(String name, Path folder) {
        boolean isFile = name.contains("/") || name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json");
        if (!isFile) {
            DeviceProfile known = DEVICES.get("preset:" + name);
            return known != null ? known : remember("preset:" + name, withField("device", () -> DeviceProfile.preset(name)));
        }
        Path file = folder.resolve(name).normalize();
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("device: no such profile file: " + file
                    + " (paths are relative to the experiment file's folder)");
        }
        String key;
        try {
            key = "file:" + file.toAbsolutePath() + ":" + Files.size(file) + ":" + Files.getLastModifiedTime(file).toMillis();
        } catch (IOException e) {
            return withField("device", () -> DeviceProfile.load(file));
        }
        DeviceProfile known = DEVICES.get(key);
        return known != null ? known : remember(key, withField("device", () -> DeviceProfile.load(file)));
    }

    private static DeviceProfile remember(String key, DeviceProfile profile) {
        DEVICES.put(key, profile);
        return profile;
    }

    /** The fault section with its defaults, and its columns (every run has them, faults or none). */
    private static FaultSettings faults(ExperimentFile.FaultSection section, Map<String, Object> parameters) {
        FaultSettings faults = section == null ? FaultSettings.none()
                : withField("faults", () -> new FaultSettings(or(section.readErrorProbability(), 0.0),
                or(section.writeErrorProbability(), 0.0), or(section.shortReadProbability(), 0.0),
                or(section.latencySpikeProbability(), 0.0), nanos("faults.latencySpikeMs", section.latencySpikeMs()),
                nanos("faults.reorderWindowMs", section.reorderWindowMs()), or(section.stuckProbability(), 0.0),
                nanos("faults.stuckForMs", section.stuckForMs()), section.failReadTickets()));
        parameters.put("faults.readErrorProbability", faults.readErrorProbability());
        parameters.put("faults.writeErrorProbability", faults.writeErrorProbability());
        parameters.put("faults.shortReadProbability", faults.shortReadProbability());
        parameters.put("faults.latencySpikeProbability", faults.latencySpikeProbability());
        parameters.put("faults.latencySpikeMs", faults.latencySpikeNs() / 1e6);
        parameters.put("faults.reorderWindowMs", faults.reorderWindowNs() / 1e6);
        parameters.put("faults.stuckProbability", faults.stuckProbability());
        return faults;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
