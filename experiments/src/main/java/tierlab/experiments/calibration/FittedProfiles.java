package tierlab.experiments.calibration;

import java.io.IOException;
import java.nio.file.Path;
import tierlab.engine.persist.AtomicFiles;
import tierlab.sim.device.DeviceProfile;

/**
 * Writes a fitted device profile as a file an experiment can name. It lives with the fitting, not
 * with {@link DeviceProfile}: the simulator only reads profiles, and writing one atomically needs the
 * engine's {@link AtomicFiles}, which the simulator's device package must not reach.
 */
public final class FittedProfiles {

    private FittedProfiles() {
    }

    /**
     * Writes {@link DeviceProfile#toYaml} to {@code file}: beside it first, then renamed over, so a
     * reader never sees half a file. {@code headerComment} says where the numbers came from.
     */
    public static void save(DeviceProfile profile, Path file, String headerComment) throws IOException {
        AtomicFiles.writeString(file, profile.toYaml(headerComment));
    }
}
