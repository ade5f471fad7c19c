package tierlab.workload;

import java.nio.file.Path;

/**
 * A trace that cannot be used: missing, unreadable, empty, or (as {@link TraceFormatException}) a
 * line that is not what the format says. The message is written for the person who named the
 * file: it starts with the file and says what is wrong, on one line. The command line shows it
 * as it is and exits non-zero.
 */
public class TraceException extends IllegalArgumentException {

    private final Path file;

    public TraceException(Path file, String message) {
        super(message);
        this.file = file;
    }

    public TraceException(Path file, String message, Throwable cause) {
        super(message, cause);
        this.file = file;
    }

    /** The trace file, as it was named to the reader. */
    public Path file() {
        return file;
    }
}
