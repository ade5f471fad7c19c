package tierlab.experiments;

import java.nio.file.Path;

/** A trace line that is not what the format says; the message reads {@code FILE:LINE: what is wrong}. */
public final class TraceFormatException extends CommandException {

    private final Path file;
    private final long lineNumber;

    public TraceFormatException(Path file, long lineNumber, String problem) {
        super(file + ":" + lineNumber + ": " + problem);
        this.file = file;
        this.lineNumber = lineNumber;
    }

    public Path file() {
        return file;
    }

    /** The 1-based line number of the bad line. */
    public long lineNumber() {
        return lineNumber;
    }
}
