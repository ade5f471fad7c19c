package tierlab.engine;

import static tierlab.engine.uring.IoUringLayout.IORING_ENTER_GETEVENTS;
import static tierlab.engine.uring.IoUringLayout.IORING_OP_READ;
import static tierlab.engine.uring.IoUringLayout.IORING_OP_READ_FIXED;
import static tierlab.engine.uring.IoUringLayout.IORING_OP_WRITE;
import static tierlab.engine.uring.IoUringLayout.IORING_OP_WRITE_FIXED;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import tierlab.engine.uring.Errno;
import tierlab.engine.uring.IoUring;
import tierlab.engine.uring.IoUringProbe;
import tierlab.engine.uring.Libc;
import tierlab.engine.uring.NativeIoException;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;

/**
 * The model's storage port on io_uring: L2 reads and writes between the {@link PinnedArena} and
 * an O_DIRECT file or raw block device, through the raw FFM binding in {@code tierlab.engine.uring}.
 *
 * <h2>Threading model</h2>
 * Each ring has one event-loop thread that owns it completely: it creates the ring (so
 * IORING_SETUP_SINGLE_ISSUER names it), registers the fixed buffers, writes every SQE, makes every
 * {@code io_uring_enter} call, reaps every CQE and calls the sinks. Nothing else touches a ring.
 * <pre>
 *   submit(ops, sink)  (any thread)
 *      |  validate nothing yet; snapshot ops; pick a ring (round robin, or the caller's own ring
 *      |  when called from a completion sink); enqueue the batch; wake the ring if it sleeps
 *      v
 *   ring inbox (lock-free MPSC queue) ---> ring thread loop:
 *        1. drain inbox: validate each op (misaligned -> EINVAL, outside arena -> EFAULT, reported
 *           at once, no system call), split into transfers (max transfer size, registered chunk)
 *        2. fill SQEs for as many transfers as free slots allow (in-flight <= ring entries, so the
 *           CQ, twice as large, never overflows)
 *        3. one io_uring_enter(to_submit, min_complete, GETEVENTS): submits everything filled in
 *           this round -- all ops of one submit() call that fit the ring go in with one call -- and
 *           waits for a completion only when there is nothing else to do
 *        4. reap CQEs: resubmit short transfers' remainders, record errors, and when an op's last
 *           transfer is done call sink.completed(op, completion) on this thread
 * </pre>
 * A sleeping ring thread is blocked in {@code io_uring_enter} waiting for CQEs. To wake it for a
 * new batch, every ring keeps one IORING_OP_READ of an eventfd armed; a submitter writes the
 * eventfd only when the ring announced it is about to wait, so a busy ring costs submitters no
 * system call.
 *
 * <h2>Results</h2>
 * Every op is reported exactly once. A negative CQE result becomes a failure with the errno name
 * (EIO, EBADF, EFBIG, ...); EAGAIN and EINTR are retried a few times first. A short transfer is
 * resubmitted for its remainder; a transfer that makes no progress (end of file or device) fails
 * the op with {@link Errno#ESHORT}: <b>a read past the end of the L2 file is a failure, never
 * zero-filled</b> (the bytes before the end are in the L1 slice, but the op reports ESHORT).
 * When one op of a batch fails, the others still complete and are reported; the ring stays usable.
 * Messages for failures are kept in {@link #recentFailures()}.
 *
 * <h2>Lifetime</h2>
 * {@link #close()} stops accepting (later submits fail at once with {@link Errno#ECLOSED}),
 * lets every accepted op finish and be reported, then unregisters the buffers, unmaps and closes
 * the rings, closes the eventfds and the L2 file, and releases the arena. It must not be called
 * from a completion sink.
 */
public final class IoUringBackend implements StoragePort {

    /** user_data of the eventfd read that wakes a ring; I/O SQEs carry their slot number (>= 0). */
    private static final long WAKE_USER_DATA = -1L;
    /** How often a transfer is retried after EAGAIN or EINTR in its CQE before the op fails. */
    private static final int MAX_RETRIES = 8;
    private static final long JOIN_WARNING_NS = 30_000_000_000L;
    private static final System.Logger LOG = System.getLogger(IoUringBackend.class.getName());

    private final IoUringSettings settings;
    private final PinnedArena arena;
    private final NativeL2File file;
    private final String arenaUser;
    private final Ring[] rings;
    private final BackendCounters counters = new BackendCounters();
    private final FailureLog failures = new FailureLog();
    private final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
    private final AtomicInteger nextRing = new AtomicInteger();
    private final AtomicBoolean firstSinkException = new AtomicBoolean();
    /** The fd written into SQEs: the L2 file's, or an invalid one after {@link #poisonFileDescriptorForTest()}. */
    private volatile int ioFd;
    private boolean closed; // guarded by closeLock

    private IoUringBackend(NativeL2File file, PinnedArena arena, IoUringSettings settings) throws IOException {
        this.settings = settings;
        this.arena = arena;
        this.file = file;
        this.ioFd = file.fd();
        this.arenaUser = "io_uring backend on " + file.path();
        arena.retain(arenaUser);
        this.rings = new Ring[settings.ringCount()];
        List<Ring> started = new ArrayList<>();
        try {
            for (int i = 0; i < rings.length; i++) {
                rings[i] = new Ring(i);
                started.add(rings[i]);
                rings[i].thread.start();
            }
            for (Ring ring : rings) {
                ring.ready.get();
            }
        } catch (InterruptedException | ExecutionException | IOException | RuntimeException e) {
            for (Ring ring : started) {
                ring.stopRequested = true;
                ring.wake();
            }
            for (Ring ring : started) {
                joinUninterruptibly(ring.thread);
                ring.releaseSharedResources();
            }
            arena.release(arenaUser);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("starting the io_uring rings failed: " + cause, cause);
        }
    }

    /**
     * Opens the L2 file or block device at {@code l2Path} (a regular file is created, and extended
     * to {@code settings.l2PreallocateBytes()} if smaller) and starts the rings.
     *
     * @throws IOException when io_uring is unavailable (with the probe's cause), the file cannot be
     *                     opened with O_DIRECT, or a ring cannot be set up
     */
    public static IoUringBackend open(Path l2Path, PinnedArena arena, IoUringSettings settings) throws IOException {
        Objects.requireNonNull(l2Path, "l2Path");
        Objects.requireNonNull(arena, "arena");
        Objects.requireNonNull(settings, "settings");
        IoUringProbe probe = IoUring.probe();
        if (!probe.available()) {
            throw new IOException("io_uring is unavailable: " + probe.cause());
        }
        NativeL2File file = NativeL2File.open(l2Path, settings.directIo(), settings.l2PreallocateBytes());
        try {
            return new IoUringBackend(file, arena, settings);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /** Whether io_uring can be used here, and why not (see {@link IoUring#probe()}). */
    public static IoUringProbe probe() {
        return IoUring.probe();
    }

    @Override
    public String name() {
        return "io_uring";
    }

    @Override
    public void submit(List<? extends IoOp.L2Op> ops, CompletionSink sink) {
        IoOp.L2Op[] snapshot = OpValidation.acceptSubmission(ops, sink, counters);
        if (snapshot.length == 0) {
            return;
        }
        closeLock.readLock().lock();
        try {
            if (!closed) {
                Ring ring = pickRing();
                ring.inbox.add(new Batch(snapshot, sink));
                ring.wake();
                return;
            }
        } finally {
            closeLock.readLock().unlock();
        }
        for (IoOp.L2Op op : snapshot) {
            OpState state = new OpState(op, sink);
            state.fail(Errno.ECLOSED, "the io_uring backend on " + file.path() + " is closed; the op never reached the device");
            deliver(state);
        }
    }

    private Ring pickRing() {
        Thread current = Thread.currentThread();
        for (Ring ring : rings) {
            if (ring.thread == current) {
                // A sink submitting follow-up work stays on its own ring: no wake-up system call.
                return ring;
            }
        }
        return rings[Math.floorMod(nextRing.getAndIncrement(), rings.length)];
    }

    /** A snapshot of the counters (summed over rings). */
    public IoCounters counters() {
        return counters.snapshot();
    }

    /** The last {@value FailureLog#CAPACITY} failures with their messages, oldest first. */
    public List<IoFailure> recentFailures() {
        return failures.snapshot();
    }

    /** Per ring: whether the arena is registered as fixed buffers, or why not. */
    public List<String> fixedBufferStatus() {
        List<String> status = new ArrayList<>();
        for (Ring ring : rings) {
            status.add("ring " + ring.index + ": " + ring.fixedBufferStatus);
        }
        return status;
    }

    /** Whether every ring uses READ_FIXED/WRITE_FIXED. */
    public boolean fixedBuffersActive() {
        for (Ring ring : rings) {
            if (!ring.fixedActive) {
                return false;
            }
        }
        return true;
    }

    /** The IORING_SETUP_* flags the kernel accepted for the rings. */
    public int ringSetupFlags() {
        return rings[0].setupFlags;
    }

    public IoUringSettings settings() {
        return settings;
    }

    public Path l2Path() {
        return file.path();
    }

    /** Current size of the L2 file or device in bytes. */
    public long l2SizeBytes() throws IOException {
        return file.sizeBytes();
    }

    /** Test hook: SQEs from now on carry fd -1, so the kernel answers EBADF; close still closes the real fd. */
    void poisonFileDescriptorForTest() {
        ioFd = -1;
    }

    @Override
    public void close() {
        Thread current = Thread.currentThread();
        for (Ring ring : rings) {
            if (ring.thread == current) {
                throw new IllegalStateException("close() called from a completion sink on " + current.getName()
                        + ": a ring cannot wait for its own completions; close from another thread");
            }
        }
        closeLock.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            closeLock.writeLock().unlock();
        }
        // No submit can enqueue any more. Each ring finishes what it accepted, then tears down.
        for (Ring ring : rings) {
            ring.stopRequested = true;
            ring.wake();
        }
        for (Ring ring : rings) {
            joinUninterruptibly(ring.thread);
            ring.releaseSharedResources();
        }
        file.close();
        arena.release(arenaUser);
    }

    private static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        long startNs = System.nanoTime();
        boolean warned = false;
        while (thread.isAlive()) {
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                interrupted = true;
            }
            if (!warned && thread.isAlive() && System.nanoTime() - startNs > JOIN_WARNING_NS) {
                LOG.log(System.Logger.Level.WARNING, thread.getName() + " has not finished its in-flight I/O after 30 s; still waiting");
                warned = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reports one finished op to its sink, after counting it. Runs on a ring thread (or the submitter, for ECLOSED). */
    private void deliver(OpState state) {
        IoOp.L2Op op = state.op;
        IoCompletion completion;
        if (state.errorName == null) {
            completion = IoCompletion.ok(op.ticket());
            counters.bytesTransferred.add(op.lengthBytes());
        } else {
            completion = IoCompletion.failed(op.ticket(), state.errorName);
            counters.errors.increment();
            failures.add(new IoFailure(op.ticket(), state.errorName, state.errorMessage));
        }
        counters.opsCompleted.increment();
        try {
            state.sink.completed(op, completion);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable t) {
            // A throwing sink must not take the ring (and every other op on it) down with it.
            counters.sinkExceptions.increment();
            if (firstSinkException.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "completion sink threw for ticket " + op.ticket(), t);
            } else {
                LOG.log(System.Logger.Level.WARNING, "completion sink threw for ticket " + op.ticket() + ": " + t);
            }
        }
    }

    // ---- per-op and per-transfer state (confined to one ring thread) ---------------------------

    private record Batch(IoOp.L2Op[] ops, CompletionSink sink) {}

    private static final class OpState {
        final IoOp.L2Op op;
        final CompletionSink sink;
        final boolean read;
        int transfersOutstanding;
        String errorName;
        String errorMessage;

        OpState(IoOp.L2Op op, CompletionSink sink) {
            this.op = op;
            this.sink = sink;
            this.read = op instanceof IoOp.L2Read;
        }

        /** Keeps the first failure: later transfers of a failed op are skipped or ignored. */
        void fail(String name, String message) {
            if (errorName == null) {
                errorName = name;
                errorMessage = message;
            }
        }
    }

    /** One device request of an op: the whole op, a split piece, or the remainder after a short transfer. */
    private static final class Transfer {
        final OpState state;
        long l2Offset;
        long l1Offset;
        long lengthBytes;
        int retries;

        Transfer(OpState state, long l2Offset, long l1Offset, long lengthBytes) {
            this.state = state;
            this.l2Offset = l2Offset;
            this.l1Offset = l1Offset;
            this.lengthBytes = lengthBytes;
        }

        String describe(boolean fixed) {
            String opcode = state.read ? (fixed ? "READ_FIXED" : "READ") : (fixed ? "WRITE_FIXED" : "WRITE");
            return opcode + " of " + lengthBytes + " bytes at l2Offset " + l2Offset + " (l1Offset " + l1Offset + ")";
        }
    }

    // ---- one ring and its event-loop thread ----------------------------------------------------

    private final class Ring implements Runnable {
        final int index;
        final Thread thread;
        final ConcurrentLinkedQueue<Batch> inbox = new ConcurrentLinkedQueue<>();
        /** Set by the ring thread just before it blocks in io_uring_enter; a submitter that clears it writes the eventfd. */
        final AtomicBoolean waiting = new AtomicBoolean();
        final CompletableFuture<Void> ready = new CompletableFuture<>();
        /** Owns the eventfd buffers and errno states; freed by close() after the thread has ended. */
        final Arena sharedArena = Arena.ofShared();
        final MemorySegment wakeValue;
        final MemorySegment wakeReadBuffer;
        final MemorySegment submitterErrnoState;
        final MemorySegment ringErrnoState;
        final int eventFd;
        volatile boolean stopRequested;
        volatile String fixedBufferStatus = "not set up";
        volatile boolean fixedActive;
        volatile int setupFlags;
        /** True when the thread ended after an internal error with I/O possibly in flight: buffers are then leaked, not freed. */
        volatile boolean leakBuffers;

        // Confined to the ring thread.
        private IoUring uring;
        private long chunkBytes;
        private Transfer[] slots;
        private int[] freeSlots;
        private int freeCount;
        private int inflightIo;
        private final ArrayDeque<Transfer> pending = new ArrayDeque<>();
        private boolean wakeArmed;
        private int ioSqesUnsubmitted;

        Ring(int index) throws NativeIoException {
            this.index = index;
            this.wakeValue = sharedArena.allocate(ValueLayout.JAVA_LONG);
            this.wakeValue.set(ValueLayout.JAVA_LONG, 0, 1L);
            this.wakeReadBuffer = sharedArena.allocate(ValueLayout.JAVA_LONG);
            this.submitterErrnoState = Libc.newErrnoState(sharedArena);
            this.ringErrnoState = Libc.newErrnoState(sharedArena);
            // Blocking eventfd: io_uring reads it by arming an internal poll, completing when a
            // submitter writes; a non-blocking one would complete the read with EAGAIN at once.
            int fd = Libc.eventfd(ringErrnoState, 0, Libc.EFD_CLOEXEC);
            if (fd < 0) {
                int errno = Libc.errno(ringErrnoState);
                sharedArena.close();
                throw new NativeIoException("eventfd for ring " + index, errno);
            }
            this.eventFd = fd;
            this.thread = new Thread(this, "tierlab-io_uring-ring-" + index);
            this.thread.setDaemon(true);
        }

        /** Makes a ring blocked in io_uring_enter return; free when the ring is busy. */
        void wake() {
            if (waiting.compareAndSet(true, false)) {
                // errno is not read: a failed write can only mean the ring is already gone.
                Libc.write(submitterErrnoState, eventFd, wakeValue, Long.BYTES);
            }
        }

        void releaseSharedResources() {
            Libc.close(submitterErrnoState, eventFd);
            if (!leakBuffers) {
                sharedArena.close();
            }
        }

        @Override
        public void run() {
            try {
                setUp();
            } catch (Throwable t) {
                if (uring != null) {
                    uring.close();
                }
                ready.completeExceptionally(t);
                return;
            }
            ready.complete(null);
            try {
                loop();
                tearDown();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.ERROR, thread.getName() + " stopped after an internal error", t);
                failAfterInternalError(t);
            }
        }

        private void setUp() throws NativeIoException {
            uring = IoUring.createForSingleThread(settings.ringEntries());
            setupFlags = uring.setupFlags();
            int entries = uring.sqEntries();
            slots = new Transfer[entries];
            freeSlots = new int[entries];
            for (int i = 0; i < entries; i++) {
                freeSlots[i] = entries - 1 - i;
            }
            freeCount = entries;
            if (!settings.fixedBuffers()) {
                fixedBufferStatus = "off (fixedBuffers=false); using READ/WRITE";
                return;
            }
            long chunk = settings.fixedBufferChunkBytes();
            long count = (arena.sizeBytes() + chunk - 1) / chunk;
            // buf_index is a __u16 and the kernel allows at most IORING_MAX_REG_BUFFERS (1 << 14).
            if (count > (1 << 14)) {
                fixedBufferStatus = "not registered: the arena needs " + count + " buffers of " + chunk
                        + " bytes, more than the kernel's 16384; using READ/WRITE";
                return;
            }
            long[] addresses = new long[(int) count];
            long[] lengths = new long[(int) count];
            for (int i = 0; i < count; i++) {
                addresses[i] = arena.baseAddress() + i * chunk;
                lengths[i] = Math.min(chunk, arena.sizeBytes() - i * chunk);
            }
            try {
                uring.registerBuffers(addresses, lengths);
                chunkBytes = chunk;
                fixedActive = true;
                fixedBufferStatus = "registered the " + arena.sizeBytes() + "-byte arena as " + count
                        + " fixed buffer(s); using READ_FIXED/WRITE_FIXED";
            } catch (NativeIoException e) {
                fixedBufferStatus = "not registered (" + e.getMessage() + "); using READ/WRITE";
            }
        }

        private void loop() {
            while (true) {
                drainInbox();
                fillSubmissionQueue();
                armWake();
                if (stopRequested && inflightIo == 0 && pending.isEmpty() && inbox.isEmpty()) {
                    return;
                }
                int toSubmit = uring.publishSq();
                int minComplete = 1;
                if (!inbox.isEmpty()) {
                    minComplete = 0;
                } else {
                    // Announce the wait, then look again: a submitter that enqueued before the
                    // announcement is seen here; one that enqueues after it sees waiting == true
                    // and writes the eventfd, completing the armed read and ending the wait.
                    waiting.set(true);
                    if (!inbox.isEmpty() || (stopRequested && inflightIo == 0 && pending.isEmpty())) {
                        waiting.set(false);
                        minComplete = 0;
                    }
                }
                if (toSubmit == 0 && minComplete == 0 && inflightIo == 0) {
                    continue;
                }
                int result = uring.enter(toSubmit, minComplete, IORING_ENTER_GETEVENTS);
                waiting.set(false);
                counters.enterCalls.increment();
                if (result >= 0) {
                    if (ioSqesUnsubmitted > 0 && result > 0) {
                        counters.submitEnterCalls.increment();
                    }
                    ioSqesUnsubmitted = Math.min(ioSqesUnsubmitted, toSubmit - result);
                } else if (-result != Errno.EINTR && -result != Errno.EAGAIN && -result != Errno.EBUSY) {
                    // EINTR (a signal), EAGAIN and EBUSY (short of request memory, CQ backlog) are
                    // retried after reaping; anything else means the ring itself is broken.
                    throw new IllegalStateException(new NativeIoException(
                            "io_uring_enter(ring " + index + ", to_submit " + toSubmit + ")", -result));
                }
                reap();
            }
        }

        /** Takes new batches: validates each op (failures reported now, without I/O) and queues its transfers. */
        private void drainInbox() {
            Batch batch;
            while ((batch = inbox.poll()) != null) {
                for (IoOp.L2Op op : batch.ops()) {
                    OpState state = new OpState(op, batch.sink());
                    OpValidation.Rejection rejection = OpValidation.check(op, arena.sizeBytes(), settings.alignmentBytes());
                    if (rejection != null) {
                        state.fail(rejection.errorName(), rejection.message());
                        deliver(state);
                        continue;
                    }
                    long done = 0;
                    while (done < op.lengthBytes()) {
                        long length = OpValidation.transferLength(op.l1Offset() + done, op.lengthBytes() - done,
                                settings.maxTransferBytes(), fixedActive ? chunkBytes : 0);
                        pending.addLast(new Transfer(state, op.l2Offset() + done, op.l1Offset() + done, length));
                        state.transfersOutstanding++;
                        done += length;
                    }
                    if (state.transfersOutstanding > 1) {
                        counters.splitTransfers.add(state.transfersOutstanding - 1);
                    }
                }
            }
        }

        /** Moves queued transfers into SQEs while slots and SQ space last (one SQ entry stays reserved for the wake read). */
        private void fillSubmissionQueue() {
            int space = uring.sqSpaceLeft() - (wakeArmed ? 0 : 1);
            int fd = ioFd;
            while (space > 0 && freeCount > 0 && !pending.isEmpty()) {
                Transfer transfer = pending.pollFirst();
                OpState state = transfer.state;
                if (state.errorName != null) {
                    // Another transfer of this op failed: do not issue the rest.
                    finishTransfer(state);
                    continue;
                }
                int slot = freeSlots[--freeCount];
                slots[slot] = transfer;
                inflightIo++;
                byte opcode;
                int bufferIndex = 0;
                if (fixedActive) {
                    opcode = state.read ? IORING_OP_READ_FIXED : IORING_OP_WRITE_FIXED;
                    bufferIndex = (int) (transfer.l1Offset / chunkBytes);
                    counters.fixedBufferTransfers.increment();
                } else {
                    opcode = state.read ? IORING_OP_READ : IORING_OP_WRITE;
                }
                // Checked: the kernel DMAs wherever the SQE points, so a bookkeeping slip (a short transfer's
                // remainder) would land outside the arena unseen; transferLength keeps each under 2 GiB.
                uring.prepareReadWrite(opcode, fd, transfer.l2Offset, arena.address(transfer.l1Offset, transfer.lengthBytes),
                        Math.toIntExact(transfer.lengthBytes), slot, bufferIndex);
                space--;
                ioSqesUnsubmitted++;
                counters.transfers.increment();
            }
        }

        private void armWake() {
            if (!wakeArmed && uring.sqSpaceLeft() > 0) {
                uring.prepareReadWrite(IORING_OP_READ, eventFd, 0, wakeReadBuffer.address(), Long.BYTES, WAKE_USER_DATA, 0);
                wakeArmed = true;
            }
        }

        private void reap() {
            int ready = uring.cqReady();
            if (ready == 0) {
                return;
            }
            for (int i = 0; i < ready; i++) {
                long userData = uring.cqeUserData(i);
                int result = uring.cqeResult(i);
                if (userData == WAKE_USER_DATA) {
                    wakeArmed = false;
                    if (result > 0) {
                        counters.wakeups.increment();
                    }
                    continue;
                }
                int slot = (int) userData;
                Transfer transfer = slots[slot];
                slots[slot] = null;
                freeSlots[freeCount++] = slot;
                inflightIo--;
                onTransferDone(transfer, result);
            }
            uring.cqAdvance(ready);
        }

        private void onTransferDone(Transfer transfer, int result) {
            OpState state = transfer.state;
            if (result < 0) {
                int errno = -result;
                if ((errno == Errno.EAGAIN || errno == Errno.EINTR) && transfer.retries < MAX_RETRIES && state.errorName == null) {
                    transfer.retries++;
                    pending.addFirst(transfer);
                    return;
                }
                state.fail(Errno.name(errno), transfer.describe(fixedActive) + " failed: " + Errno.name(errno)
                        + " (" + Libc.describe(errno) + ")");
            } else if (result == 0) {
                state.fail(Errno.ESHORT, transfer.describe(fixedActive) + " transferred 0 bytes: end of "
                        + (file.blockDevice() ? "device" : "file") + " (reads past the end are failures, never zero-filled)");
            } else if (result < transfer.lengthBytes) {
                transfer.l2Offset += result;
                transfer.l1Offset += result;
                transfer.lengthBytes -= result;
                if (state.errorName == null) {
                    if (transfer.l2Offset % settings.alignmentBytes() == 0) {
                        // Short transfer: issue the remainder next, ahead of newer work.
                        counters.shortTransferResubmits.increment();
                        pending.addFirst(transfer);
                        return;
                    }
                    state.fail(Errno.ESHORT, "short transfer of " + result + " bytes left an unaligned remainder at l2Offset "
                            + transfer.l2Offset + " (the file ends inside a block)");
                }
            }
            finishTransfer(state);
        }

        private void finishTransfer(OpState state) {
            if (--state.transfersOutstanding == 0) {
                deliver(state);
            }
        }

        /** After the loop: make sure the kernel holds no request into our buffers, then release the ring. */
        private void tearDown() {
            // The armed eventfd read targets wakeReadBuffer, which close() frees: complete it by
            // writing the eventfd ourselves rather than leave the kernel a pointer into freed memory.
            int attempts = 0;
            while (wakeArmed && attempts++ < 1000) {
                Libc.write(ringErrnoState, eventFd, wakeValue, Long.BYTES);
                int result = uring.enter(uring.publishSq(), 1, IORING_ENTER_GETEVENTS);
                counters.enterCalls.increment();
                if (result < 0 && -result != Errno.EINTR && -result != Errno.EAGAIN && -result != Errno.EBUSY) {
                    break;
                }
                reap();
            }
            if (wakeArmed) {
                leakBuffers = true;
            }
            try {
                uring.unregisterBuffers();
            } catch (NativeIoException e) {
                LOG.log(System.Logger.Level.WARNING, thread.getName() + ": " + e.getMessage());
            }
            uring.close();
        }

        /**
         * The loop broke on a bug or a broken ring: report every op it held as failed (EIO), keep
         * failing new batches until close, and leak the buffers the kernel might still write.
         */
        private void failAfterInternalError(Throwable cause) {
            leakBuffers = true;
            String message = thread.getName() + " stopped after an internal error: " + cause;
            List<OpState> held = new ArrayList<>();
            for (Transfer transfer : pending) {
                held.add(transfer.state);
            }
            for (Transfer transfer : slots) {
                if (transfer != null) {
                    held.add(transfer.state);
                }
            }
            pending.clear();
            java.util.Arrays.fill(slots, null);
            java.util.Set<OpState> reported = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            for (OpState state : held) {
                if (reported.add(state)) {
                    state.fail("EIO", message);
                    deliver(state);
                }
            }
            while (!stopRequested || !inbox.isEmpty()) {
                Batch batch = inbox.poll();
                if (batch == null) {
                    LockSupport.parkNanos(1_000_000);
                    continue;
                }
                for (IoOp.L2Op op : batch.ops()) {
                    OpState state = new OpState(op, batch.sink());
                    state.fail("EIO", message);
                    deliver(state);
                }
            }
            if (uring != null) {
                uring.close();
            }
        }
    }
}
