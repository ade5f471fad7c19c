package tierlab.engine.live;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import tierlab.engine.persist.IndexFile;
import tierlab.engine.persist.L2Identity;
import tierlab.engine.persist.UnitChecksums;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * L2 index persistence for live mode: on clean shutdown the store's index snapshot is written
 * beside the L2 file, and at start it is loaded so a restart keeps the L2 cache.
 *
 * <p>An index is trusted only if it provably describes the L2 file beside it as that file is now:
 * it must be whole and for this geometry ({@link IndexFile}), name the identity and the writing
 * session in the L2 file's trailer ({@link L2Identity}: another file, a replaced file, or a file a
 * later run started rewriting do not match), and every unit it keeps must still have the checksum
 * recorded at save ({@link UnitChecksums}). Anything else starts cold with one sentence saying
 * why; the L2 file's old bytes are then unreachable until the ring reuses them. Never wrong bytes.
 *
 * <p>{@link #open} also starts this run's writing session (a new session in the trailer, fsync'd)
 * before it returns, so every earlier index is stale before the run's first L2 write: a run that
 * crashes can never leave an index that is accepted. Open the storage port (which creates and
 * sizes the L2 file) first, then call {@link #open}, then start the runtime.
 *
 * <p>One process at a time: {@link #open} takes an exclusive lock on {@code <l2>.lock} beside the
 * file (a separate file, since closing any channel of the L2 file itself would drop a POSIX lock)
 * and {@link Opened#close} releases it. A second run on the same file is refused with one line
 * instead of rewriting units the first one is serving.
 */
public final class WarmStart {

    /**
     * The store to run with and how it was obtained.
     *
     * @param stamp this run's writing session, which {@link #saveOnShutdown} names; null when the
     *              session could not be started (then the run is cold and no index is saved)
     */
    public record Opened(TieredStore store, boolean warm, String message, L2Identity.Stamp stamp, FileChannel lock)
            implements AutoCloseable {
        /** Releases the lock on the L2 file; call it after {@link #saveOnShutdown} (or instead, on a failure). */
        @Override
        public void close() throws IOException {
            lock.close();
        }
    }

    private WarmStart() {}

    /** The geometry an index and the identity trailer are laid out for. */
    static IndexFile.ExpectedGeometry geometryOf(StoreSettings settings) {
        return new IndexFile.ExpectedGeometry(Math.toIntExact(settings.slotCount()), settings.geometry().laneBytes(),
                settings.geometry().tp());
    }

    /**
     * Opens the store for a run on the L2 file at {@code l2Path}: warm from its index when the index
     * is valid (see the class comment), cold otherwise; then marks the index stale (a new session).
     *
     * @throws IOException only when the session cannot be started and the stale index cannot be
     *                     removed either: running would leave an index that could later be trusted
     */
    public static Opened open(StoreSettings settings, Path l2Path, DecisionTrace trace) throws IOException {
        FileChannel lock = lock(l2Path);
        try {
            return open(settings, l2Path, trace, lock);
        } catch (IOException | RuntimeException | Error e) {
            lock.close();
            throw e;
        }
    }

    /** The lock file beside the L2 file that one process at a time holds. */
    public static Path lockPath(Path l2Path) {
        Path absolute = l2Path.toAbsolutePath();
        return absolute.resolveSibling(absolute.getFileName() + ".lock");
    }

    private static FileChannel lock(Path l2Path) throws IOException {
        Path lockPath = lockPath(l2Path);
        FileChannel channel = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            if (channel.tryLock() != null) {
                return channel;
            }
        } catch (OverlappingFileLockException e) {
            // Held by this very JVM: another run of this process is using the file.
        }
        channel.close();
        throw new IOException("the L2 file " + l2Path + " is in use by another run (" + lockPath + " is locked)");
    }

    private static Opened open(StoreSettings settings, Path l2Path, DecisionTrace trace, FileChannel lock) throws IOException {
        Path indexPath = IndexFile.besideL2(l2Path);
        IndexFile.ExpectedGeometry geometry = geometryOf(settings);
        L2Identity.Found identity = L2Identity.read(l2Path, geometry);
        String refusal = null;
        IndexFile.Loaded loaded = null;
        switch (IndexFile.read(indexPath, geometry)) {
            case IndexFile.Loaded found -> {
                refusal = refusal(found, identity, l2Path);
                loaded = refusal == null ? found : null;
            }
            case IndexFile.Missing missing -> refusal = missing.message();
            case IndexFile.Rejected rejected -> refusal = rejected.message();
        }
        L2Identity.Stamp stamp;
        try {
            stamp = L2Identity.beginWriting(l2Path, geometry, identity);
        } catch (IOException e) {
            // Without a new session the old index would still match after this run rewrites the file.
            java.nio.file.Files.deleteIfExists(indexPath);
            return new Opened(new TieredStore(settings, trace), false, "cannot start a writing session in the L2 file "
                    + l2Path + " (" + e.getMessage() + "); its index was removed, starting with a cold L2 and saving no index", null,
                    lock);
        }
        TieredStore store = loaded != null ? TieredStore.restore(settings, loaded.snapshot(), trace) : new TieredStore(settings, trace);
        String message = loaded != null
                ? "warm start: " + loaded.snapshot().entries().size() + " L2 keys from " + indexPath
                : refusal;
        return new Opened(store, loaded != null, message, stamp, lock);
    }

    /** Null when {@code loaded} describes the L2 file as it is now; else the one-line reason to start cold. */
    private static String refusal(IndexFile.Loaded loaded, L2Identity.Found identity, Path l2Path) {
        String prefix = "L2 index " + loaded.path() + " rejected (";
        String suffix = "; starting with a cold L2";
        L2Identity.Stamp named = loaded.contents().stamp();
        if (!(identity instanceof L2Identity.Present present)) {
            return prefix + "foreign): " + ((L2Identity.Absent) identity).reason() + suffix;
        }
        if (!present.stamp().fileId().equals(named.fileId())) {
            return prefix + "foreign): it describes L2 file " + named.fileId() + ", but " + l2Path + " is L2 file "
                    + present.stamp().fileId() + " (another run's index, or a replaced L2 file)" + suffix;
        }
        if (!present.stamp().session().equals(named.session())) {
            return prefix + "stale): the L2 file was opened for writing after this index was saved (session "
                    + present.stamp().session() + ", the index names " + named.session()
                    + "), and that run did not save an index: it crashed or was killed" + suffix;
        }
        String damaged = UnitChecksums.verify(l2Path, loaded.snapshot(), loaded.contents().unitCrc32c());
        return damaged == null ? null : prefix + "damaged): " + damaged + suffix;
    }

    /**
     * Clean shutdown: writes the index (only keys whose L2 writes have landed, each unit's checksum
     * read back from the L2 file) naming this run's session. Call it once the runtime is quiescent.
     *
     * @throws IOException when writing fails, when the run has no session, or when the L2 file's
     *                     trailer no longer names this run's session (another run took the file)
     */
    public static Path saveOnShutdown(Opened opened, Path l2Path) throws IOException {
        Path indexPath = IndexFile.besideL2(l2Path);
        if (opened.stamp() == null) {
            throw new IOException("no index saved for " + l2Path + ": this run had no writing session in it");
        }
        IndexFile.ExpectedGeometry geometry = geometryOf(opened.store().settings());
        if (!(L2Identity.read(l2Path, geometry) instanceof L2Identity.Present present)
                || !present.stamp().equals(opened.stamp())) {
            throw new IOException("no index saved for " + l2Path + ": its identity trailer no longer names this run's "
                    + "session (another run opened the file)");
        }
        var snapshot = opened.store().snapshot();
        IndexFile.write(indexPath, new IndexFile.Contents(snapshot, opened.stamp(), UnitChecksums.compute(l2Path, snapshot)));
        return indexPath;
    }
}
