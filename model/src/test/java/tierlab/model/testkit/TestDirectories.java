package tierlab.model.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Scratch directories for tests that put real files on disk (L2 files, calibration sweeps,
 * closed-loop runs). They go under the module's {@code target/}, not {@code /tmp}: /tmp is tmpfs
 * on some machines, and tmpfs refuses O_DIRECT.
 */
public final class TestDirectories {
    private TestDirectories() {}

    /** A fresh empty directory under the module's {@code target/}, named {@code prefix} and a unique suffix. */
    public static Path underTarget(String prefix) throws IOException {
        Path target = Files.createDirectories(Path.of("target"));
        return Files.createTempDirectory(target, prefix);
    }

    /** Deletes a directory and everything below it; a null or missing directory is nothing to do. */
    public static void deleteRecursively(Path directory) {
        if (directory == null || !Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
