package tierlab.experiments;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Checks, before any run starts, that an output folder can be created and written and that its
 * file system has room: a read-only mount, a path below a file or a full disk is one line in well
 * under a second, not a failure found after every run has finished. The check writes and deletes
 * one empty probe file in the deepest folder that exists on the way to the output's parent.
 */
public final class OutputFolderCheck {

    /** Room every output needs beyond its scratch files: tables, charts and report of a typical experiment. */
    public static final long OUTPUT_RESERVE_BYTES = 16L << 20;

    private OutputFolderCheck() {
    }

    /**
     * Throws a {@link CommandException} naming {@code target} and the cause unless its parent can be
     * created and written and its file system has at least {@code neededBytes} free.
     *
     * @param neededWhy what the bytes are for, for the message ("2 hybrid runs at a time, ...")
     */
    public static void check(Path target, long neededBytes, String neededWhy) {
        Path absolute = target.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        if (parent == null) {
            return; // AtomicOutputDirectory refuses a file-system root with its own line
        }
        Path existing = parent;
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            throw new CommandException("output folder " + target + " cannot be created: no folder on its path exists");
        }
        if (!Files.isDirectory(existing)) {
            throw new CommandException("output folder " + target + " cannot be created: " + existing
                    + " is a file, not a folder");
        }
        try {
            Path probe = Files.createTempFile(existing, ".tierlab-write-probe-", ".tmp");
            Files.delete(probe);
        } catch (IOException e) {
            throw new CommandException("output folder " + target + " cannot be written: " + existing + ": "
                    + IoProblems.describe(e), e);
        }
        long freeBytes;
        try {
            freeBytes = Files.getFileStore(existing).getUsableSpace();
        } catch (IOException e) {
            return; // a file system that cannot say its free space: the writes will tell
        }
        if (freeBytes < neededBytes) {
            throw new CommandException(String.format(Locale.ROOT,
                    "output folder %s: not enough free space on its file system (%s free at %s, about %s needed: %s)",
                    target, size(freeBytes), existing, size(neededBytes), neededWhy));
        }
    }

    /** Bytes in the largest unit that keeps a whole part (KiB, MiB, GiB). */
    public static String size(long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
        }
        if (bytes >= 1L << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
        }
        return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }
}
