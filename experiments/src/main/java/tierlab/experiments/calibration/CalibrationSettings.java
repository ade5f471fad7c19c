package tierlab.experiments.calibration;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tierlab.bench.BenchCase;

/**
 * The settings of experiment E5 (calibration). Each check names the field it rejects, as
 * {@code calibration.<field>}.
 *
 * @param file             the O_DIRECT test file the sweep reads and writes (created and filled if needed)
 * @param fileBytes        its size; random offsets spread over all of it
 * @param accesses         fio's names of the access patterns: {@code randread, randwrite, read, write}
 * @param blockSizesBytes  bytes per operation (multiples of 4096)
 * @param queueDepths      operations kept in flight
 * @param secondsPerPoint  how long each point runs, per repeat
 * @param repeats          interleaved passes over the grid; each point's figures are medians over them
 * @param backend          {@code io_uring}, {@code filechannel} or {@code best} (io_uring where the kernel allows it)
 * @param baseProfile      the bundled device profile whose PCIe, GPU and host parts the fitted profile keeps
 * @param profileName      the {@code name:} of the fitted profile
 * @param deleteFileAfter  delete the test file when the sweep is done (keep it to skip the fill next time)
 * @param seed             seeds the random offsets
 */
public record CalibrationSettings(Path file, long fileBytes, List<String> accesses, List<Integer> blockSizesBytes,
                                  List<Integer> queueDepths, double secondsPerPoint, int repeats, String backend,
                                  String baseProfile, String profileName, boolean deleteFileAfter, long seed) {

    public static final List<String> ACCESS_NAMES = List.of("randread", "randwrite", "read", "write");
    public static final List<String> BACKEND_NAMES = List.of("io_uring", "filechannel", "best");

    public CalibrationSettings {
        if (file == null) {
            throw new IllegalArgumentException("calibration.file must be set");
        }
        if (accesses == null || accesses.isEmpty()) {
            throw new IllegalArgumentException("calibration.accesses must name at least one of " + ACCESS_NAMES);
        }
        for (String access : accesses) {
            if (!ACCESS_NAMES.contains(access)) {
                throw new IllegalArgumentException("calibration.accesses: '" + access + "' is not one of " + ACCESS_NAMES);
            }
        }
        accesses = List.copyOf(accesses);
        if (!(secondsPerPoint >= 0.01 && secondsPerPoint <= 3600)) {
            throw new IllegalArgumentException("calibration.secondsPerPoint must lie between 0.01 and 3600, was " + secondsPerPoint);
        }
        if (backend == null || !BACKEND_NAMES.contains(backend)) {
            throw new IllegalArgumentException("calibration.backend must be one of " + BACKEND_NAMES + ", was '" + backend + "'");
        }
        if (baseProfile == null || baseProfile.isBlank()) {
            throw new IllegalArgumentException("calibration.baseProfile must name a bundled device profile");
        }
        if (profileName == null || profileName.isBlank()) {
            throw new IllegalArgumentException("calibration.profileName must be set");
        }
        try {
            // The grid's own checks (sizes, depths, repeats), reported under this record's field names.
            toSweep(file, fileBytes, accesses, blockSizesBytes, queueDepths, secondsPerPoint, repeats, backend, seed);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException(String.valueOf(e.getMessage()).replace("sweep.", "calibration."), e);
        }
        blockSizesBytes = List.copyOf(blockSizesBytes);
        queueDepths = List.copyOf(queueDepths);
    }

    /**
     * The E5 grid: four patterns × 4 KiB–2 MiB × QD 1, 4, 16, 64 (112 points), 0.5 s per point,
     * three interleaved repeats, a 1 GiB file: about three minutes of measuring.
     */
    public static CalibrationSettings defaults(Path file) {
        return new CalibrationSettings(file, 1L << 30, ACCESS_NAMES, SweepSettings.DEFAULT_BLOCK_SIZES_BYTES,
                SweepSettings.DEFAULT_QUEUE_DEPTHS, 0.5, 3, "best", "qwen3-8b-h100", "calibrated-" + hostName(),
                true, 20_261_130L);
    }

    /**
     * {@code --quick}: 4 patterns × 2 sizes × 2 depths, 50 ms each, one pass, a 16 MiB file: a second or two.
     * The sizes are 4 KiB and 1 MiB: with 50 ms per point on a busy host, 4 KiB against 256 KiB could
     * time a larger write as no slower than a small one, and the fit then refuses a negative per-byte cost.
     */
    public static CalibrationSettings quick(Path file) {
        return new CalibrationSettings(file, 16L << 20, ACCESS_NAMES, List.of(4 << 10, 1 << 20), List.of(1, 8), 0.05, 1,
                "best", "qwen3-8b-h100", "calibrated-" + hostName(), true, 20_261_130L);
    }

    public CalibrationSettings withTiming(double newSecondsPerPoint, int newRepeats) {
        return new CalibrationSettings(file, fileBytes, accesses, blockSizesBytes, queueDepths, newSecondsPerPoint, newRepeats,
                backend, baseProfile, profileName, deleteFileAfter, seed);
    }

    public CalibrationSettings withGrid(List<Integer> newBlockSizesBytes, List<Integer> newQueueDepths) {
        return new CalibrationSettings(file, fileBytes, accesses, newBlockSizesBytes, newQueueDepths, secondsPerPoint, repeats,
                backend, baseProfile, profileName, deleteFileAfter, seed);
    }

    public CalibrationSettings withFile(Path newFile, long newFileBytes) {
        return new CalibrationSettings(newFile, newFileBytes, accesses, blockSizesBytes, queueDepths, secondsPerPoint, repeats,
                backend, baseProfile, profileName, deleteFileAfter, seed);
    }

    public CalibrationSettings withBackend(String newBackend) {
        return new CalibrationSettings(file, fileBytes, accesses, blockSizesBytes, queueDepths, secondsPerPoint, repeats,
                newBackend, baseProfile, profileName, deleteFileAfter, seed);
    }

    public CalibrationSettings withProfileName(String newProfileName) {
        return new CalibrationSettings(file, fileBytes, accesses, blockSizesBytes, queueDepths, secondsPerPoint, repeats,
                backend, baseProfile, newProfileName, deleteFileAfter, seed);
    }

    public CalibrationSettings withDeleteFileAfter(boolean newDeleteFileAfter) {
        return new CalibrationSettings(file, fileBytes, accesses, blockSizesBytes, queueDepths, secondsPerPoint, repeats,
                backend, baseProfile, profileName, newDeleteFileAfter, seed);
    }

    /** The engine's sweep settings for this experiment. */
    public SweepSettings toSweep() {
        return toSweep(file, fileBytes, accesses, blockSizesBytes, queueDepths, secondsPerPoint, repeats, backend, seed);
    }

    private static SweepSettings toSweep(Path file, long fileBytes, List<String> accesses, List<Integer> blockSizesBytes,
                                         List<Integer> queueDepths, double secondsPerPoint, int repeats, String backend, long seed) {
        List<BenchCase.Access> patterns = new ArrayList<>();
        for (String name : accesses) {
            for (BenchCase.Access access : BenchCase.Access.values()) {
                if (access.fioRw().equals(name)) {
                    patterns.add(access);
                }
            }
        }
        SweepSettings.Backend port = switch (backend) {
            case "io_uring" -> SweepSettings.Backend.IO_URING;
            case "filechannel" -> SweepSettings.Backend.FILE_CHANNEL;
            default -> SweepSettings.Backend.BEST;
        };
        return new SweepSettings(file, fileBytes, patterns, blockSizesBytes, queueDepths,
                Duration.ofNanos(Math.round(secondsPerPoint * 1e9)), repeats, port, seed);
    }

    /** The fitted profile's default name carries the machine's, so files from several hosts do not collide. */
    static String hostName() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException e) {
                host = "localhost";
            }
        }
        return host.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
    }
}
