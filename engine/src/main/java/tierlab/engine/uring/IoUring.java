package tierlab.engine.uring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static tierlab.engine.uring.IoUringLayout.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * One io_uring instance: the ring fd, the mapped SQ ring, CQ ring and SQE array, and the three
 * system calls. This is the raw binding; {@code IoUringBackend} builds the engine on it.
 *
 * <h2>Ownership</h2>
 * An {@code IoUring} is not thread-safe. Exactly one thread writes SQEs, advances the SQ tail,
 * reads CQEs and advances the CQ head; in the backend that is the ring's own event-loop thread,
 * which also creates the ring so that {@code IORING_SETUP_SINGLE_ISSUER} names it as the only
 * submitter. The kernel is the other party: it advances the SQ head and the CQ tail.
 *
 * <h2>Memory layout of the mappings</h2>
 * <pre>
 *   ring fd mmap at IORING_OFF_SQ_RING (one mapping with IORING_FEAT_SINGLE_MMAP)
 *   +------+------+------+---------+-----+-----------------------+-----+-----------------------+
 *   |sq    |sq    |cq    |cq       | ... | sq array: u32 × sq    | ... | cqes: 16 B × cq       |
 *   |head  |tail  |head  |tail     |     | entries (sq_off.array)|     | entries (cq_off.cqes) |
 *   +------+------+------+---------+-----+-----------------------+-----+-----------------------+
 *   (the order of head/tail words is the kernel's; only the offsets in io_uring_params are ABI)
 *
 *   ring fd mmap at IORING_OFF_SQES
 *   +-----------+-----------+-----+-----------+
 *   | sqe 0     | sqe 1     | ... | sqe n-1   |   64 B each
 *   +-----------+-----------+-----+-----------+
 * </pre>
 * The SQ array maps ring slots to SQE indices. This class fills it once with the identity
 * (slot i holds index i) and always writes SQE {@code tail & mask}, so submitting is: fill the
 * SQE, then publish the new tail.
 *
 * <h2>Memory ordering</h2>
 * Heads and tails are shared with the kernel, which uses {@code smp_load_acquire} /
 * {@code smp_store_release} on its side. This class pairs with it through acquire/release
 * {@link VarHandle} accesses on the mapped segment (see each access for why). Plain accesses are
 * used only for values this thread alone writes (its cached SQ tail and CQ head) and for the
 * SQE/CQE bodies, whose visibility the tail release/acquire pairs guarantee.
 */
@SuppressWarnings("restricted") // this is the binding: its downcalls and mapped segments are the point
public final class IoUring implements AutoCloseable {

    /**
     * 32-bit view with coordinates (segment, byte offset) for the ring words. x86-64 would not
     * need fences for these (TSO), but the Java memory model does: without release, the JIT may
     * sink SQE field stores below the tail store; without acquire, it may hoist CQE loads above
     * the tail load.
     */
    private static final VarHandle U32 = JAVA_INT.varHandle();

    private final Arena arena = Arena.ofShared();
    private final MemorySegment errnoState = Libc.newErrnoState(arena);
    private final int ringFd;
    private final int setupFlags;
    private final int features;
    private final int sqEntries;
    private final int cqEntries;
    private final int sqMask;
    private final int cqMask;
    private final long sqHeadOffset;
    private final long sqTailOffset;
    private final long cqHeadOffset;
    private final long cqTailOffset;
    private final long cqesOffset;
    private final long sqRingEntriesOffset;
    private final long cqRingEntriesOffset;
    private final long cqOverflowOffset;
    private final long sqDroppedOffset;
    private final long sqArrayOffset;
    private final long sqRingAddress;
    private final long sqRingBytes;
    private final long cqRingAddress;
    private final long cqRingBytes;
    private final long sqesAddress;
    private final long sqesBytes;
    private final MemorySegment sqRing;
    private final MemorySegment cqRing;
    private final MemorySegment sqes;
    private int sqTailLocal;
    /** The SQ head as last read: a lower bound of the kernel's, so a slot it shows consumed is consumed. */
    private int sqHeadSeen;
    private int cqHeadLocal;
    private int registeredBufferCount;
    private boolean closed;

    private IoUring(int ringFd, int setupFlags, MemorySegment params) throws NativeIoException {
        this.ringFd = ringFd;
        this.setupFlags = setupFlags;
        this.features = params.get(JAVA_INT, PARAMS_FEATURES);
        this.sqEntries = params.get(JAVA_INT, PARAMS_SQ_ENTRIES);
        this.cqEntries = params.get(JAVA_INT, PARAMS_CQ_ENTRIES);
        long sqOff = PARAMS_SQ_OFF;
        long cqOff = PARAMS_CQ_OFF;
        this.sqHeadOffset = Integer.toUnsignedLong(params.get(JAVA_INT, sqOff + SQ_OFF_HEAD));
        this.sqTailOffset = Integer.toUnsignedLong(params.get(JAVA_INT, sqOff + SQ_OFF_TAIL));
        long sqMaskOffset = Integer.toUnsignedLong(params.get(JAVA_INT, sqOff + SQ_OFF_RING_MASK));
        this.sqArrayOffset = Integer.toUnsignedLong(params.get(JAVA_INT, sqOff + SQ_OFF_ARRAY));
        this.sqRingEntriesOffset = Integer.toUnsignedLong(params.get(JAVA_INT, sqOff + SQ_OFF_RING_ENTRIES));
        this.sqDroppedOffset = Integer.toUnsignedLong(params.get(JAVA_INT, sqOff + SQ_OFF_DROPPED));
        this.cqRingEntriesOffset = Integer.toUnsignedLong(params.get(JAVA_INT, cqOff + CQ_OFF_RING_ENTRIES));
        this.cqOverflowOffset = Integer.toUnsignedLong(params.get(JAVA_INT, cqOff + CQ_OFF_OVERFLOW));
        this.cqHeadOffset = Integer.toUnsignedLong(params.get(JAVA_INT, cqOff + CQ_OFF_HEAD));
        this.cqTailOffset = Integer.toUnsignedLong(params.get(JAVA_INT, cqOff + CQ_OFF_TAIL));
        long cqMaskOffset = Integer.toUnsignedLong(params.get(JAVA_INT, cqOff + CQ_OFF_RING_MASK));
        this.cqesOffset = Integer.toUnsignedLong(params.get(JAVA_INT, cqOff + CQ_OFF_CQES));

        // Sizes as liburing computes them: each ring ends with its array.
        long sqBytes = sqArrayOffset + (long) sqEntries * Integer.BYTES;
        long cqBytes = cqesOffset + (long) cqEntries * CQE_SIZE;
        boolean single = (features & IORING_FEAT_SINGLE_MMAP) != 0;
        if (single) {
            // One mapping serves both rings; it must be large enough for the larger of the two.
            sqBytes = Math.max(sqBytes, cqBytes);
            cqBytes = sqBytes;
        }
        long sqAddress;
        try {
            sqAddress = map(sqBytes, IORING_OFF_SQ_RING, "SQ ring");
        } catch (NativeIoException e) {
            arena.close();
            throw e;
        }
        long cqAddress = sqAddress;
        long sqeAddress = -1;
        try {
            if (!single) {
                cqAddress = map(cqBytes, IORING_OFF_CQ_RING, "CQ ring");
            }
            sqeAddress = map((long) sqEntries * SQE_SIZE, IORING_OFF_SQES, "SQE array");
        } catch (NativeIoException e) {
            Libc.munmap(errnoState, sqAddress, sqBytes);
            if (!single && cqAddress != sqAddress) {
                Libc.munmap(errnoState, cqAddress, cqBytes);
            }
            arena.close();
            throw e;
        }
        this.sqRingAddress = sqAddress;
        this.sqRingBytes = sqBytes;
        this.cqRingAddress = cqAddress;
        this.cqRingBytes = single ? 0 : cqBytes;
        this.sqesAddress = sqeAddress;
        this.sqesBytes = (long) sqEntries * SQE_SIZE;
        this.sqRing = MemorySegment.ofAddress(sqAddress).reinterpret(sqBytes);
        this.cqRing = single ? sqRing : MemorySegment.ofAddress(cqAddress).reinterpret(cqBytes);
        this.sqes = MemorySegment.ofAddress(sqeAddress).reinterpret(sqesBytes);
        this.sqMask = sqRing.get(JAVA_INT, sqMaskOffset);
        this.cqMask = cqRing.get(JAVA_INT, cqMaskOffset);
        // Identity slot -> SQE index map, written once. Plain stores suffice: the first release
        // store of the tail (and the io_uring_enter syscall itself) publishes them.
        for (int i = 0; i < sqEntries; i++) {
            sqRing.set(JAVA_INT, sqArrayOffset + (long) i * Integer.BYTES, i);
        }
        // Start from whatever the kernel initialised (0); acquire pairs with nothing yet but is cheap.
        this.sqTailLocal = (int) U32.getAcquire(sqRing, sqTailOffset);
        this.sqHeadSeen = (int) U32.getAcquire(sqRing, sqHeadOffset);
        this.cqHeadLocal = (int) U32.getAcquire(cqRing, cqHeadOffset);
    }

    private long map(long lengthBytes, long offset, String what) throws NativeIoException {
        long address = Libc.mmap(errnoState, lengthBytes, Libc.PROT_READ | Libc.PROT_WRITE,
                Libc.MAP_SHARED | Libc.MAP_POPULATE, ringFd, offset);
        if (address == -1L) {
            throw new NativeIoException("mmap(" + what + ", " + lengthBytes + " bytes)", Libc.errno(errnoState));
        }
        return address;
    }

    /**
     * Creates a ring with exactly these {@code IORING_SETUP_*} flags.
     *
     * @throws NativeIoException naming io_uring_setup and its errno (EPERM, ENOSYS, EINVAL, ENOMEM, ...)
     */
    public static IoUring create(int entries, int setupFlags) throws NativeIoException {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment state = Libc.newErrnoState(scratch);
            MemorySegment params = scratch.allocate(PARAMS_SIZE, 8);
            params.set(JAVA_INT, PARAMS_FLAGS, setupFlags);
            int fd = Libc.ioUringSetup(state, entries, params);
            if (fd < 0) {
                throw new NativeIoException("io_uring_setup(" + entries + ", flags=0x" + Integer.toHexString(setupFlags) + ")",
                        Libc.errno(state), UringAvailability.setupHint(Libc.errno(state)));
            }
            try {
                return new IoUring(fd, setupFlags, params);
            } catch (NativeIoException | RuntimeException e) {
                Libc.close(state, fd);
                throw e;
            }
        }
    }

    /**
     * Creates a ring with the best flags this kernel accepts for one-thread-per-ring use:
     * SUBMIT_ALL (a failing SQE does not stop the rest of the batch), SINGLE_ISSUER and
     * DEFER_TASKRUN (completion work runs when the owner thread waits, not by interrupting it),
     * falling back to COOP_TASKRUN and then to no flags on kernels that reject them with EINVAL.
     * Must be called on the thread that will submit.
     */
    public static IoUring createForSingleThread(int entries) throws NativeIoException {
        int[] candidates = {
                IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN,
                0,
        };
        NativeIoException last = null;
        for (int flags : candidates) {
            try {
                return create(entries, flags);
            } catch (NativeIoException e) {
                if (e.errno() != Errno.EINVAL) {
                    throw e;
                }
                last = e;
            }
        }
        throw last;
    }

    // ---- accessors ------------------------------------------------------------------------------

    public int fd() {
        return ringFd;
    }

    public int sqEntries() {
        return sqEntries;
    }

    public int cqEntries() {
        return cqEntries;
    }

    public int features() {
        return features;
    }

    public int setupFlags() {
        return setupFlags;
    }

    public boolean singleMmap() {
        return (features & IORING_FEAT_SINGLE_MMAP) != 0;
    }

    /** The SQ ring mask as the kernel stored it at sq_off.ring_mask. */
    public int sqMask() {
        return sqMask;
    }

    public int cqMask() {
        return cqMask;
    }

    /** The SQ size read from the mapping at sq_off.ring_entries (equals {@link #sqEntries()} when the offsets are right). */
    public int sqRingEntriesInMapping() {
        return sqRing.get(JAVA_INT, sqRingEntriesOffset);
    }

    /** The CQ size read from the mapping at cq_off.ring_entries. */
    public int cqRingEntriesInMapping() {
        return cqRing.get(JAVA_INT, cqRingEntriesOffset);
    }

    /** The SQ array word for slot i (the identity map this class wrote). */
    public int sqArrayEntry(int slot) {
        return sqRing.get(JAVA_INT, sqArrayOffset + (long) slot * Integer.BYTES);
    }

    // ---- submission queue -------------------------------------------------------------------------

    /** Free SQ slots: entries minus SQEs written (published or not) that the kernel has not consumed. */
    public int sqSpaceLeft() {
        // Acquire: the kernel releases the head after it has copied the SQEs out, so a slot we see
        // as consumed is safe to overwrite.
        int head = (int) U32.getAcquire(sqRing, sqHeadOffset);
        return sqEntries - (sqTailLocal - head);
    }

    /**
     * Writes one read/write SQE into the next slot (not yet visible to the kernel; see
     * {@link #publishSq()}). The caller checks {@link #sqSpaceLeft()} first.
     */
    public void prepareReadWrite(byte opcode, int fd, long fileOffset, long bufferAddress, int lengthBytes,
                                 long userData, int bufferIndex) {
        checkSqSlotFree();
        long sqe = (long) (sqTailLocal & sqMask) * SQE_SIZE;
        // The slot holds whatever the previous request left; zero it so flags, ioprio, rw_flags,
        // personality, file_index and addr3 are 0 and the kernel does not read stale fields.
        clearSqe(sqe);
        sqes.set(JAVA_BYTE, sqe + SQE_OPCODE, opcode);
        sqes.set(JAVA_INT, sqe + SQE_FD, fd);
        sqes.set(JAVA_LONG, sqe + SQE_OFF, fileOffset);
        sqes.set(JAVA_LONG, sqe + SQE_ADDR, bufferAddress);
        sqes.set(JAVA_INT, sqe + SQE_LEN, lengthBytes);
        sqes.set(JAVA_LONG, sqe + SQE_USER_DATA, userData);
        sqes.set(JAVA_SHORT, sqe + SQE_BUF_INDEX, (short) bufferIndex);
        sqTailLocal++;
    }

    /** Writes a NOP SQE (used by the binding tests to check the round trip of user_data). */
    public void prepareNop(long userData) {
        checkSqSlotFree();
        long sqe = (long) (sqTailLocal & sqMask) * SQE_SIZE;
        clearSqe(sqe);
        sqes.set(JAVA_BYTE, sqe + SQE_OPCODE, IORING_OP_NOP);
        sqes.set(JAVA_LONG, sqe + SQE_USER_DATA, userData);
        sqTailLocal++;
    }

    /**
     * The next SQ slot must be one the kernel has consumed: writing into a full ring would overwrite an
     * SQE the kernel has not copied yet, and a request would be lost or changed without a word. O(1):
     * the head is read again (acquire) only when the one seen last says full.
     */
    private void checkSqSlotFree() {
        if (sqTailLocal - sqHeadSeen >= sqEntries) {
            sqHeadSeen = (int) U32.getAcquire(sqRing, sqHeadOffset);
            if (sqTailLocal - sqHeadSeen >= sqEntries) {
                throw new IllegalStateException("io_uring SQ full: " + sqEntries + " entries prepared and not yet consumed by"
                        + " the kernel; the caller must check sqSpaceLeft() first");
            }
        }
    }

    private void clearSqe(long sqe) {
        for (long word = 0; word < SQE_SIZE; word += Long.BYTES) {
            sqes.set(JAVA_LONG, sqe + word, 0L);
        }
    }

    /**
     * Makes every prepared SQE visible to the kernel and returns how many it has not consumed yet
     * (the {@code to_submit} for the next {@link #enter}).
     */
    public int publishSq() {
        // Release: the SQE bodies written above must be visible before the kernel, which reads the
        // tail with smp_load_acquire, sees the new tail and copies those SQEs.
        U32.setRelease(sqRing, sqTailOffset, sqTailLocal);
        int head = (int) U32.getAcquire(sqRing, sqHeadOffset);
        return sqTailLocal - head;
    }

    /**
     * io_uring_enter(2). Returns the number of SQEs consumed, or {@code -errno} (never throws on the
     * hot path: EINTR, EAGAIN and EBUSY are conditions the caller retries).
     */
    public int enter(int toSubmit, int minComplete, int flags) {
        int result = Libc.ioUringEnter(errnoState, ringFd, toSubmit, minComplete, flags);
        return result >= 0 ? result : -Libc.errno(errnoState);
    }

    // ---- completion queue -------------------------------------------------------------------------

    /** Number of CQEs posted and not yet consumed. */
    public int cqReady() {
        // Acquire: pairs with the kernel's smp_store_release of the tail after it wrote the CQE
        // bodies, so the user_data and res read next are the ones it posted, not stale slot contents.
        int tail = (int) U32.getAcquire(cqRing, cqTailOffset);
        return tail - cqHeadLocal;
    }

    /** user_data of the i-th ready CQE (0 = oldest). */
    public long cqeUserData(int i) {
        return cqRing.get(JAVA_LONG, cqeOffset(i) + CQE_USER_DATA);
    }

    /** res of the i-th ready CQE: bytes transferred, or -errno. */
    public int cqeResult(int i) {
        return cqRing.get(JAVA_INT, cqeOffset(i) + CQE_RES);
    }

    /** flags of the i-th ready CQE (IORING_CQE_F_*). */
    public int cqeFlags(int i) {
        return cqRing.get(JAVA_INT, cqeOffset(i) + CQE_FLAGS);
    }

    private long cqesOffsetOf(int index) {
        return cqesOffset + (long) (index & cqMask) * CQE_SIZE;
    }

    private long cqeOffset(int i) {
        return cqesOffsetOf(cqHeadLocal + i);
    }

    /** Marks {@code count} CQEs consumed, returning their slots to the kernel. */
    public void cqAdvance(int count) {
        cqHeadLocal += count;
        // Release: our loads of those CQEs must complete before the kernel, which reads the head
        // with acquire, sees the slots as free and overwrites them with new completions.
        U32.setRelease(cqRing, cqHeadOffset, cqHeadLocal);
    }

    /** CQEs the kernel could not post because the CQ was full (should stay 0: the engine bounds in-flight I/O). */
    public int cqOverflow() {
        return (int) U32.getAcquire(cqRing, cqOverflowOffset);
    }

    /** SQEs the kernel dropped because their SQ array index was invalid (should stay 0). */
    public int sqDropped() {
        return (int) U32.getAcquire(sqRing, sqDroppedOffset);
    }

    // ---- registration -------------------------------------------------------------------------------

    /**
     * Registers buffers as fixed buffers (IORING_REGISTER_BUFFERS), one iovec per (address,
     * length); buffer index i in a READ_FIXED/WRITE_FIXED SQE then refers to the i-th. The kernel
     * pins the pages for as long as the registration lives.
     */
    public void registerBuffers(long[] addresses, long[] lengthsBytes) throws NativeIoException {
        if (addresses.length != lengthsBytes.length || addresses.length == 0) {
            throw new IllegalArgumentException("addresses and lengths must be non-empty and of equal length");
        }
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment iovecs = scratch.allocate((long) IOVEC_SIZE * addresses.length, 8);
            for (int i = 0; i < addresses.length; i++) {
                iovecs.set(JAVA_LONG, (long) i * IOVEC_SIZE + IOVEC_BASE, addresses[i]);
                iovecs.set(JAVA_LONG, (long) i * IOVEC_SIZE + IOVEC_LEN, lengthsBytes[i]);
            }
            int rc = Libc.ioUringRegister(errnoState, ringFd, IORING_REGISTER_BUFFERS, iovecs, addresses.length);
            if (rc < 0) {
                int errno = Libc.errno(errnoState);
                throw new NativeIoException("io_uring_register(IORING_REGISTER_BUFFERS, " + addresses.length + " iovecs)",
                        errno, errno == Errno.ENOMEM ? "the pinned pages exceed RLIMIT_MEMLOCK (root or CAP_IPC_LOCK lifts it)" : null);
            }
            registeredBufferCount = addresses.length;
        }
    }

    /** Releases the fixed buffers (IORING_UNREGISTER_BUFFERS); closing the ring also releases them. */
    public void unregisterBuffers() throws NativeIoException {
        if (registeredBufferCount == 0) {
            return;
        }
        int rc = Libc.ioUringRegister(errnoState, ringFd, IORING_UNREGISTER_BUFFERS, MemorySegment.NULL, 0);
        if (rc < 0) {
            throw new NativeIoException("io_uring_register(IORING_UNREGISTER_BUFFERS)", Libc.errno(errnoState));
        }
        registeredBufferCount = 0;
    }

    public int registeredBufferCount() {
        return registeredBufferCount;
    }

    /**
     * The opcodes this kernel supports, via IORING_REGISTER_PROBE (5.6+): index = opcode.
     */
    public boolean[] supportedOpcodes() throws NativeIoException {
        int slots = 256;
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment probe = scratch.allocate(PROBE_HEADER_SIZE + (long) PROBE_OP_SIZE * slots, 8);
            int rc = Libc.ioUringRegister(errnoState, ringFd, IORING_REGISTER_PROBE, probe, slots);
            if (rc < 0) {
                throw new NativeIoException("io_uring_register(IORING_REGISTER_PROBE)", Libc.errno(errnoState),
                        "kernels before 5.6 have no probe and no IORING_OP_READ/WRITE");
            }
            int opsLength = Byte.toUnsignedInt(probe.get(JAVA_BYTE, PROBE_OPS_LEN));
            boolean[] supported = new boolean[opsLength];
            for (int op = 0; op < opsLength; op++) {
                short flags = probe.get(JAVA_SHORT, PROBE_HEADER_SIZE + (long) op * PROBE_OP_SIZE + PROBE_OP_FLAGS);
                supported[op] = (flags & IO_URING_OP_SUPPORTED) != 0;
            }
            return supported;
        }
    }

    /** Unmaps the rings and closes the ring fd (which also drops registrations and cancels pending requests). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Libc.munmap(errnoState, sqesAddress, sqesBytes);
        if (cqRingBytes != 0) {
            Libc.munmap(errnoState, cqRingAddress, cqRingBytes);
        }
        Libc.munmap(errnoState, sqRingAddress, sqRingBytes);
        Libc.close(errnoState, ringFd);
        arena.close();
    }
}
