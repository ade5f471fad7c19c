package tierlab.experiments.validate;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tierlab.experiments.CommandException;
import tierlab.experiments.calibration.HostCalibrationSettings;
import tierlab.experiments.run.ExperimentFile;
import tierlab.experiments.run.ExperimentLoader;
import tierlab.experiments.run.ExperimentParsing;
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
 * driveReplay: true          # replay each workload's simulated L2 operations on the drive before and after its live runs
 * workloads:
 *   e1-like: {role: tuned, workload: {...}, store: {...}, scheduler: {...}, sameInstantArrivalsTogether: true}
 *   # role: held-out (the default; the headline is computed over these) or tuned (a term was fitted or tuned on it)
 * </pre>
 *
 * <p>It is read as an experiment file is ({@link ExperimentParsing}): bound to {@link Spec} by the
 * same strict mapper, so an unknown field, a duplicate or a value of the wrong type is one line
 * naming the file, the line and the field; the ranges are checked after.
 */
public record ValidationFile(Path file, String name, String description, int repeats, long seed, String profile,
                             HostCalibrationSettings calibration, Live live, boolean driveReplay, Map<String, Workload> workloads) {

    /** A workload the host's terms were fitted or tuned on: reported, never in the headline. */
    public static final String TUNED = "tuned";
    /** A workload no term was fitted or tuned on: the headline is computed over these. */
    public static final String HELD_OUT = "held-out";
    static final List<String> ROLES = List.of(HELD_OUT, TUNED);

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

    /**
     * One workload: its name, its run configuration (resolved as a hybrid run: real L1/L2 limits,
     * closed loops allowed) and its role, {@link #HELD_OUT} or {@link #TUNED}.
     */
    public record Workload(String name, RunConfig config, String role) {
        public boolean heldOut() {
            return role.equals(HELD_OUT);
        }
    }

    /**
     * The file as written; every field optional unless {@link #load} says otherwise.
     *
     * @param workloads by name, in the file's order
     */
    public record Spec(String name, String description, Integer repeats, Long seed, String profile,
                       HostCalibrationSettings.Written calibration, ExperimentFile.LiveSection live, Boolean driveReplay,
                       Map<String, WorkloadEntry> workloads) {}

    /**
     * One workload: an experiment file's run fields, not its sweep, output or mode (validate runs
     * each one live and in the simulator). {@code sameInstantArrivalsTogether} is the simulator's
     * setting of that name (the live loop always hands arrivals over together).
     */
    public record WorkloadEntry(String description, String role, ExperimentFile.WorkloadSection workload, ExperimentFile.StoreSection store,
                                  ExperimentFile.SchedulerSection scheduler, Boolean sameInstantArrivalsTogether) {}

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

    /**
     * Reads and checks the whole file; {@code device} is the device profile every workload's
     * simulation uses (a fitted profile's absolute path, or a preset's name while only checking the
     * file). A bad field is one line naming it.
     */
    public static ValidationFile load(Path file, String device) {
        String text = read(file);
        Spec spec = bind(file, text);
        String name = spec.name() != null ? spec.name() : defaultName(file);
        if (!NAME.matcher(name).matches()) {
            throw new CommandException(file + ": name: '" + name + "' must be 1-64 lower-case letters, digits and dashes");
        }
        int repeats = (int) range(file, "repeats", spec.repeats(), 3, 1, 100);
        long seed = range(file, "seed", spec.seed(), 42, 0, Long.MAX_VALUE);
        if (spec.profile() != null && spec.profile().isBlank()) {
            throw new CommandException(file + ": profile: must be a non-empty text");
        }
        if (spec.workloads() == null || spec.workloads().isEmpty()) {
            throw new CommandException(file + ": workloads: give at least one workload, as a mapping NAME: {workload, store, scheduler}");
        }
        Map<String, Workload> resolved = new LinkedHashMap<>();
        spec.workloads().forEach((workload, section) -> resolved.put(workload,
                new Workload(workload, resolve(file, text, workload, section, device, seed), role(file, workload, section))));
        return new ValidationFile(file, name, spec.description() == null ? "" : spec.description(), repeats, seed,
                spec.profile(), calibration(file, spec.calibration()), live(file, spec.live()),
                spec.driveReplay() == null || spec.driveReplay(), java.util.Collections.unmodifiableMap(resolved));
    }

    /** The file's {@code profile}, resolved against its folder; null when the host is to be calibrated. */
    public static Path profileOf(Path file) {
        Spec spec = bind(file, read(file));
        if (spec.profile() == null) {
            return null;
        }
        Path profile = file.toAbsolutePath().normalize().getParent().resolve(spec.profile()).normalize();
        if (!Files.isRegularFile(profile)) {
            throw new CommandException(file + ": profile: no such profile file: " + profile
                    + " (paths are relative to the validation file's folder)");
        }
        return profile;
    }

    private static String read(Path file) {
        try {
            return tierlab.workload.TextFiles.readString(file);
        } catch (IOException e) {
            throw new CommandException(file + ": cannot read the validation file (" + CommandException.describe(e) + ")", e);
        }
    }

    private static Spec bind(Path file, String text) {
        ObjectMapper mapper = ExperimentParsing.mapperFor(file);
        Spec spec = ExperimentParsing.bind(file, text, null, () -> mapper.readValue(text, Spec.class));
        if (spec == null) {
            throw new CommandException(file + ": the validation file is empty");
        }
        return spec;
    }

    /** One workload as a run: hybrid is the mode whose checks fit (a real L1 and L2, their size limits). */
    private static RunConfig resolve(Path file, String text, String workload, WorkloadEntry section, String device, long seed) {
        String where = "workloads." + workload;
        if (!NAME.matcher(workload).matches()) {
            throw new CommandException(file + ": " + where + ": a workload name is 1-64 lower-case letters, digits and dashes");
        }
        if (section == null) {
            throw new CommandException(file + ": " + where + ": a workload is a mapping (workload, store, scheduler)");
        }
        ExperimentFile run = ExperimentFile.ofRun("hybrid", device, section.workload(), section.store(), section.scheduler(),
                section.sameInstantArrivalsTogether());
        RunConfig config = ExperimentLoader.resolveSection(file, text, where, run, seed);
        if (!config.baseline().equals(RunConfig.TIERED)) {
            throw new CommandException(file + ": " + where + ".store.baseline: validate compares the tiered store only");
        }
        return config;
    }

    private static String role(Path file, String workload, WorkloadEntry section) {
        String role = section == null || section.role() == null ? HELD_OUT : section.role();
        if (!ROLES.contains(role)) {
            throw new CommandException(file + ": workloads." + workload + ".role: unknown value '" + role + "' (known: "
                    + String.join(", ", ROLES) + ")");
        }
        return role;
    }

    private static HostCalibrationSettings calibration(Path file, HostCalibrationSettings.Written section) {
        HostCalibrationSettings d = HostCalibrationSettings.DEFAULTS;
        if (section == null) {
            return d;
        }
        List<Integer> sizes = ints(file, "blockSizesKiB", section.blockSizesKiB(), d.blockSizesKiB(), 4, 64 * 1024);
        for (int size : sizes) {
            if (size % 4 != 0) {
                // The sweep runs O_DIRECT: every transfer is whole 4 KiB pages.
                throw new CommandException(file + ": calibration.blockSizesKiB: " + size + " is not a multiple of 4");
            }
        }
        int sustainedMiB = (int) range(file, "calibration.sustainedMiB", section.sustainedMiB(), d.sustainedMiB(), 16, 64 * 1024);
        int sustainedBlockKiB = (int) range(file, "calibration.sustainedBlockKiB", section.sustainedBlockKiB(), d.sustainedBlockKiB(),
                0, 64 * 1024);
        if (sustainedBlockKiB % 4 != 0 || (long) sustainedBlockKiB > (long) sustainedMiB << 10) {
            throw new CommandException(file + ": calibration.sustainedBlockKiB: must be a multiple of 4 (0: the largest of"
                    + " blockSizesKiB) no larger than sustainedMiB, was " + sustainedBlockKiB);
        }
        return new HostCalibrationSettings(sizes,
                ints(file, "queueDepths", section.queueDepths(), d.queueDepths(), 1, 256),
                (int) range(file, "calibration.pointMs", section.pointMs(), d.pointMs(), 10, 10_000),
                (int) range(file, "calibration.fileMiB", section.fileMiB(), d.fileMiB(), 16, 16 * 1024),
                (int) range(file, "calibration.hostCostMs", section.hostCostMs(), d.hostCostMs(), 100, 60_000),
                (int) range(file, "calibration.sustainedMs", section.sustainedMs(), d.sustainedMs(), 0, 60_000),
                sustainedMiB, sustainedBlockKiB);
    }

    private static Live live(Path file, ExperimentFile.LiveSection section) {
        if (section == null) {
            return Live.DEFAULTS;
        }
        String gpu = section.gpu() == null ? Live.DEFAULTS.gpu() : section.gpu();
        if (!Live.GPUS.contains(gpu)) {
            throw new CommandException(file + ": live.gpu: unknown value '" + gpu + "' (known: " + String.join(", ", Live.GPUS) + ")");
        }
        return new Live(gpu, section.verify() == null ? Live.DEFAULTS.verify() : section.verify());
    }

    /** {@code value}, or {@code fallback} when absent; outside {@code min}..{@code max} it is one line naming the field. */
    private static long range(Path file, String field, Number value, long fallback, long min, long max) {
        if (value == null) {
            return fallback;
        }
        if (value.longValue() < min || value.longValue() > max) {
            throw new CommandException(file + ": " + field + ": must be a whole number from " + min + " to " + max + ", was " + value);
        }
        return value.longValue();
    }

    private static List<Integer> ints(Path file, String field, List<Integer> values, List<Integer> fallback, int min, int max) {
        if (values == null) {
            return fallback;
        }
        if (values.isEmpty() || values.stream().anyMatch(v -> v == null || v < min || v > max)) {
            throw new CommandException(file + ": calibration." + field + ": a list of whole numbers from " + min + " to " + max
                    + ", was " + values);
        }
        return List.copyOf(values);
    }

    private static String defaultName(Path file) {
        String base = file.getFileName().toString().replaceFirst("\\.(ya?ml|json)$", "");
        return base.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
    }
}
