package tierlab.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Test directories on a file system that supports O_DIRECT. /tmp may be tmpfs elsewhere (no
 * O_DIRECT), so each candidate is probed by writing one aligned block with DIRECT; the module's
 * target/ directory comes first because it is on the same disk as the work tree.
 */
final class DirectIoDirectory {

    private static final Path ROOT = pick();

    private DirectIoDirectory() {}

    private static Path pick() {
        StringBuilder refused = new StringBuilder();
        for (Path candidate : List.of(Path.of("target", "l2-test-files"), Path.of(System.getProperty("java.io.tmpdir"), "tierlab-l2-test-files"))) {
            try {
                Files.createDirectories(candidate);
                Path probe = Files.createTempFile(candidate, "direct-probe-", ".bin");
                try (FileChannel channel = FileChannel.open(probe, StandardOpenOption.WRITE, DirectOpenOption.direct().orElseThrow(() -> new IOException("no DIRECT option in this JDK")))) {
                    ByteBuffer block = ByteBuffer.allocateDirect(8192).alignedSlice(4096).limit(4096);
                    channel.write(block, 0);
                    return candidate.toAbsolutePath();
                } finally {
                    Files.deleteIfExists(probe);
                }
            } catch (IOException | UnsupportedOperationException e) {
                refused.append(candidate).append(": ").append(e).append("; ");
            }
        }
        throw new IllegalStateException("no directory supports O_DIRECT: " + refused);
    }

    /** A fresh empty directory for one test. */
    static Path newDirectory() {
        try {
            return Files.createTempDirectory(ROOT, "case-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
