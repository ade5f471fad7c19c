package tierlab.experiments.validate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tierlab.experiments.CommandException;
import tierlab.experiments.calibration.HostCalibrationSettings;
import tierlab.experiments.run.ExperimentLoader;
import tierlab.experiments.run.RunConfig;

/**
 * A validation file ({@code tierlab validate FILE}): how to calibrate this host, how often to repeat
 * each live run, and the workloads, each written exactly as an experiment file's top level
 * (workload, store, scheduler; no sweep, no mode, no device: validate runs each one live and in
 * the simulator on the host's fitted profile). docs/validation.md describes the fields.
 *
 * <pre>
 * name: validation
 * repeats: 3                 # live runs per workload (at least 1; 3 or more for a spread)
 * seed: 42
 * profile: fitted.yaml       # optional: an existing fitted profile instead of calibrating now
 * calibration:               # optional: the NVMe sweep's grid and the host-cost benchmarks' budget
 *   blockSizesKiB: [256, 1024, 2304]
 *   queueDepths: [1, 4, 16]
 *   pointMs: 200
 *   fileMiB: 1024
 *   hostCostMs: 1500
 *   sustainedMs: 3000         # sequential writes, then reads, this long each (0: none)
 *   sustainedMiB: 4096        # on a file this large
 *   sustainedBlockKiB: 0      # at this size (0: the largest blockSizesKiB) and the deepest queue depth
 * live:                      # optional: the live runs' GPU side, as in an experiment file
 *   gpu: auto                # auto | cuda | host
 *   verify: true             # with CUDA: every load checked on the GPU side
 * workloads:
 *   e1-like: {workload: {...}, store: {...}, scheduler: {...}}
 * </pre>
 */
public record ValidationFile(Path file, String name, String description, int repeats, long seed, String profile,
                             HostCalibrationSettings calibration, Live live, Map<String, Workload> workloads) {

    /**
     * The live runs' GPU side, as {@code live} in an experiment file means it: {@code gpu} is
     * {@code auto} (CUDA where there is a usable device, else host buffers), {@code cuda} (refused
     * where there is none) or {@code host}; {@code verify} has every load checked on the GPU side.
     */
    public record Live(String gpu, boolean verify) {
        static final Live DEFAULTS = new Live(RunConfig.GPU_AUTO, true);
        /** The values of {@code gpu}, in the order the error line lists them. */
        public static final List<String> GPUS = List.of(RunConfig.GPU_AUTO, RunConfig.GPU_CUDA, RunConfig.GPU_HOST);
    }

    /** One workload: its name and its run configuration (resolved as a hybrid run: real L1/L2 limits, closed loops allowed). */
    public record Workload(String name, RunConfig config) {}

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    private static final List<String> TOP_FIELDS = List.of("name", "description", "repeats", "seed", "profile", "calibration",
            "live", "workloads");
    private static final List<String> LIVE_FIELDS = List.of("gpu", "verify");
    private static final List<String> CALIBRATION_FIELDS = List.of("blockSizesKiB", "queueDepths", "pointMs", "fileMiB",
            "hostCostMs", "sustainedMs", "sustainedMiB", "sustainedBlockKiB");
    /** What a workload may say: the experiment file's run fields, not its sweep, output or mode. */
    private static final List<String> WORKLOAD_FIELDS = List.of("workload", "store", "scheduler", "description");

    /**
     * Reads and checks the whole file; {@code device} is the device profile every workload's
     * simulation uses (a fitted profile's absolute path, or a preset's name while only checking the
     * file). A bad field is one line naming it.
     */
    public static ValidationFile load(Path file, String device) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CommandException(file + ": cannot read the validation file (" + CommandException.describe(e) + ")", e);
        }
        JsonNode tree = tree(file, text);
        if (!(tree instanceof ObjectNode root)) {
            throw new CommandException(file + ": a validation file is a mapping of fields (" + String.join(", ", TOP_FIELDS) + ")");
        }
        onlyKnown(file, "", root, TOP_FIELDS);
        String name = text(file, root, "name", defaultName(file));
        if (!NAME.matcher(name).matches()) {
            throw new CommandException(file + ": name: '" + name + "' must be 1-64 lower-case letters, digits and dashes");
        }
        int repeats = (int) number(file, root, "repeats", 3, 1, 100);
        long seed = number(file, root, "seed", 42, 0, Long.MAX_VALUE);
        String profile = root.has("profile") ? text(file, root, "profile", null) : null;
        HostCalibrationSettings calibration = calibration(file, root.get("calibration"));
        Live live = live(file, root.get("live"));
        JsonNode workloadsNode = root.get("workloads");
        if (!(workloadsNode instanceof ObjectNode workloads) || workloads.isEmpty()) {
            throw new CommandException(file + ": workloads: give at least one workload, as a mapping NAME: {workload, store, scheduler}");
        }
        Map<String, Workload> resolved = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = workloads.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            String where = "workloads." + entry.getKey();
            if (!NAME.matcher(entry.getKey()).matches()) {
                throw new CommandException(file + ": " + where + ": a workload name is 1-64 lower-case letters, digits and dashes");
            }
            if (!(entry.getValue() instanceof ObjectNode section)) {
                throw new CommandException(file + ": " + where + ": a workload is a mapping (workload, store, scheduler)");
            }
            onlyKnown(file, where + ".", section, WORKLOAD_FIELDS);
            ObjectNode run = section.deepCopy();
            run.remove("description");
            // Hybrid is the mode whose checks fit: a real L1 and L2 (their size limits), and a closed-loop client.
            run.set("mode", TextNode.valueOf("hybrid"));
            run.set("device", TextNode.valueOf(device));
            RunConfig config = ExperimentLoader.resolveSection(file, text, where, run, seed);
            if (!config.baseline().equals(RunConfig.TIERED)) {
                throw new CommandException(file + ": " + where + ".store.baseline: validate compares the tiered store only");
            }
            resolved.put(entry.getKey(), new Workload(entry.getKey(), config));
        }
        return new ValidationFile(file, name, root.has("description") ? root.get("description").asText() : "", repeats, seed,
                profile, calibration, live, java.util.Collections.unmodifiableMap(resolved));
    }

    /** The file's {@code profile}, resolved against its folder; null when the host is to be calibrated. */
    public static Path profileOf(Path file) {
        JsonNode tree = tree(file, readQuietly(file));
        if (tree instanceof ObjectNode root && root.has("profile")) {
            Path profile = file.toAbsolutePath().normalize().getParent().resolve(text(file, root, "profile", null)).normalize();
            if (!Files.isRegularFile(profile)) {
                throw new CommandException(file + ": profile: no such profile file: " + profile
                        + " (paths are relative to the validation file's folder)");
            }
            return profile;
        }
        return null;
    }

    /** The file's calibration settings (checked), without resolving the workloads. */
    public static HostCalibrationSettings calibrationOf(Path file) {
        JsonNode tree = tree(file, readQuietly(file));
        return tree instanceof ObjectNode root ? calibration(file, root.get("calibration")) : HostCalibrationSettings.DEFAULTS;
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CommandException(file + ": cannot read the validation file (" + CommandException.describe(e) + ")", e);
        }
    }

    private static JsonNode tree(Path file, String text) {
        String lower = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        ObjectMapper mapper = lower.endsWith(".json") ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
        mapper.enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
        try {
            return mapper.readTree(text);
        } catch (JsonProcessingException e) {
            var location = e.getLocation();
            throw new CommandException(file + (location == null ? "" : ":" + location.getLineNr()) + ": "
                    + CommandException.oneLine(e.getOriginalMessage()), e);
        }
    }

    /** A mapping section of the file with only {@code fields} in it, or null when it is absent. */
    private static ObjectNode section(Path file, JsonNode node, String name, List<String> fields) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!(node instanceof ObjectNode section)) {
            throw new CommandException(file + ": " + name + ": a mapping of " + String.join(", ", fields));
        }
        onlyKnown(file, name + ".", section, fields);
        return section;
    }

    private static HostCalibrationSettings calibration(Path file, JsonNode node) {
        ObjectNode section = section(file, node, "calibration", CALIBRATION_FIELDS);
        if (section == null) {
            return HostCalibrationSettings.DEFAULTS;
        }
        HostCalibrationSettings d = HostCalibrationSettings.DEFAULTS;
        List<Integer> sizes = ints(file, section, "blockSizesKiB", d.blockSizesKiB(), 4, 64 * 1024);
        for (int size : sizes) {
            if (size % 4 != 0) {
                // The sweep runs O_DIRECT: every transfer is whole 4 KiB pages.
                throw new CommandException(file + ": calibration.blockSizesKiB: " + size + " is not a multiple of 4");
            }
        }
        int sustainedMiB = (int) number(file, section, "sustainedMiB", d.sustainedMiB(), 16, 64 * 1024);
        int sustainedBlockKiB = (int) number(file, section, "sustainedBlockKiB", d.sustainedBlockKiB(), 0, 64 * 1024);
        if (sustainedBlockKiB % 4 != 0 || (long) sustainedBlockKiB > (long) sustainedMiB << 10) {
            throw new CommandException(file + ": calibration.sustainedBlockKiB: must be a multiple of 4 (0: the largest of"
                    + " blockSizesKiB) no larger than sustainedMiB, was " + sustainedBlockKiB);
        }
        return new HostCalibrationSettings(sizes,
                ints(file, section, "queueDepths", d.queueDepths(), 1, 256),
                (int) number(file, section, "pointMs", d.pointMs(), 10, 10_000),
                (int) number(file, section, "fileMiB", d.fileMiB(), 16, 16 * 1024),
                (int) number(file, section, "hostCostMs", d.hostCostMs(), 100, 60_000),
                (int) number(file, section, "sustainedMs", d.sustainedMs(), 0, 60_000),
                sustainedMiB, sustainedBlockKiB);
    }

    private static Live live(Path file, JsonNode node) {
        ObjectNode section = section(file, node, "live", LIVE_FIELDS);
        if (section == null) {
            return Live.DEFAULTS;
        }
        String gpu = Live.DEFAULTS.gpu();
        JsonNode gpuNode = section.get("gpu");
        if (gpuNode != null && !gpuNode.isNull()) {
            if (!gpuNode.isTextual() || !Live.GPUS.contains(gpuNode.asText())) {
                throw new CommandException(file + ": live.gpu: unknown value " + gpuNode + " (known: " + String.join(", ", Live.GPUS) + ")");
            }
            gpu = gpuNode.asText();
        }
        boolean verify = Live.DEFAULTS.verify();
        JsonNode verifyNode = section.get("verify");
        if (verifyNode != null && !verifyNode.isNull()) {
            if (!verifyNode.isBoolean()) {
                throw new CommandException(file + ": live.verify: must be true or false, was " + verifyNode);
            }
            verify = verifyNode.asBoolean();
        }
        return new Live(gpu, verify);
    }

    private static void onlyKnown(Path file, String prefix, ObjectNode node, List<String> known) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String field = names.next();
            if (!known.contains(field)) {
                throw new CommandException(file + ": " + prefix + field + ": unknown field (known: " + String.join(", ", known) + ")");
            }
        }
    }

    private static String text(Path file, ObjectNode node, String field, String fallback) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isTextual() || value.asText().isBlank()) {
            throw new CommandException(file + ": " + field + ": must be a non-empty text, was " + value);
        }
        return value.asText();
    }

    private static long number(Path file, ObjectNode node, String field, long fallback, long min, long max) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isIntegralNumber() || value.asLong() < min || value.asLong() > max) {
            throw new CommandException(file + ": " + field + ": must be a whole number from " + min + " to " + max + ", was " + value);
        }
        return value.asLong();
    }

    private static List<Integer> ints(Path file, ObjectNode node, String field, List<Integer> fallback, int min, int max) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return fallback;
        }
        List<Integer> values = new ArrayList<>();
        if (value.isArray()) {
            for (JsonNode item : value) {
                if (!item.isIntegralNumber() || item.asLong() < min || item.asLong() > max) {
                    values = null;
                    break;
                }
                values.add(item.asInt());
            }
        }
        if (values == null || values.isEmpty()) {
            throw new CommandException(file + ": calibration." + field + ": a list of whole numbers from " + min + " to " + max
                    + ", was " + value);
        }
        return List.copyOf(values);
    }

    private static String defaultName(Path file) {
        String base = file.getFileName().toString().replaceFirst("\\.(ya?ml|json)$", "");
        return base.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
    }
}
