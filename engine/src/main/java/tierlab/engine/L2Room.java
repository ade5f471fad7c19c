package tierlab.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Whether the file system under an L2 file has room to extend it, asked before the file is
 * preallocated: a disk that cannot take the file refuses the run in one line naming both sizes,
 * instead of a fallocate that fails after the file was created (and left empty).
 */
final class L2Room {

    private L2Room() {}

    /**
     * @throws IOException when the file system of {@code path} (which exists) has less usable space
     *                     than {@code targetBytes - currentBytes}; a file system that cannot say its
     *                     free space passes (the preallocation itself will tell)
     */
    static void check(Path path, long currentBytes, long targetBytes) throws IOException {
        long more = targetBytes - currentBytes;
        if (more <= 0) {
            return;
        }
        long free;
        try {
            free = Files.getFileStore(path).getUsableSpace();
        } catch (IOException e) {
            return;
        }
        if (free < more) {
            throw new IOException("the file system of " + path + " has " + mib(free) + " free, and the L2 file needs "
                    + mib(more) + " more to reach its " + mib(targetBytes) + " (lower store.l2CapacityGiB or free space)");
        }
    }

    /** Removes {@code path} when this open created it: a failed open leaves no empty file behind. */
    static void deleteIfCreated(Path path, boolean existedBefore) {
        if (existedBefore) {
            return;
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // The open already failed and says why; an undeletable leftover changes nothing about that.
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%,.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
