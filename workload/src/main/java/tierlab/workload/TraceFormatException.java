package tierlab.workload;

import java.nio.file.Path;

/** A trace line that is not what the format says; the message reads {@code FILE:LINE: what is wrong}. */
public final class TraceFormatException extends TraceException {

    private final long lineNumber;

    public TraceFormatException(Path file, long lineNumber, String problem) {
        super(file, file + ":" + lineNumber + ": " + problem);
        this.lineNumber = lineNumber;
    }

    /** The 1-based line number of the bad line. */
    public long lineNumber() {
        return lineNumber;
    }
}
