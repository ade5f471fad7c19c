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
}
