package tierlab.engine;

import java.nio.file.OpenOption;
import java.util.Optional;

/**
 * The JDK's {@code com.sun.nio.file.ExtendedOpenOption.DIRECT} (O_DIRECT for FileChannel), looked
 * up by name: it lives in the jdk.unsupported module, which a JDK may leave out, and referring to
 * it statically draws a "proprietary API" warning that javac cannot suppress.
 */
final class DirectOpenOption {

    private static final Optional<OpenOption> DIRECT = lookUp();

    private DirectOpenOption() {}

    private static Optional<OpenOption> lookUp() {
        try {
            Class<?> options = Class.forName("com.sun.nio.file.ExtendedOpenOption");
            for (Object constant : options.getEnumConstants()) {
                if (constant instanceof OpenOption option && "DIRECT".equals(((Enum<?>) constant).name())) {
                    return Optional.of(option);
                }
            }
        } catch (ClassNotFoundException | LinkageError e) {
            // Not in this JDK: buffered I/O only.
        }
        return Optional.empty();
    }

    /** DIRECT, or empty when this JDK has no such option. */
    static Optional<OpenOption> direct() {
        return DIRECT;
    }
}
