package tierlab.engine.live;

import java.io.IOException;
import java.nio.file.Path;
import tierlab.engine.persist.IndexFile;
import tierlab.engine.persist.L2FileLock;
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
 * <p>One run at a time: the caller locks the L2 file itself ({@link L2FileLock}, a lock on its
 * inode, so every name of the file meets it) before the storage port opens it, and passes the lock
 * to {@link #open}; {@link Opened#close} releases it. A second run on the same file is refused with
 * one line instead of rewriting units the first one is serving.
 *
 * <p>No index is saved by a run that served wrong bytes, whose L2 file was removed or replaced
 * under its lock, or whose session another writer replaced ({@link #saveOnShutdown}): the index
 * beside the file is removed instead, and the next run starts cold.
 */
public final class WarmStart {

    /**
     * The store to run with and how it was obtained.
     *
     * @param stamp this run's writing session, which {@link #saveOnShutdown} names; null when the
     *              session could not be started (then the run is cold and no index is saved)
     */
    public record Opened(TieredStore store, boolean warm, String message, L2Identity.Stamp stamp, L2FileLock lock,
                         boolean ownsLock) implements AutoCloseable {
        /**
         * Releases the lock on the L2 file when this value owns it (it took the lock itself); call it
         * after {@link #saveOnShutdown} (or instead, on a failure). A caller that passed its own lock releases it.
         */
        @Override
        public void close() {
            if (ownsLock) {
                lock.close();
            }
        }
    }

    /**
     * What {@link #saveOnShutdown} did: saved the index at {@code index}, or ({@code dropped} not
     * null) saved none and removed the old one, for the reason in {@code dropped}.
     */
    public record Saved(Path index, String dropped) {
        public boolean saved() {
            return dropped == null;
        }
    }

    private WarmStart() {}

    /** The geometry an index and the identity trailer are laid out for. */
    public static IndexFile.ExpectedGeometry geometryOf(StoreSettings settings) {
        return new IndexFile.ExpectedGeometry(Math.toIntExact(settings.slotCount()), settings.geometry().laneBytes(),
                settings.geometry().tp());
    }

    /**
     * Locks the L2 file at {@code l2Path} ({@link L2FileLock#acquire}) and opens the store on it;
     * for callers whose storage port is already open. {@link Opened#close} releases the lock.
     */
    public static Opened open(StoreSettings settings, Path l2Path, DecisionTrace trace) throws IOException {
        L2FileLock lock = L2FileLock.acquire(l2Path);
        try {
            Opened opened = open(settings, lock, trace);
            return new Opened(opened.store(), opened.warm(), opened.message(), opened.stamp(), lock, true);
        } catch (IOException | RuntimeException | Error e) {
            lock.close();
            throw e;
        }
    }

    /**
     * Opens the store for a run on the L2 file {@code lock} holds: warm from its index when the
     * index is valid (see the class comment), cold otherwise; then marks the index stale (a new
     * session). {@code lock} stays the caller's to release.
     *
     * @throws IOException only when the session cannot be started and the stale index cannot be
     *                     removed either: running would leave an index that could later be trusted
     */
    public static Opened open(StoreSettings settings, L2FileLock lock, DecisionTrace trace) throws IOException {
        Path l2Path = lock.path();
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
                    lock, false);
        }
        TieredStore store = loaded != null ? TieredStore.restore(settings, loaded.snapshot(), trace) : new TieredStore(settings, trace);
        String message = loaded != null
                ? "warm start: " + loaded.snapshot().entries().size() + " L2 keys from " + indexPath
                : refusal;
        return new Opened(store, loaded != null, message, stamp, lock, false);
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
     * read back from the L2 file and bound to its key) naming this run's session. Call it once the
     * runtime is quiescent. Saves nothing, and removes the index beside the file, when the run
     * served {@code wrongLoads} > 0 loads with wrong bytes, has no session, no longer holds the file
     * under its name, or the file's trailer names another session; the result says which.
     *
     * @throws IOException when writing the index (or removing the old one) fails
     */
    public static Saved saveOnShutdown(Opened opened, long wrongLoads) throws IOException {
        Path l2Path = opened.lock().path();
        Path indexPath = IndexFile.besideL2(l2Path);
        String dropped = dropReason(opened, wrongLoads);
        if (dropped != null) {
            java.nio.file.Files.deleteIfExists(indexPath);
            return new Saved(indexPath, dropped);
        }
        var snapshot = opened.store().snapshot();
        IndexFile.write(indexPath, new IndexFile.Contents(snapshot, opened.stamp(), UnitChecksums.compute(l2Path, snapshot)));
        return new Saved(indexPath, null);
    }

    /**
     * Saves no index for {@code opened}'s run and removes the one beside the file (stale since the
     * run began its session, but never left to look like a choice): for a run that failed.
     */
    public static Saved drop(Opened opened, String reason) throws IOException {
        Path indexPath = IndexFile.besideL2(opened.lock().path());
        java.nio.file.Files.deleteIfExists(indexPath);
        return new Saved(indexPath, reason);
    }

    /** Why {@code opened}'s run must not save an index, or null when it may. */
    private static String dropReason(Opened opened, long wrongLoads) {
        Path l2Path = opened.lock().path();
        if (wrongLoads > 0) {
            return "the run served " + wrongLoads + " load" + (wrongLoads == 1 ? "" : "s") + " with wrong bytes";
        }
        if (opened.stamp() == null) {
            return "this run had no writing session in " + l2Path;
        }
        if (!opened.lock().stillNamesLockedFile()) {
            return l2Path + " was removed or replaced while this run held it";
        }
        IndexFile.ExpectedGeometry geometry = geometryOf(opened.store().settings());
        if (!(L2Identity.read(l2Path, geometry) instanceof L2Identity.Present present)
                || !present.stamp().equals(opened.stamp())) {
            return "the identity trailer of " + l2Path + " no longer names this run's session (the file was written under it)";
        }
        return null;
    }
}
