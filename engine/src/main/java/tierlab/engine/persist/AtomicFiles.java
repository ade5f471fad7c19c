package tierlab.engine.persist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Whole-file outputs that a reader never sees half written: the file is written beside its target
 * under a hidden temporary name, then renamed over it. Reports, CSVs, charts and device profiles
 * go through here. (The L2 index file has stricter needs — fsync and a rename that must be atomic —
 * and {@link IndexFile} does its own.)
 */
public final class AtomicFiles {

    /** Writes one file at the path it is given. */
    @FunctionalInterface
    public interface Writer {
        void write(Path file) throws IOException;
    }

    private AtomicFiles() {}

    /**
     * Lets {@code writer} write a temporary file beside {@code target}, then moves it over the target.
     * Where the file system cannot rename atomically the move is a plain replace; the temporary file
     * is removed if anything fails.
     */
    public static void write(Path target, Writer writer) throws IOException {
        Path temp = target.resolveSibling("." + target.getFileName() + ".tmp");
        try {
            writer.write(temp);
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** {@link #write} of a UTF-8 text. */
    public static void writeString(Path target, String text) throws IOException {
        write(target, file -> Files.writeString(file, text, StandardCharsets.UTF_8));
    }
}
