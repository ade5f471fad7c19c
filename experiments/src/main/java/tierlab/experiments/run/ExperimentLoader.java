package tierlab.experiments.run;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tierlab.experiments.CommandException;
import tierlab.experiments.run.ExperimentFile.ChartSection;
import tierlab.experiments.run.ExperimentFile.ReferenceRow;
import tierlab.experiments.run.ExperimentFile.SchedulerSection;
import tierlab.experiments.run.ExperimentFile.StoreSection;
import tierlab.experiments.run.ExperimentFile.WorkloadSection;
import tierlab.model.KnownBug;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.policy.BeladyPolicy;
import tierlab.model.policy.Policies;
import tierlab.model.sched.SchedulerSettings;
import tierlab.model.store.StoreSettings;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.fault.FaultSettings;
import tierlab.sim.workload.LengthDistribution;
import tierlab.sim.workload.LongPrefillPasses;
import tierlab.sim.workload.LongPrefillSettings;
import tierlab.sim.workload.MooncakeWorkload;

/**
 * Reads an experiment file, expands its sweep grid and resolves every run. Everything that can be
 * wrong with a file is found here, before any run starts, and reported as one
 * {@link CommandException} that names the file, the line where the parser knows it, and the field.
 */
public final class ExperimentLoader {

    public static final Set<String> KINDS = Set.of("simulation", "calibration");
    public static final List<String> MODES = List.of("sim", "hybrid", "live");
    public static final List<String> BASELINES = List.of(RunConfig.TIERED, RunConfig.NO_OFFLOAD, RunConfig.HOST_MEMORY);
    /** Hybrid and live runs allocate a real pinned L1 and a real L2 file of the configured sizes. */
    public static final double REAL_L1_LIMIT_GIB = 4;
    public static final double REAL_L2_LIMIT_GIB = 16;
    /** A GPU KV cache of 384k tokens (about 56 GiB of Qwen3-8B KV on an 80 GB H100), in blocks of the geometry. */
    public static final long DEFAULT_GPU_KV_TOKENS = 384_000;
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    private static final double GIB = 1L << 30;

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
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new CommandException(file + ": cannot read the experiment file (" + describeIo(e) + ")", e);
        }
        ObjectMapper mapper = mapperFor(file);
        // Bind straight from the text first: Jackson then knows the line of every bad field.
        String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        ExperimentFile spec = bind(file, text, null, () -> mapper.readValue(bytes, ExperimentFile.class));
        if (spec == null) {
            throw new CommandException(file + ": the experiment file is empty");
        }
        JsonNode tree = bind(file, text, null, () -> mapper.readTree(bytes));
        if (!(tree instanceof ObjectNode root)) {
            throw new CommandException(file + ": an experiment file is a mapping of fields (name, workload, store, ...)");
        }
        Path folder = file.toAbsolutePath().normalize().getParent();
        String name = spec.name() != null ? spec.name() : defaultName(file);
        if (!NAME.matcher(name).matches()) {
            throw new CommandException(file + ": name: '" + name + "' must be 1-64 lower-case letters, digits and"
                    + " dashes (it names the output folder out/NAME)");
        }
        String kind = spec.kind() == null ? "simulation" : spec.kind();
        if (!KINDS.contains(kind)) {
            throw new CommandException(file + ": kind: unknown kind '" + kind + "' (known: simulation, calibration)");
        }
        List<Long> seeds = spec.seeds() == null ? List.of(42L) : spec.seeds();
        if (seeds.isEmpty() || seeds.stream().anyMatch(java.util.Objects::isNull)) {
            throw new CommandException(file + ": seeds: give at least one seed, and no empty entries");
        }
        if (new LinkedHashSet<>(seeds).size() != seeds.size()) {
            throw new CommandException(file + ": seeds: " + seeds + " repeats a seed");
        }
        List<Map<String, List<JsonNode>>> grids = grids(file, spec.sweep());
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
                if (!axes.contains(axis)) {
                    axes.add(axis);
                }
            }
        }

        List<RunPoint> points = new ArrayList<>();
        Set<Map<String, Object>> seen = new java.util.HashSet<>();
        String mode = null;
        List<Map<String, JsonNode>> cells = new ArrayList<>();
        for (Map<String, List<JsonNode>> grid : grids) {
            for (Map<String, JsonNode> cell : cells(new ArrayList<>(grid.keySet()), grid)) {
                if (!cells.contains(cell)) {
                    cells.add(cell);
                }
            }
        }
        for (Map<String, JsonNode> cell : cells) {
            ObjectNode copy = root.deepCopy();
            copy.remove("sweep");
            String where = cell.isEmpty() ? null : "sweep point " + cellLabel(cell);
            for (Map.Entry<String, JsonNode> axis : cell.entrySet()) {
                set(file, copy, axis.getKey(), axis.getValue());
            }
            ExperimentFile pointSpec = cell.isEmpty() ? spec
                    : bind(file, text, where, () -> mapper.treeToValue(copy, ExperimentFile.class));
            if (!kind.equals("simulation")) {
                continue;
            }
            // Every axis of the union gets a column in every run: a cell that does not sweep a deep axis
            // (say workload.synthetic.outputTokens) shows the file's value there.
            Map<String, JsonNode> columns = new LinkedHashMap<>();
            for (String axis : axes) {
                JsonNode value = cell.containsKey(axis) ? cell.get(axis) : at(copy, axis);
                if (value != null) {
                    columns.put(axis, value);
                }
            }
            for (long seed : seeds) {
                RunConfig config;
                try {
                    config = resolve(pointSpec, seed, folder, columns);
                } catch (IllegalArgumentException e) {
                    throw new CommandException(file + ": " + (where == null ? "" : where + ": ") + e.getMessage(), e);
                }
                mode = config.mode();
                // Two grids of a union may spell one configuration twice (a grid sweeping only
                // batchL2Reads: [true] meets the first grid's default): run it once.
                if (seen.add(config.parameters())) {
                    points.add(new RunPoint(points.size(), cell, seed, config));
                }
            }
        }
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
        List<String> metricNames = Metrics.names(passes);
        Experiment experiment = new Experiment(file, sha256(bytes), spec, name, kind, mode == null ? "sim" : mode,
                List.copyOf(axes), List.copyOf(points), metricNames);
        if (kind.equals("simulation")) {
            if (spec.workload() == null) {
                throw new CommandException(file + ": workload: a simulation needs a workload section");
            }
            checkCharts(experiment);
            checkReference(experiment);
        }
        return experiment;
    }

    // ---- parsing ------------------------------------------------------------------------------

    static ObjectMapper mapperFor(Path file) {
        String lower = file.getFileName().toString().toLowerCase(Locale.ROOT);
        ObjectMapper mapper;
        if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
            mapper = YAMLMapper.builder(new YAMLFactory()).build();
        } else if (lower.endsWith(".json")) {
            mapper = JsonMapper.builder().build();
        } else {
            throw new CommandException(file + ": an experiment file ends in .yaml, .yml or .json");
        }
        mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        mapper.enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
        mapper.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION.mappedFeature());
        mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
        // "64" is a string, not a number, and 64.5 is not a whole number: say so rather than guess.
        mapper.coercionConfigDefaults().setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }

    @FunctionalInterface
    private interface Parse<T> {
        T run() throws IOException;
    }

    private static <T> T bind(Path file, String text, String where, Parse<T> parse) {
        try {
            return parse.run();
        } catch (JsonProcessingException e) {
            throw new CommandException(message(file, text, where, e), e);
        } catch (IOException e) {
            throw new CommandException(file + ": cannot read the experiment file (" + describeIo(e) + ")", e);
        } catch (IllegalArgumentException e) {
            // treeToValue wraps binding problems in IllegalArgumentException with the Jackson exception as cause.
            if (e.getCause() instanceof JsonProcessingException cause) {
                throw new CommandException(message(file, text, where, cause), e);
            }
            throw new CommandException(file + ": " + (where == null ? "" : where + ": ") + e.getMessage(), e);
        }
    }

    /** One line: file, line (when known), sweep point, field path, and what is wrong in plain words. */
    static String message(Path file, String source, String where, JsonProcessingException e) {
        StringBuilder text = new StringBuilder(file.toString());
        JsonLocation location = e.getLocation();
        int line = location == null ? -1 : location.getLineNr();
        if (e instanceof UnrecognizedPropertyException unknown) {
            // The parser has read past the unknown field's value by now (to the next line, for YAML);
            // the field's own line is where its key is written, if the key appears just once.
            line = keyLine(source, unknown.getPropertyName(), line);
        }
        if (line > 0 && where == null) {
            text.append(": line ").append(line);
        }
        if (where != null) {
            text.append(": ").append(where);
        }
        String path = e instanceof JsonMappingException mapping ? path(mapping) : "";
        if (!path.isEmpty() && !(e instanceof UnrecognizedPropertyException)) {
            text.append(": ").append(path);
        }
        text.append(": ");
        if (e instanceof UnrecognizedPropertyException unknown) {
            String parent = path.contains(".") ? path.substring(0, path.lastIndexOf('.')) : "";
            List<String> known = unknown.getKnownPropertyIds() == null ? List.of()
                    : unknown.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList();
            text.append("unknown field '").append(path.isEmpty() ? unknown.getPropertyName() : path).append("'");
            if (!known.isEmpty()) {
                text.append(" (known").append(parent.isEmpty() ? "" : " in " + parent).append(": ")
                        .append(String.join(", ", known)).append(")");
            }
        } else if (e instanceof InvalidTypeIdException typeId) {
            text.append("unknown kind '").append(typeId.getTypeId()).append("'");
        } else if (e instanceof ValueInstantiationException instantiation && instantiation.getCause() != null) {
            text.append(instantiation.getCause().getMessage());
        } else if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
            text.append("wrong type: expected ").append(typeName(mismatch.getTargetType())).append(" (")
                    .append(firstSentence(e.getOriginalMessage())).append(")");
        } else {
            text.append(firstSentence(e.getOriginalMessage()));
        }
        return text.toString();
    }

    /** The one line where {@code key:} (YAML) or {@code "key":} (JSON) is written, else {@code fallback}. */
    static int keyLine(String source, String key, int fallback) {
        if (source == null || key == null) {
            return fallback;
        }
        Pattern pattern = Pattern.compile("^\\s*(-\\s*)?[\"']?" + Pattern.quote(key) + "[\"']?\\s*:|[{,]\\s*[\"']?"
                + Pattern.quote(key) + "[\"']?\\s*:");
        int found = -1;
        String[] lines = source.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            if (pattern.matcher(lines[i]).find()) {
                if (found > 0) {
                    return fallback;
                }
                found = i + 1;
            }
        }
        return found > 0 ? found : fallback;
    }

    private static String typeName(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number";
        }
        if (type == Double.class || type == double.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "text";
        }
        if (List.class.isAssignableFrom(type)) {
            return "a list";
        }
        return "a mapping of fields";
    }

    private static String firstSentence(String message) {
        if (message == null) {
            return "malformed";
        }
        String line = message.strip().replaceAll("\\s*\\R\\s*", " ");
        // Jackson names its own classes ("Cannot deserialize value of type `java.lang.Long`"): keep the reason only.
        line = line.replaceAll("`[a-zA-Z0-9_.$]+\\.([A-Za-z0-9_$]+)`", "$1");
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }

    private static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : e.getPath()) {
            if (reference.getFieldName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(reference.getFieldName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    private static String describeIo(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static String defaultName(Path file) {
        String base = file.getFileName().toString();
        int dot = base.lastIndexOf('.');
        return (dot > 0 ? base.substring(0, dot) : base).toLowerCase(Locale.ROOT);
    }

    // ---- the sweep grid -----------------------------------------------------------------------

    /** The sweep as a list of grids: a map is one grid, a list of maps is several; none is one empty grid. */
    private static List<Map<String, List<JsonNode>>> grids(Path file, JsonNode sweep) {
        if (sweep == null || sweep.isNull()) {
            return List.of(Map.of());
        }
        List<JsonNode> gridNodes = new ArrayList<>();
        if (sweep.isObject()) {
            gridNodes.add(sweep);
        } else if (sweep.isArray() && !sweep.isEmpty()) {
            sweep.forEach(gridNodes::add);
        } else {
            throw new CommandException(file + ": sweep: a mapping of axis → list of values, or a list of such mappings");
        }
        List<Map<String, List<JsonNode>>> grids = new ArrayList<>();
        for (int i = 0; i < gridNodes.size(); i++) {
            JsonNode node = gridNodes.get(i);
            String at = file + ": sweep" + (sweep.isArray() ? "[" + i + "]" : "");
            if (!node.isObject()) {
                throw new CommandException(at + ": a mapping of axis → list of values");
            }
            Map<String, List<JsonNode>> grid = new LinkedHashMap<>();
            var fields = node.fields();
            while (fields.hasNext()) {
                var field = fields.next();
                if (!field.getValue().isArray()) {
                    throw new CommandException(at + "." + field.getKey() + ": give a list of values, e.g. [" + field.getValue() + "]");
                }
                List<JsonNode> values = new ArrayList<>();
                field.getValue().forEach(values::add);
                grid.put(field.getKey(), values);
            }
            grids.add(grid);
        }
        return grids;
    }

    /** Every combination of axis values, the first axis varying slowest. */
    private static List<Map<String, JsonNode>> cells(List<String> axes, Map<String, List<JsonNode>> sweep) {
        List<Map<String, JsonNode>> cells = new ArrayList<>();
        cells.add(new LinkedHashMap<>());
        for (String axis : axes) {
            List<Map<String, JsonNode>> next = new ArrayList<>();
            for (Map<String, JsonNode> cell : cells) {
                for (JsonNode value : sweep.get(axis)) {
                    Map<String, JsonNode> extended = new LinkedHashMap<>(cell);
                    extended.put(axis, value);
                    next.add(extended);
                }
            }
            cells = next;
        }
        return cells.stream().map(java.util.Collections::unmodifiableMap).toList();
    }

    static String cellLabel(Map<String, JsonNode> cell) {
        StringBuilder label = new StringBuilder("{");
        cell.forEach((axis, value) -> {
            if (label.length() > 1) {
                label.append(", ");
            }
            label.append(axis).append('=').append(value.isTextual() ? value.asText() : value.toString());
        });
        return label.append('}').toString();
    }

    /** The node at a dotted path, or null. */
    private static JsonNode at(JsonNode root, String path) {
        JsonNode node = root;
        for (String part : path.split("\\.")) {
            if (node == null || !node.isObject()) {
                return null;
            }
            node = node.get(part);
        }
        return node;
    }

    /** Sets a dotted path in the tree, creating sections on the way. */
    private static void set(Path file, ObjectNode root, String path, JsonNode value) {
        String[] parts = path.split("\\.", -1);
        ObjectNode node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            if (parts[i].isEmpty()) {
                throw new CommandException(file + ": sweep." + path + ": an axis is a dotted field path such as store.policy");
            }
            JsonNode child = node.get(parts[i]);
            if (child == null || child.isNull()) {
                child = node.putObject(parts[i]);
            } else if (!child.isObject()) {
                throw new CommandException(file + ": sweep." + path + ": '" + String.join(".", List.of(parts).subList(0, i + 1))
                        + "' is not a section, so it has no field '" + parts[i + 1] + "'");
            }
            node = (ObjectNode) child;
        }
        if (parts[parts.length - 1].isEmpty()) {
            throw new CommandException(file + ": sweep." + path + ": an axis is a dotted field path such as store.policy");
        }
        node.set(parts[parts.length - 1], value);
    }

    // ---- resolving one run --------------------------------------------------------------------

    /** Applies defaults and validates; an IllegalArgumentException's message starts with the field path. */
    static RunConfig resolve(ExperimentFile spec, long seed, Path folder, Map<String, JsonNode> cell) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        String mode = spec.mode() == null ? "sim" : spec.mode();
        if (!MODES.contains(mode)) {
            throw new IllegalArgumentException("mode: unknown mode '" + mode + "' (known: " + String.join(", ", MODES) + ")");
        }
        if (spec.label() != null) {
            parameters.put("label", spec.label());
        }
        parameters.put("mode", mode);
        parameters.put("seed", seed);

        WorkloadPlan workload = workload(spec.workload(), folder, parameters);
        Geometry geometry = workload.geometry();
        if (mode.equals("live") && workload instanceof WorkloadPlan.LongPrefill plan && plan.clientConcurrency() > 0) {
            throw new IllegalArgumentException("workload.clientConcurrency: live mode sends requests at their arrival"
                    + " times; closed-loop clients are for sim and hybrid mode");
        }
        if (baselineOf(spec).equals(RunConfig.HOST_MEMORY) && !mode.equals("sim")) {
            throw new IllegalArgumentException("store.baseline: host-memory sizes L1 to the whole workload, which only"
                    + " sim mode can do (hybrid and live pin a real L1)");
        }

        StoreSection store = spec.store() == null ? new StoreSection(null, null, null, null, null, null, null, null, null,
                null, null, null, null, null) : spec.store();
        String baseline = or(store.baseline(), RunConfig.TIERED);
        if (!BASELINES.contains(baseline)) {
            throw new IllegalArgumentException("store.baseline: unknown baseline '" + baseline + "' (known: "
                    + String.join(", ", BASELINES) + ")");
        }
        double l1GiB = positive("store.l1CapacityGiB", or(store.l1CapacityGiB(), 64.0));
        double l2GiB = positive("store.l2CapacityGiB", or(store.l2CapacityGiB(), 256.0));
        if (!mode.equals("sim")) {
            if (l1GiB > REAL_L1_LIMIT_GIB) {
                throw new IllegalArgumentException("store.l1CapacityGiB: " + mode + " mode pins a real L1 of this size;"
                        + " at most " + REAL_L1_LIMIT_GIB + " GiB here, was " + l1GiB);
            }
            if (l2GiB > REAL_L2_LIMIT_GIB) {
                throw new IllegalArgumentException("store.l2CapacityGiB: " + mode + " mode writes a real L2 file of this"
                        + " size; at most " + REAL_L2_LIMIT_GIB + " GiB here, was " + l2GiB);
            }
        }
        String policy = or(store.policy(), "lru");
        if (policy.equals(BeladyPolicy.NAME)) {
            throw new IllegalArgumentException("store.policy: belady needs the future reference stream, which a running"
                    + " store cannot know; it is the offline bound of missRatioCurve and 'tierlab replay'");
        }
        if (!Policies.names().contains(policy)) {
            throw new IllegalArgumentException("store.policy: unknown policy '" + policy + "' (known: "
                    + String.join(", ", Policies.names().stream().filter(p -> !p.equals(BeladyPolicy.NAME)).toList()) + ")");
        }
        Set<KnownBug> bugs = knownBugs(store.knownBugs());
        long l1Bytes = pageAligned(l1GiB);
        long l2Bytes = Math.round(l2GiB * GIB);
        double writeBatchMiB = positive("store.writeBatchMaxMiB", or(store.writeBatchMaxMiB(), 64.0));
        if (l1Bytes < geometry.laneBytes()) {
            throw new IllegalArgumentException("store.l1CapacityGiB: must hold at least one block lane of "
                    + geometry.laneBytes() + " bytes, was " + l1GiB + " GiB");
        }
        // The smallest valid store, only for its default knob values.
        StoreSettings defaults = StoreSettings.defaults(geometry, geometry.laneBytes(), geometry.blockBytes());
        StoreSettings storeSettings = withField("store", () -> new StoreSettings(geometry, l1Bytes, l2Bytes, policy,
                or(store.mruInterval(), defaults.mruInterval()),
                or(store.promotionsAsHeadroom(), defaults.promotionsAsHeadroom()),
                or(store.headroomFraction(), defaults.headroomFraction()),
                or(store.ringCount(), defaults.ringCount()),
                or(store.batchL2Reads(), defaults.batchL2Reads()),
                pageAligned(writeBatchMiB / 1024.0),
                or(store.stagingSlots(), defaults.stagingSlots()),
                or(store.contiguousStaging(), defaults.contiguousStaging()), bugs, null));
        parameters.put("store.baseline", baseline);
        Path l2File = null;
        if (store.l2File() != null) {
            if (!mode.equals("live")) {
                throw new IllegalArgumentException("store.l2File: only a live run keeps a persistent L2 file (mode is " + mode + ")");
            }
            l2File = folder.resolve(store.l2File()).normalize();
            parameters.put("store.l2File", store.l2File());
        }
        parameters.put("store.l1CapacityGiB", l1GiB);
        parameters.put("store.l2CapacityGiB", l2GiB);
        parameters.put("store.policy", policy);
        parameters.put("store.mruInterval", storeSettings.mruInterval());
        parameters.put("store.promotionsAsHeadroom", storeSettings.promotionsAsHeadroom());
        parameters.put("store.headroomFraction", storeSettings.headroomFraction());
        parameters.put("store.ringCount", storeSettings.ringCount());
        parameters.put("store.batchL2Reads", storeSettings.batchL2Reads());
        parameters.put("store.writeBatchMaxMiB", writeBatchMiB);
        parameters.put("store.stagingSlots", storeSettings.stagingSlots());
        parameters.put("store.contiguousStaging", storeSettings.contiguousStaging());
        parameters.put("store.knownBugs", String.join("+", bugs.stream().map(KnownBug::raceId).toList()));

        SchedulerSection scheduler = spec.scheduler() == null ? new SchedulerSection(null, null, null, null, null)
                : spec.scheduler();
        long gpuBlocks = or(scheduler.gpuKvBlocks(), Math.max(1, DEFAULT_GPU_KV_TOKENS / geometry.blockTokens()));
        SchedulerSettings schedulerSettings = withField("scheduler", () -> new SchedulerSettings(
                or(scheduler.concurrency(), 16), or(scheduler.maxBatchedTokens(), 8192L), gpuBlocks,
                or(scheduler.prefetchMaxRequests(), 2), or(scheduler.allL1Bypass(), true)));
        if (baseline.equals(RunConfig.NO_OFFLOAD)) {
            schedulerSettings = schedulerSettings.withoutOffload();
        }
        parameters.put("scheduler.concurrency", schedulerSettings.maxNumSeqs());
        parameters.put("scheduler.maxBatchedTokens", schedulerSettings.maxBatchedTokens());
        parameters.put("scheduler.gpuKvBlocks", schedulerSettings.gpuKvBlocks());
        parameters.put("scheduler.prefetchMaxRequests", schedulerSettings.prefetchMaxRequests());
        parameters.put("scheduler.allL1Bypass", schedulerSettings.allL1Bypass());

        String deviceName = or(spec.device(), "qwen3-8b-h100");
        DeviceProfile device = device(deviceName, folder);
        parameters.put("device", deviceName);
        FaultSettings faults = faults(spec.faults());
        parameters.put("faults.readErrorProbability", faults.readErrorProbability());
        parameters.put("faults.writeErrorProbability", faults.writeErrorProbability());
        parameters.put("faults.shortReadProbability", faults.shortReadProbability());
        parameters.put("faults.latencySpikeProbability", faults.latencySpikeProbability());
        parameters.put("faults.latencySpikeMs", faults.latencySpikeNs() / 1e6);
        parameters.put("faults.reorderWindowMs", faults.reorderWindowNs() / 1e6);
        parameters.put("faults.stuckProbability", faults.stuckProbability());
        double sampleMs = positive("sampleIntervalMs", or(spec.sampleIntervalMs(), 100.0));
        // Axes deeper than the fixed columns (say workload.synthetic.arrivals.ratePerSecond) get a column too.
        cell.forEach((axis, value) -> parameters.putIfAbsent(axis, value.isNumber() ? value.numberValue()
                : value.isBoolean() ? value.booleanValue() : value.isTextual() ? value.asText() : value.toString()));
        return new RunConfig(mode, seed, workload, storeSettings, schedulerSettings, device, faults, baseline,
                Math.round(sampleMs * 1e6), or(spec.checkInvariants(), false), java.util.Collections.unmodifiableMap(parameters),
                l2File);
    }

    private static String baselineOf(ExperimentFile spec) {
        return spec.store() == null || spec.store().baseline() == null ? RunConfig.TIERED : spec.store().baseline();
    }

    private static WorkloadPlan workload(WorkloadSection workload, Path folder, Map<String, Object> parameters) {
        if (workload == null) {
            throw new IllegalArgumentException("workload: a simulation needs a workload section");
        }
        String type = workload.type();
        if (type == null) {
            throw new IllegalArgumentException("workload.type: missing (one of long-prefill, mooncake, synthetic)");
        }
        String modelName = or(workload.model(), "qwen3-8b");
        ModelShape shape = switch (modelName) {
            case "qwen3-8b" -> ModelShape.QWEN3_8B;
            // One layer, one head: 512 B of KV per token, so a hybrid run moves real bytes quickly.
            case "tiny" -> new ModelShape("tiny", 1, 1, 128, 2);
            default -> throw new IllegalArgumentException("workload.model: unknown model '" + modelName
                    + "' (known: qwen3-8b, tiny)");
        };
        parameters.put("workload.type", type);
        parameters.put("workload.model", modelName);
        int tp = or(workload.tp(), 1);
        parameters.put("workload.tp", tp);
        switch (type) {
            case "long-prefill" -> {
                String preset = workload.preset();
                int prompts;
                long tokens;
                long spread;
                int blockTokens;
                switch (preset == null ? "" : preset) {
                    case "e1" -> {
                        prompts = LongPrefillPasses.E1_PROMPTS;
                        tokens = LongPrefillPasses.E1_MEAN_PROMPT_TOKENS;
                        spread = LongPrefillPasses.E1_PROMPT_SPREAD_TOKENS;
                        blockTokens = LongPrefillPasses.REFERENCE_BLOCK_TOKENS;
                    }
                    case "e2" -> {
                        prompts = LongPrefillPasses.E2_PROMPTS;
                        tokens = LongPrefillPasses.E2_PROMPT_TOKENS;
                        spread = 0;
                        blockTokens = LongPrefillPasses.E2_BLOCK_TOKENS;
                    }
                    case "e3" -> {
                        prompts = LongPrefillPasses.E3_PROMPTS;
                        tokens = LongPrefillPasses.E3_PROMPT_TOKENS;
                        spread = 0;
                        blockTokens = LongPrefillPasses.REFERENCE_BLOCK_TOKENS;
                    }
                    case "" -> {
                        prompts = 0;
                        tokens = 0;
                        spread = 0;
                        blockTokens = LongPrefillPasses.REFERENCE_BLOCK_TOKENS;
                    }
                    default -> throw new IllegalArgumentException("workload.preset: unknown preset '" + preset
                            + "' (known: e1, e2, e3)");
                }
                prompts = or(workload.prompts(), prompts);
                tokens = or(workload.promptTokens(), tokens);
                spread = or(workload.promptSpreadTokens(), spread);
                blockTokens = or(workload.blockTokens(), blockTokens);
                if (prompts <= 0) {
                    throw new IllegalArgumentException("workload.prompts: must be > 0" + (preset == null
                            ? " (or name a preset: e1, e2, e3)" : "") + ", was " + prompts);
                }
                if (tokens <= 0) {
                    throw new IllegalArgumentException("workload.promptTokens: must be > 0, was " + tokens);
                }
                if (spread < 0 || spread >= tokens) {
                    throw new IllegalArgumentException("workload.promptSpreadTokens: must be in [0, promptTokens), was " + spread);
                }
                long output = or(workload.outputTokens(), 1L);
                double spacingMs = nonNegative("workload.arrivalSpacingMs", or(workload.arrivalSpacingMs(), 0.0));
                double gapMs = nonNegative("workload.warmGapMs", or(workload.warmGapMs(), 1000.0));
                Geometry geometry = geometry(shape, blockTokens, tp);
                long finalTokens = tokens;
                long finalSpread = spread;
                int finalPrompts = prompts;
                LongPrefillSettings settings = withField("workload", () -> new LongPrefillSettings(
                        preset == null ? "long-prefill" : preset, finalPrompts,
                        finalSpread == 0 ? LengthDistribution.fixed(finalTokens)
                                : LengthDistribution.uniform(finalTokens - finalSpread, finalTokens + finalSpread),
                        finalSpread > 0, output, Math.round(spacingMs * 1e6)));
                boolean warm = or(workload.warmPass(), true);
                int clients = or(workload.clientConcurrency(), 0);
                if (clients < 0) {
                    throw new IllegalArgumentException("workload.clientConcurrency: must be >= 0 (0 = all at once), was " + clients);
                }
                parameters.put("workload.clientConcurrency", clients);
                parameters.put("workload.preset", preset == null ? "" : preset);
                parameters.put("workload.prompts", prompts);
                parameters.put("workload.promptTokens", tokens);
                parameters.put("workload.blockTokens", blockTokens);
                return new WorkloadPlan.LongPrefill(settings, geometry, warm, Math.round(gapMs * 1e6), clients);
            }
            case "mooncake" -> {
                if (workload.trace() == null) {
                    throw new IllegalArgumentException("workload.trace: a mooncake workload names its JSONL trace file");
                }
                Path trace = folder.resolve(workload.trace()).normalize();
                if (!Files.isRegularFile(trace)) {
                    throw new IllegalArgumentException("workload.trace: no such file: " + trace
                            + " (paths are relative to the experiment file's folder)");
                }
                int blockTokens = or(workload.blockTokens(), LongPrefillPasses.REFERENCE_BLOCK_TOKENS);
                Geometry geometry = geometry(shape, blockTokens, tp);
                withField("workload.blockTokens", () -> {
                    MooncakeWorkload.checkBlockTokens(blockTokens);
                    return null;
                });
                MooncakeWorkload.Options options = withField("workload", () -> new MooncakeWorkload.Options(
                        or(workload.requestLimit(), 0L), or(workload.timeScale(), 1.0)));
                parameters.put("workload.trace", workload.trace());
                parameters.put("workload.requestLimit", options.requestLimit());
                parameters.put("workload.timeScale", options.timeScale());
                parameters.put("workload.blockTokens", blockTokens);
                return new WorkloadPlan.Mooncake(trace, options, geometry);
            }
            case "synthetic" -> {
                if (workload.synthetic() == null) {
                    throw new IllegalArgumentException("workload.synthetic: a synthetic workload needs its settings"
                            + " (requestCount, arrivals, promptTokens, outputTokens, ...)");
                }
                int blockTokens = or(workload.blockTokens(), LongPrefillPasses.REFERENCE_BLOCK_TOKENS);
                parameters.put("workload.blockTokens", blockTokens);
                parameters.put("workload.requests", workload.synthetic().requestCount());
                return new WorkloadPlan.Synthetic(workload.synthetic(), geometry(shape, blockTokens, tp));
            }
            default -> throw new IllegalArgumentException("workload.type: unknown type '" + type
                    + "' (known: long-prefill, mooncake, synthetic)");
        }
    }

    private static Geometry geometry(ModelShape shape, int blockTokens, int tp) {
        return withField("workload", () -> new Geometry(shape, blockTokens, tp));
    }

    private static DeviceProfile device(String name, Path folder) {
        boolean isFile = name.contains("/") || name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json");
        if (!isFile) {
            return withField("device", () -> DeviceProfile.preset(name));
        }
        Path file = folder.resolve(name).normalize();
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("device: no such profile file: " + file
                    + " (paths are relative to the experiment file's folder)");
        }
        return withField("device", () -> DeviceProfile.load(file));
    }

    private static FaultSettings faults(ExperimentFile.FaultSection section) {
        if (section == null) {
            return FaultSettings.none();
        }
        return withField("faults", () -> new FaultSettings(or(section.readErrorProbability(), 0.0),
                or(section.writeErrorProbability(), 0.0), or(section.shortReadProbability(), 0.0),
                or(section.latencySpikeProbability(), 0.0), nanos("faults.latencySpikeMs", section.latencySpikeMs()),
                nanos("faults.reorderWindowMs", section.reorderWindowMs()), or(section.stuckProbability(), 0.0),
                nanos("faults.stuckForMs", section.stuckForMs()), section.failReadTickets()));
    }

    private static long nanos(String field, Double milliseconds) {
        return milliseconds == null ? 0 : Math.round(nonNegative(field, milliseconds) * 1e6);
    }

    static Set<KnownBug> knownBugs(List<String> names) {
        if (names == null || names.isEmpty()) {
            return Set.of();
        }
        Set<KnownBug> bugs = EnumSet.noneOf(KnownBug.class);
        for (String name : names) {
            KnownBug found = null;
            for (KnownBug bug : KnownBug.values()) {
                if (bug.raceId().equalsIgnoreCase(String.valueOf(name)) || bug.name().equalsIgnoreCase(String.valueOf(name))) {
                    found = bug;
                }
            }
            if (found == null) {
                throw new IllegalArgumentException("store.knownBugs: unknown race '" + name + "' (known: R1 ... R13)");
            }
            bugs.add(found);
        }
        return bugs;
    }

    @FunctionalInterface
    private interface Build<T> {
        T build();
    }

    /** Runs a model constructor; its own message names the setting, prefixed here by the file's section. */
    private static <T> T withField(String section, Build<T> build) {
        try {
            return build.build();
        } catch (IllegalArgumentException e) {
            String message = e.getMessage() == null ? "invalid" : e.getMessage();
            throw new IllegalArgumentException(message.startsWith(section) ? message : section + ": " + message, e);
        }
    }

    private static long pageAligned(double gib) {
        long bytes = Math.round(gib * GIB);
        return Math.max(4096, bytes / 4096 * 4096);
    }

    private static double positive(String field, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + ": must be > 0, was " + value);
        }
        return value;
    }

    private static double nonNegative(String field, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + ": must be >= 0, was " + value);
        }
        return value;
    }

    private static <T> T or(T value, T fallback) {
        return value != null ? value : fallback;
    }

    // ---- charts and reference rows ------------------------------------------------------------

    public static final Set<String> CHART_TYPES = Set.of("line", "bar", "heatmap", "cdf", "timeseries");
    public static final List<String> SAMPLE_SERIES = List.of("l1UsedGiB", "leasedGiB", "storeQueueDepth", "running",
            "waiting", "prefetching", "inflightOps");

    private static void checkCharts(Experiment experiment) {
        List<ChartSection> charts = experiment.spec().charts() == null ? List.of() : experiment.spec().charts();
        Set<String> files = new LinkedHashSet<>();
        Set<String> parameters = experiment.points().isEmpty() ? Set.of() : experiment.points().getFirst().config().parameters().keySet();
        for (int i = 0; i < charts.size(); i++) {
            ChartSection chart = charts.get(i);
            String at = experiment.file() + ": charts[" + i + "]";
            if (chart == null || chart.type() == null || !CHART_TYPES.contains(chart.type())) {
                throw new CommandException(at + ".type: one of " + String.join(", ", CHART_TYPES.stream().sorted().toList()));
            }
            if (chart.file() == null || !NAME.matcher(chart.file()).matches()) {
                throw new CommandException(at + ".file: a base name of lower-case letters, digits and dashes (the chart is"
                        + " written as FILE.png and FILE.svg)");
            }
            if (!files.add(chart.file())) {
                throw new CommandException(at + ".file: '" + chart.file() + "' is used by an earlier chart");
            }
            switch (chart.type()) {
                case "line", "bar" -> {
                    requireParameter(at + ".x", chart.x(), parameters);
                    requireMetric(at + ".y", chart.y(), experiment.metricNames());
                }
                case "heatmap" -> {
                    requireParameter(at + ".x", chart.x(), parameters);
                    requireParameter(at + ".y", chart.y(), parameters);
                    requireMetric(at + ".z", chart.z(), experiment.metricNames());
                }
                case "cdf" -> {
                    if (chart.pass() == null || !experiment.passes().contains(chart.pass())) {
                        throw new CommandException(at + ".pass: the pass whose per-request TTFT to plot, one of "
                                + experiment.passes());
                    }
                }
                case "timeseries" -> {
                    if (chart.y() == null || !SAMPLE_SERIES.contains(chart.y())) {
                        throw new CommandException(at + ".y: one of " + String.join(", ", SAMPLE_SERIES));
                    }
                }
                default -> throw new IllegalStateException(chart.type());
            }
            if (chart.series() != null) {
                requireParameter(at + ".series", chart.series(), parameters);
            }
            if (chart.where() != null) {
                for (String key : chart.where().keySet()) {
                    requireParameter(at + ".where." + key, key, parameters);
                }
            }
        }
    }

    private static void checkReference(Experiment experiment) {
        if (experiment.spec().reference() == null || experiment.spec().reference().rows() == null) {
            return;
        }
        Set<String> parameters = experiment.points().isEmpty() ? Set.of() : experiment.points().getFirst().config().parameters().keySet();
        List<ReferenceRow> rows = experiment.spec().reference().rows();
        for (int i = 0; i < rows.size(); i++) {
            ReferenceRow row = rows.get(i);
            String at = experiment.file() + ": reference.rows[" + i + "]";
            if (row == null || row.label() == null || row.reference() == null) {
                throw new CommandException(at + ": a row has a label and the reference's figure");
            }
            if (row.metric() != null) {
                requireMetric(at + ".metric", row.metric(), experiment.metricNames());
            }
            if (row.where() != null) {
                for (String key : row.where().keySet()) {
                    requireParameter(at + ".where." + key, key, parameters);
                }
            }
        }
    }

    private static void requireParameter(String at, String name, Set<String> parameters) {
        if (name == null || !parameters.contains(name)) {
            throw new CommandException(at + ": " + (name == null ? "missing" : "unknown parameter '" + name + "'")
                    + " (parameters: " + String.join(", ", parameters) + ")");
        }
    }

    private static void requireMetric(String at, String name, List<String> metrics) {
        if (name == null || !metrics.contains(name)) {
            throw new CommandException(at + ": " + (name == null ? "missing" : "unknown metric '" + name + "'")
                    + " (metrics: " + String.join(", ", metrics) + ")");
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
