package tierlab.workload;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one check of a path named as a trace, whatever its format: every reader and the experiment file's
 * {@code workload.trace} ask it, so a folder, a missing path or a device are told apart the same way
 * everywhere instead of all reading "no such file".
 */
public final class TraceFiles {

    private TraceFiles() {
    }

    /**
     * What stops {@code file} from being read as a trace, in words ("no such file", "is a directory",
     * "is not a regular file"), or null when it is a regular file. Links are followed, as a read would.
     */
    public static String problem(Path file) {
        if (Files.isDirectory(file)) {
            return "is a directory";
        }
        if (!Files.exists(file)) {
            return "no such file";
        }
        if (!Files.isRegularFile(file)) {
            return "is not a regular file";
        }
        return null;
    }

    /** Refuses a path {@link #problem} finds wrong with one line naming it, as a {@link TraceException}. */
    static void checkReadable(Path file) {
        String problem = problem(file);
        if (problem != null) {
            String where = file.isAbsolute() ? "" : " (looked at " + file.toAbsolutePath().normalize() + ")";
            throw new TraceException(file, "trace file " + file + ": " + problem + where);
        }
    }
}
