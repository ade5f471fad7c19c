package tierlab.experiments.run;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import tierlab.engine.live.WarmStart;
import tierlab.engine.persist.IndexFile;
import tierlab.engine.persist.L2FileLock;
import tierlab.engine.persist.L2Identity;
import tierlab.experiments.IoProblems;
import tierlab.model.store.StoreSettings;

/**
 * Whether a run may use the persistent L2 file its {@code store.l2File} names, decided before any
 * output is written, in one line naming the field and the file.
 *
 * <p>tierlab writes only into a file it creates, an empty file, or a file that carries its own
 * identity: the identity trailer for this geometry, or an index beside it ({@code FILE.index})
 * that names the identity the file's trailer holds for the index's geometry. Anything else that
 * exists (another program's data, the experiment file itself, a block device without tierlab's
 * identity) is refused unless {@code store.l2FileOverwrite: true} says to write over it; a
 * directory, a FIFO, a socket or a character device is refused always. The folder must exist,
 * the file (or the folder, for a new file) must be writable, the index's place must not be a
 * folder, and no other run may hold the file.
 */
final class L2FileCheck {

    /** S_IFMT and S_IFBLK of st_mode (sys/stat.h). */
    private static final int S_IFMT = 0170000;
    private static final int S_IFBLK = 0060000;

    private L2FileCheck() {}

    /**
     * Null when the run may use {@code l2File} (resolved from {@code typed}, the field as written),
     * else the one line that refuses it.
     */
    static String refusal(String typed, Path l2File, boolean overwrite, StoreSettings settings) {
        if (typed.isBlank()) {
            return "store.l2File: empty; name a file (relative to the experiment file's folder), or leave the field out "
                    + "for a scratch L2 file";
        }
        if (Files.isDirectory(l2File)) {
            return "store.l2File: " + l2File + " is a directory; name a file in it (for example " + l2File.resolve("l2.bin") + ")";
        }
        Path index = IndexFile.besideL2(l2File);
        if (Files.isDirectory(index)) {
            return "store.l2File: " + index + ", where the run keeps the L2 file's index, is a directory; remove it or "
                    + "name another store.l2File";
        }
        if (!Files.exists(l2File)) {
            return newFileRefusal(l2File);
        }
        String kind = kind(l2File);
        if (kind != null) {
            return "store.l2File: " + l2File + " is " + kind + ", not a regular file or a block device; tierlab does not write into it";
        }
        if (!overwrite && !tierlabsOwn(l2File, settings)) {
            return "store.l2File: " + l2File + " exists and is " + (isBlockDevice(l2File) ? "a block device" : "a file")
                    + " without tierlab's identity (no L2 identity trailer, no index beside it naming it); tierlab will not "
                    + "overwrite it: name another file, or set store.l2FileOverwrite: true to write over its contents";
        }
        try (FileChannel channel = FileChannel.open(l2File, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            // Opened and closed only to learn now that the run could write it (permissions, an immutable file, a read-only mount).
        } catch (IOException e) {
            return "store.l2File: " + l2File + " cannot be opened for writing: " + IoProblems.describe(e);
        }
        try (L2FileLock lock = L2FileLock.acquire(l2File)) {
            return null;
        } catch (L2FileLock.HeldException e) {
            return "store.l2File: " + e.getMessage();
        } catch (IOException e) {
            return "store.l2File: " + l2File + " cannot be locked: " + IoProblems.describe(e);
        }
    }

    private static String newFileRefusal(Path l2File) {
        Path folder = l2File.toAbsolutePath().getParent();
        if (folder == null || !Files.isDirectory(folder)) {
            return "store.l2File: the folder " + folder + " of " + l2File + " does not exist; create it, or name a file in "
                    + "an existing folder";
        }
        if (!Files.isWritable(folder)) {
            return "store.l2File: " + l2File + " cannot be created: the folder " + folder + " is not writable";
        }
        return null;
    }

    /** What a non-file, non-block-device path is ("a FIFO"), or null for a regular file or a block device. */
    private static String kind(Path path) {
        if (Files.isRegularFile(path) || isBlockDevice(path)) {
            return null;
        }
        int type = mode(path) & S_IFMT;
        return switch (type) {
            case 0010000 -> "a FIFO";
            case 0020000 -> "a character device";
            case 0140000 -> "a socket";
            default -> "not a regular file";
        };
    }

    private static boolean isBlockDevice(Path path) {
        return (mode(path) & S_IFMT) == S_IFBLK;
    }

    private static int mode(Path path) {
        try {
            return (Integer) Files.getAttribute(path, "unix:mode");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return 0;
        }
    }

    /** An empty file, or one whose identity this geometry's trailer or the index beside it shows. */
    private static boolean tierlabsOwn(Path l2File, StoreSettings settings) {
        try {
            if (Files.isRegularFile(l2File) && Files.size(l2File) == 0) {
                return true;
            }
        } catch (IOException e) {
            return false;
        }
        if (L2Identity.read(l2File, WarmStart.geometryOf(settings)) instanceof L2Identity.Present) {
            return true;
        }
        IndexFile.Loaded index = IndexFile.readForItsOwnGeometry(IndexFile.besideL2(l2File));
        return index != null && L2Identity.read(l2File, IndexFile.ExpectedGeometry.of(index.snapshot()))
                instanceof L2Identity.Present present && present.stamp().fileId().equals(index.contents().stamp().fileId());
    }
}
