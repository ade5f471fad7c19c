package tierlab.engine;

import static tierlab.engine.uring.IoUringLayout.IORING_ENTER_GETEVENTS;
import static tierlab.engine.uring.IoUringLayout.IORING_OP_READ;
import static tierlab.engine.uring.IoUringLayout.IORING_OP_READ_FIXED;
import static tierlab.engine.uring.IoUringLayout.IORING_OP_WRITE;
import static tierlab.engine.uring.IoUringLayout.IORING_OP_WRITE_FIXED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import tierlab.engine.uring.Errno;
import tierlab.engine.uring.IoUring;
import tierlab.engine.uring.Libc;
import tierlab.engine.uring.NativeIoException;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort.CompletionSink;

/**
 * One io_uring ring of an {@link IoUringBackend} and its event-loop thread, which owns it completely:
 * it creates the ring, registers the fixed buffers, writes every SQE, makes every {@code io_uring_enter}
 * call, reaps every CQE and reports finished ops through {@link IoUringBackend#deliver}. Submitters
 * only add batches to its inbox and {@link #wake} it (the backend's documentation has the whole loop).
 */
final class UringRing implements Runnable {

    /** user_data of the eventfd read that wakes a ring; I/O SQEs carry their slot number (>= 0). */
    private static final long WAKE_USER_DATA = -1L;
    /** How often a transfer is retried after EAGAIN or EINTR in its CQE before the op fails. */
    private static final int MAX_RETRIES = 8;
    private static final System.Logger LOG = System.getLogger(IoUringBackend.class.getName());

    private final IoUringBackend backend;
    private final IoUringSettings settings;
    private final PinnedArena arena;
    private final NativeL2File file;
    private final BackendCounters counters;
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

    UringRing(IoUringBackend backend, int index) throws NativeIoException {
        this.backend = backend;
        this.settings = backend.settings();
        this.arena = backend.arena;
        this.file = backend.file;
        this.counters = backend.counters;
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
                    backend.deliver(state);
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
        int fd = backend.ioFd();
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
            backend.deliver(state);
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
                backend.deliver(state);
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
                backend.deliver(state);
            }
        }
        if (uring != null) {
            uring.close();
        }
    }

    // ---- per-op and per-transfer state (confined to one ring thread) ---------------------------

    record Batch(IoOp.L2Op[] ops, CompletionSink sink) {}

    static final class OpState {
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
    static final class Transfer {
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
}
