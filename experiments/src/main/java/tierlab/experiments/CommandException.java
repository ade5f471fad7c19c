package tierlab.experiments;

/**
 * A failure whose message is written for the person at the command line (it names the file, line
 * or option at fault). {@link Main} prints it as {@code tierlab: <message>} and exits with 1.
 */
public class CommandException extends RuntimeException {

    public CommandException(String message) {
        super(message);
    }

    public CommandException(String message, Throwable cause) {
        super(message, cause);
    }
}
