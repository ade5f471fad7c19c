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
        if (exception instanceof CommandException) {
            return oneLine(message);
        }
        String type = exception.getClass().getSimpleName();
        return message == null || message.isBlank() ? type : type + ": " + oneLine(message);
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
