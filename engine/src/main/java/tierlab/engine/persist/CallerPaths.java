package tierlab.engine.persist;

import java.nio.file.Path;

/**
 * Resolves the relative paths a user typed against the folder the user typed them in. The
 * launcher changes to the repository root before starting the JVM (its build and classpath need
 * that), so the JVM's working folder is not the caller's: the launcher passes the caller's folder
 * as {@code -Dtierlab.callerDir}. Without it (tests, a plain {@code java} start) paths stay as given.
 */
public final class CallerPaths {

    /** The system property the launcher sets to the folder it was called from. */
    public static final String CALLER_DIR_PROPERTY = "tierlab.callerDir";

    private CallerPaths() {
    }

    /**
     * {@code path} as the caller meant it: unchanged when absolute, null, or when the caller's
     * folder is the working folder (so records keep the short relative name); else resolved
     * against the caller's folder.
     */
    public static Path resolve(Path path) {
        String callerDir = System.getProperty(CALLER_DIR_PROPERTY);
        if (path == null || path.isAbsolute() || callerDir == null || callerDir.isBlank()) {
            return path;
        }
        Path caller = Path.of(callerDir).toAbsolutePath().normalize();
        Path working = Path.of("").toAbsolutePath().normalize();
        return caller.equals(working) ? path : caller.resolve(path).normalize();
    }
}
