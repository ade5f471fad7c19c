package tierlab.bench;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import tierlab.engine.PinnedArena;

/**
 * The file the engine benchmark and the calibration sweep read and write, and the random bytes
 * their buffers hold. Every block of the file is written once, so reads hit allocated, written
 * blocks (ext4 answers reads of unwritten extents with zeros without touching the device); a stamp
 * beside the file records its size, so a later run on the same file skips the fill.
 */
public final class TestFile {

    private TestFile() {}

    /**
     * Makes {@code file} exactly {@code fileBytes} long and written everywhere with random bytes,
     * unless a stamp says an earlier run did so already.
     *
     * @return true if the file was reused as it was, false if it was written now
     */
    public static boolean prepare(Path file, long fileBytes, long seed) throws IOException {
        Path stamp = stampOf(file);
        if (Files.exists(file) && Files.size(file) == fileBytes && Files.exists(stamp)
                && Files.readString(stamp).strip().equals(Long.toString(fileBytes))) {
            return true;
        }
        Files.deleteIfExists(stamp);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        SplittableRandom random = new SplittableRandom(seed);
        byte[] chunk = new byte[4 << 20];
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (long offset = 0; offset < fileBytes; offset += chunk.length) {
                random.nextBytes(chunk);
                ByteBuffer buffer = ByteBuffer.wrap(chunk, 0, (int) Math.min(chunk.length, fileBytes - offset));
                while (buffer.hasRemaining()) {
                    channel.write(buffer, offset + buffer.position());
                }
            }
            // On disk before any O_DIRECT read: otherwise the first reads would race the page cache's writeback.
            channel.force(true);
        }
        Files.writeString(stamp, fileBytes + "\n");
        return false;
    }

    /** Deletes the file and its stamp. */
    public static void delete(Path file) throws IOException {
        Files.deleteIfExists(stampOf(file));
        Files.deleteIfExists(file);
    }

    /** Fills a pinned arena with seeded random bytes (what the writes of a benchmark carry). */
    public static void fillRandom(PinnedArena arena, long seed) {
        byte[] noise = new byte[1 << 16];
        SplittableRandom random = new SplittableRandom(seed);
        MemorySegment segment = arena.segment();
        for (long offset = 0; offset < arena.sizeBytes(); offset += noise.length) {
            random.nextBytes(noise);
            int length = (int) Math.min(noise.length, arena.sizeBytes() - offset);
            MemorySegment.copy(noise, 0, segment, ValueLayout.JAVA_BYTE, offset, length);
        }
    }

    /** The stamp beside {@code file} that records the size it was filled to. */
    static Path stampOf(Path file) {
        return file.resolveSibling(file.getFileName() + ".filled");
    }
}
