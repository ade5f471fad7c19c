package tierlab.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import tierlab.engine.uring.Errno;
import tierlab.engine.uring.Libc;

/**
 * The L1 pool's memory in live and hybrid mode: one off-heap segment aligned to 4096 bytes, so
 * that every 4096-aligned {@code l1Offset} the model hands out is a valid O_DIRECT buffer address,
 * and the whole pool can be registered with io_uring as fixed buffers.
 *
 * <pre>
 *   base (4096-aligned)                                                  base + sizeBytes
 *   +--------------+--------------+--------------+-----   ---+--------------+
 *   | slice @ 0    | slice @ 4096 | ...          |    ...    |              |
 *   +--------------+--------------+--------------+-----   ---+--------------+
 *     l1Offset = byte offset from base; a slice is (l1Offset, lengthBytes), bounds-checked
 * </pre>
 *
 * <h2>Locking</h2>
 * The arena is {@code mlock}ed when asked and when the kernel allows it (RLIMIT_MEMLOCK, or
 * CAP_IPC_LOCK which lifts the limit), so KV bytes are never swapped out between an L2 read and
 * the GPU copy. Whether it worked, and why not, is in {@link #lockStatus()}: a failed lock is an
 * expected outcome on an unprivileged machine, not an error. io_uring's fixed-buffer registration
 * pins the pages separately (and also counts against RLIMIT_MEMLOCK for unprivileged users).
 *
 * <h2>Lifetime</h2>
 * Backends that do I/O into the arena {@link #retain(String) retain} it and release it when
 * they close. {@link #close()} refuses while any backend still uses it: freeing memory that the
 * kernel may still DMA into would corrupt the heap, so this is checked, not documented only.
 * The segment is shared: any thread may read or write slices.
 */
public final class PinnedArena implements AutoCloseable {

    /** The alignment of the base address: the O_DIRECT requirement of every file system here. */
    public static final long ALIGNMENT_BYTES = 4096;

    /** Whether {@code mlock} succeeded, and a sentence saying why or why not. */
    public record LockStatus(boolean locked, String reason) {}

    private final Arena arena;
    private final MemorySegment segment;
    private final long sizeBytes;
    private final LockStatus lockStatus;
    private final List<String> users = new ArrayList<>();
    private boolean closed;

    private PinnedArena(long sizeBytes, boolean tryLock) {
        if (sizeBytes <= 0 || sizeBytes % ALIGNMENT_BYTES != 0) {
            throw new IllegalArgumentException("sizeBytes must be a positive multiple of " + ALIGNMENT_BYTES + ", was " + sizeBytes);
        }
        this.arena = Arena.ofShared();
        this.segment = arena.allocate(sizeBytes, ALIGNMENT_BYTES);
        this.sizeBytes = sizeBytes;
        this.lockStatus = tryLock ? lock(segment.address(), sizeBytes) : new LockStatus(false, "mlock not requested");
    }

    /** Allocates {@code sizeBytes} (zeroed) and tries to mlock them. */
    public static PinnedArena allocate(long sizeBytes) {
        return new PinnedArena(sizeBytes, true);
    }

    /** Allocates {@code sizeBytes} (zeroed), locking them only when {@code tryLock}. */
    public static PinnedArena allocate(long sizeBytes, boolean tryLock) {
        return new PinnedArena(sizeBytes, tryLock);
    }

    private static LockStatus lock(long address, long sizeBytes) {
        long limitBytes;
        int errno;
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment state = Libc.newErrnoState(scratch);
            limitBytes = Libc.memlockSoftLimitBytes();
            if (Libc.mlock(state, address, sizeBytes) == 0) {
                String why = limitBytes == Libc.RLIM_INFINITY ? "RLIMIT_MEMLOCK is unlimited"
                        : limitBytes >= sizeBytes ? "within RLIMIT_MEMLOCK of " + mib(limitBytes)
                        : "above RLIMIT_MEMLOCK of " + mib(limitBytes) + ", allowed by CAP_IPC_LOCK";
                return new LockStatus(true, "mlocked " + mib(sizeBytes) + " (" + why + ")");
            }
            errno = Libc.errno(state);
        } catch (Throwable t) {
            // No FFM (native access denied) or no libc: the arena still works, unlocked.
            return new LockStatus(false, "mlock unavailable: " + t);
        }
        String limit = limitBytes == Libc.RLIM_INFINITY ? "unlimited" : limitBytes < 0 ? "unknown" : mib(limitBytes);
        return new LockStatus(false, "mlock of " + mib(sizeBytes) + " failed with " + Errno.name(errno)
                + " (" + Libc.describe(errno) + "); RLIMIT_MEMLOCK soft limit is " + limit
                + " (raise it with ulimit -l or grant CAP_IPC_LOCK); the arena works unlocked");
    }

    private static String mib(long bytes) {
        return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " bytes";
    }

    /** The whole arena. */
    public MemorySegment segment() {
        return segment;
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    /** The native address of byte 0 (4096-aligned). */
    public long baseAddress() {
        return segment.address();
    }

    public LockStatus lockStatus() {
        return lockStatus;
    }

    /**
     * The native address of byte {@code offset}, for a transfer of {@code lengthBytes} from it that the
     * kernel (io_uring) or the GPU driver (CUDA) makes with no bounds of its own: a wrong offset there
     * would read or overwrite memory outside the arena without a word, so it is checked here, always.
     * O(1) and allocation-free while the range fits.
     *
     * @throws IndexOutOfBoundsException when (offset, lengthBytes) does not lie inside the arena
     */
    public long address(long offset, long lengthBytes) {
        java.util.Objects.checkFromIndexSize(offset, lengthBytes, sizeBytes);
        return segment.address() + offset;
    }

    /** Whether (offset, lengthBytes) lies inside the arena. */
    public boolean contains(long offset, long lengthBytes) {
        return offset >= 0 && lengthBytes >= 0 && offset <= sizeBytes - lengthBytes;
    }

    /**
     * The slice (offset, lengthBytes).
     *
     * @throws IndexOutOfBoundsException naming offset, length and arena size when it does not fit
     */
    public MemorySegment slice(long offset, long lengthBytes) {
        if (!contains(offset, lengthBytes)) {
            throw new IndexOutOfBoundsException("slice (offset " + offset + ", length " + lengthBytes
                    + " bytes) is outside the arena of " + sizeBytes + " bytes");
        }
        return segment.asSlice(offset, lengthBytes);
    }

    /** Records that {@code user} does I/O into the arena until {@link #release(String)}. */
    public synchronized void retain(String user) {
        if (closed) {
            throw new IllegalStateException("the arena is closed; " + user + " cannot use it");
        }
        users.add(user);
    }

    public synchronized void release(String user) {
        users.remove(user);
    }

    /** The users that have retained the arena and not released it. */
    public synchronized List<String> users() {
        return List.copyOf(users);
    }

    /**
     * Unlocks and frees the memory.
     *
     * @throws IllegalStateException while a backend still uses the arena (close the backends first)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (!users.isEmpty()) {
            throw new IllegalStateException("the arena is still used by " + users + "; close those backends before the arena");
        }
        closed = true;
        if (lockStatus.locked()) {
            try (Arena scratch = Arena.ofConfined()) {
                Libc.munlock(Libc.newErrnoState(scratch), segment.address(), sizeBytes);
            }
        }
        arena.close();
    }
}
