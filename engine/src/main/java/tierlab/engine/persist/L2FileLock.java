package tierlab.engine.persist;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import tierlab.engine.uring.Errno;
import tierlab.engine.uring.Libc;
import tierlab.engine.uring.NativeIoException;

/**
 * One run at a time on a persistent L2 file: an exclusive {@code flock(2)} on the L2 file itself,
 * held on a descriptor of its own from before the storage port opens the file until the run has
 * saved (or dropped) its index.
 *
 * <p>The lock is on the file's inode, not on a name: a symlink or a hard link to the file, or a
 * second run in the same process, meets the same lock, and there is no lock file that someone
 * could delete while a run holds it. It belongs to this open file description, so the other
 * descriptors the run opens and closes on the same file (the storage port's, the identity
 * trailer's, the checksums') do not release it, as they would release a POSIX record lock
 * ({@code FileChannel.lock}). The kernel drops it when the process dies, however it dies.
 *
 * <p>A missing file is created here (and {@link #created()} says so, so that a run that fails
 * before the file holds anything of its own can remove it again: no empty leftovers).
 */
public final class L2FileLock implements AutoCloseable {

    /** Retries when the path was replaced between opening and locking it. */
    private static final int ATTEMPTS = 3;
    private static final int MODE_0644 = 0644;

    private final Path path;
    private final int fd;
    private final Object fileKey;
    private final boolean created;
    private boolean closed;

    private L2FileLock(Path path, int fd, Object fileKey, boolean created) {
        this.path = path;
        this.fd = fd;
        this.fileKey = fileKey;
        this.created = created;
    }

    /** Another run holds the L2 file: the expected outcome of a second run on it, in one line. */
    public static final class HeldException extends IOException {
        private static final long serialVersionUID = 1L;

        HeldException(Path path) {
            super("the L2 file " + path + " is held by another run (another process, or another run of this one, "
                    + "holds the lock on the file itself, under whatever name it opened it); wait for that run to end "
                    + "or give this run another store.l2File");
        }
    }

    /**
     * Locks the L2 file at {@code l2Path}, creating it (empty) if it does not exist.
     *
     * @throws HeldException when another run holds it
     * @throws IOException   when it cannot be opened or created
     */
    public static L2FileLock acquire(Path l2Path) throws IOException {
        Objects.requireNonNull(l2Path, "l2Path");
        Path path = l2Path.toAbsolutePath();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            L2FileLock lock = tryOnce(path);
            if (lock != null) {
                return lock;
            }
        }
        throw new IOException("the L2 file " + path + " was replaced " + ATTEMPTS + " times while it was being locked");
    }

    /** The lock, or null when the path no longer names the inode that was locked (replaced meanwhile). */
    private static L2FileLock tryOnce(Path path) throws IOException {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment state = Libc.newErrnoState(scratch);
            MemorySegment cPath = scratch.allocateFrom(path.toString());
            boolean created = true;
            int fd = Libc.open(state, cPath, Libc.O_RDONLY | Libc.O_CLOEXEC | Libc.O_CREAT | Libc.O_EXCL, MODE_0644);
            if (fd < 0 && Libc.errno(state) == Errno.EEXIST) {
                created = false;
                fd = Libc.open(state, cPath, Libc.O_RDONLY | Libc.O_CLOEXEC, 0);
            }
            if (fd < 0) {
                throw new NativeIoException("open(" + path + ")", Libc.errno(state));
            }
            if (Libc.flock(state, fd, Libc.LOCK_EX | Libc.LOCK_NB) != 0) {
                int errno = Libc.errno(state);
                Libc.close(state, fd);
                if (errno == Errno.EAGAIN) {
                    throw new HeldException(path);
                }
                throw new NativeIoException("flock(" + path + ", LOCK_EX)", errno);
            }
            Object locked = keyOfDescriptor(fd);
            Object named = keyOf(path);
            if (named == null || !named.equals(locked)) {
                Libc.close(state, fd);
                return null;
            }
            return new L2FileLock(path, fd, locked, created);
        }
    }

    /** The file's (device, inode) as the JDK reports it, through the descriptor's /proc link; never its name. */
    private static Object keyOfDescriptor(int fd) throws IOException {
        return Files.readAttributes(Path.of("/proc/self/fd/" + fd), BasicFileAttributes.class).fileKey();
    }

    private static Object keyOf(Path path) throws IOException {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** The L2 file's path as given (absolute). */
    public Path path() {
        return path;
    }

    /** Whether this lock created the file (it did not exist before). */
    public boolean created() {
        return created;
    }

    /**
     * Whether the path still names the file this lock holds: false once the file was removed or
     * replaced under the run (the lock then guards a file nobody can open by this name, and a new
     * run could lock the new one), so the run must not save an index for the name.
     */
    public boolean stillNamesLockedFile() {
        try {
            return fileKey.equals(keyOf(path));
        } catch (IOException e) {
            return false;
        }
    }

    /** While held, the lock's descriptor is open on the file it locked (the same device and inode). */
    public void checkInvariants() {
        if (closed) {
            return;
        }
        try {
            if (!fileKey.equals(keyOfDescriptor(fd))) {
                throw new IllegalStateException("the lock on " + path + " holds descriptor " + fd + " of another file");
            }
        } catch (IOException e) {
            throw new IllegalStateException("the lock's descriptor " + fd + " on " + path + " is not open: " + e.getMessage(), e);
        }
    }

    /** Releases the lock (closing its descriptor); idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (Arena scratch = Arena.ofConfined()) {
            Libc.close(Libc.newErrnoState(scratch), fd);
        }
    }
}
