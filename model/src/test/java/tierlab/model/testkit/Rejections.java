package tierlab.model.testkit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.function.Executable;

/**
 * Checks of the project's rule for bad input: a setting out of range is one
 * {@link IllegalArgumentException} whose message names the setting, never a bare failure deep
 * inside. Settings tests of every module use these.
 */
public final class Rejections {
    private Rejections() {}

    /** {@code construction} is refused with a message that names {@code setting} somewhere. */
    public static void assertRejectedNaming(String setting, Executable construction) {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, construction);
        assertTrue(error.getMessage().contains(setting), () -> "message names " + setting + ": " + error.getMessage());
    }

    /** {@code construction} is refused with a message that starts with {@code prefix} (the setting's name first). */
    public static void assertRejectedLeading(String prefix, Executable construction) {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, construction);
        assertTrue(error.getMessage().startsWith(prefix), () -> "message starts with " + prefix + ": " + error.getMessage());
    }
}
