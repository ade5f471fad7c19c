package tierlab.experiments;

/**
 * A failure whose message is written for the person at the command line (it names the file, line
 * or option at fault). The command line ({@code tierlab.experiments.cli.Main}) prints it as
 * {@code tierlab: <message>} and exits with 1.
 */
public class CommandException extends RuntimeException {

    public CommandException(String message) {
        super(message);
    }

    public CommandException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The message to show for an exception: a {@link CommandException} was written for the user
     * and is shown as it is; anything else is unexpected, so its type is shown too.
     */
    public static String describe(Throwable exception) {
        String message = exception.getMessage();
        // A TraceException's message is written for the user too (file, line, what is wrong); the
        // trace reader lives in sim/ and cannot throw this module's CommandException.
        if (exception instanceof CommandException || exception instanceof tierlab.workload.TraceException) {
            return oneLine(message);
        }
        // A file that could not be read or written: the file and the cause in words (ENOSPC → "no space
        // left on device"), not the JDK's exception name.
        Throwable io = exception instanceof java.io.UncheckedIOException unchecked ? unchecked.getCause() : exception;
        if (io instanceof java.nio.file.FileSystemException fileProblem && fileProblem.getFile() != null) {
            return fileProblem.getFile() + ": " + IoProblems.describe(fileProblem);
        }
        if (io instanceof java.io.IOException) {
            return IoProblems.describe(io);
        }
        String type = exception.getClass().getSimpleName();
        return message == null || message.isBlank() ? type : type + ": " + oneLine(message);
    }

    /**
     * True when {@code exception} is the user's or the machine's problem, told in one line: a
     * {@link CommandException} or a trace's {@code TraceException} (written for the user), or an
     * input/output failure, also one that a library wrapped (a file that cannot be read or
     * written, a full disk). Anything else is a defect in tierlab, whose stack trace is kept.
     */
    public static boolean isUserError(Throwable exception) {
        if (exception instanceof CommandException || exception instanceof tierlab.workload.TraceException) {
            return true;
        }
        for (Throwable cause = exception; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof java.io.IOException) {
                return true;
            }
        }
        return false;
    }

    /** {@code text} on one line: a message for stderr never spans several. */
    public static String oneLine(String text) {
        return text == null ? "" : text.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /**
     * One line for a failure the run survives (a chart that could not be drawn): the exception's
     * class and message, and its root cause's when different, since a rendering failure's useful
     * part ("Fontconfig head is null") is usually the innermost.
     */
    public static String withRootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        if (root != e) {
            text += " (cause: " + root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage()) + ")";
        }
        return text.replace('\n', ' ').strip();
    }
}
