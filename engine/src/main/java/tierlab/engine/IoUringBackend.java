package tierlab.engine;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import tierlab.engine.UringRing.Batch;
import tierlab.engine.UringRing.OpState;
import tierlab.engine.uring.Errno;
import tierlab.engine.uring.IoUringProbe;
import tierlab.engine.uring.UringAvailability;
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

    private static final long JOIN_WARNING_NS = 30_000_000_000L;
    private static final System.Logger LOG = System.getLogger(IoUringBackend.class.getName());

    private final IoUringSettings settings;
    final PinnedArena arena;
    final NativeL2File file;
    private final String arenaUser;
    private final UringRing[] rings;
    final BackendCounters counters = new BackendCounters();
    private final SinkDelivery delivery = new SinkDelivery(LOG, counters);
    private final SubmitGate gate = new SubmitGate();
    private final AtomicInteger nextRing = new AtomicInteger();
    /** The fd written into SQEs: the L2 file's, or an invalid one after {@link #poisonFileDescriptorForTest()}. */
    private volatile int ioFd;

    private IoUringBackend(NativeL2File file, PinnedArena arena, IoUringSettings settings) throws IOException {
        this.settings = settings;
        this.arena = arena;
        this.file = file;
        this.ioFd = file.fd();
        this.arenaUser = "io_uring backend on " + file.path();
        arena.retain(arenaUser);
        this.rings = new UringRing[settings.ringCount()];
        List<UringRing> started = new ArrayList<>();
        try {
            for (int i = 0; i < rings.length; i++) {
                rings[i] = new UringRing(this, i);
                started.add(rings[i]);
                rings[i].thread.start();
            }
            for (UringRing ring : rings) {
                ring.ready.get();
            }
        } catch (InterruptedException | ExecutionException | IOException | RuntimeException e) {
            for (UringRing ring : started) {
                ring.stopRequested = true;
                ring.wake();
            }
            for (UringRing ring : started) {
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
        IoUringProbe probe = UringAvailability.probe();
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

    /** Whether io_uring can be used here, and why not (see {@link UringAvailability#probe()}). */
    public static IoUringProbe probe() {
        return UringAvailability.probe();
    }

    @Override
    public String name() {
        return "io_uring";
    }

    @Override
    public void submit(List<? extends IoOp.L2Op> ops, CompletionSink sink) {
        IoOp.L2Op[] refused = gate.submit(ops, sink, counters, snapshot -> {
            UringRing ring = pickRing();
            ring.inbox.add(new Batch(snapshot, sink));
            ring.wake();
        });
        for (IoOp.L2Op op : refused) {
            OpState state = new OpState(op, sink);
            state.fail(Errno.ECLOSED, "the io_uring backend on " + file.path() + " is closed; the op never reached the device");
            deliver(state);
        }
    }

    private UringRing pickRing() {
        Thread current = Thread.currentThread();
        for (UringRing ring : rings) {
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
        return delivery.recentFailures();
    }

    /** Per ring: whether the arena is registered as fixed buffers, or why not. */
    public List<String> fixedBufferStatus() {
        List<String> status = new ArrayList<>();
        for (UringRing ring : rings) {
            status.add("ring " + ring.index + ": " + ring.fixedBufferStatus);
        }
        return status;
    }

    /** Whether every ring uses READ_FIXED/WRITE_FIXED. */
    public boolean fixedBuffersActive() {
        for (UringRing ring : rings) {
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

    /** The fd written into SQEs. */
    int ioFd() {
        return ioFd;
    }

    /** Test hook: SQEs from now on carry fd -1, so the kernel answers EBADF; close still closes the real fd. */
    void poisonFileDescriptorForTest() {
        ioFd = -1;
    }

    @Override
    public void close() {
        Thread current = Thread.currentThread();
        for (UringRing ring : rings) {
            if (ring.thread == current) {
                throw new IllegalStateException("close() called from a completion sink on " + current.getName()
                        + ": a ring cannot wait for its own completions; close from another thread");
            }
        }
        if (!gate.close()) {
            return;
        }
        // No submit can enqueue any more. Each ring finishes what it accepted, then tears down.
        for (UringRing ring : rings) {
            ring.stopRequested = true;
            ring.wake();
        }
        for (UringRing ring : rings) {
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
    void deliver(OpState state) {
        delivery.deliver(state.op, state.sink, state.errorName, state.errorMessage);
    }
}
