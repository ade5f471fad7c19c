package tierlab.engine;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tierlab.engine.uring.Errno;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;

/**
 * The model's storage port on positional {@link FileChannel} I/O: the fallback for machines
 * without io_uring and the baseline the io_uring engine is compared with.
 *
 * <h2>Threading model</h2>
 * A fixed pool of {@code workerThreads} threads; each op of a batch is one task that validates
 * the op, performs its transfers with {@code FileChannel.read/write(buffer, position)} and calls
 * the sink on that worker thread. The pool size is the backend's queue depth. Workers are never
 * interrupted: an interrupt during FileChannel I/O closes the channel for everyone.
 *
 * <h2>Contract</h2>
 * The same as {@link IoUringBackend}: misaligned ops fail with EINVAL and L1 slices outside the
 * arena with EFAULT, both before any I/O; operations larger than {@code maxTransferBytes} are
 * split; short transfers are continued; a read that reaches the end of the file fails with
 * {@link Errno#ESHORT} (never zero-filled); I/O errors are reported by errno name (the JDK's
 * IOException message is libc's strerror text, mapped back to the name); every op is reported
 * exactly once; after {@link #close()} submits fail with {@link Errno#ECLOSED}.
 *
 * <p>The file is opened with {@code ExtendedOpenOption.DIRECT} when the file system supports it,
 * else buffered ({@link #directIoStatus()} says which and why).
 */
public final class FileChannelBackend implements StoragePort {

    private static final System.Logger LOG = System.getLogger(FileChannelBackend.class.getName());

    private final FileChannelSettings settings;
    private final PinnedArena arena;
    private final Path path;
    private final FileChannel realChannel;
    private final boolean directIo;
    private final String directIoStatus;
    private final ExecutorService workers;
    private final ThreadGroupMarker workerMarker = new ThreadGroupMarker();
    private final String arenaUser;
    private final BackendCounters counters = new BackendCounters();
    private final SinkDelivery delivery = new SinkDelivery(LOG, counters);
    private final SubmitGate gate = new SubmitGate();
    /** The channel used for I/O: the real one, or a closed one after {@link #poisonFileDescriptorForTest()}. */
    private volatile FileChannel channel;

    /** Marks the pool's threads so close() can refuse to run on one of them (it would wait for itself). */
    private static final class ThreadGroupMarker {
        final ThreadLocal<Boolean> isWorker = ThreadLocal.withInitial(() -> false);
    }

    private FileChannelBackend(Path path, FileChannel channel, boolean directIo, String directIoStatus,
                               PinnedArena arena, FileChannelSettings settings) {
        this.settings = settings;
        this.arena = arena;
        this.path = path;
        this.realChannel = channel;
        this.channel = channel;
        this.directIo = directIo;
        this.directIoStatus = directIoStatus;
        this.arenaUser = "filechannel backend on " + path;
        arena.retain(arenaUser);
        AtomicInteger threadNumber = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(() -> {
                workerMarker.isWorker.set(true);
                runnable.run();
            }, "tierlab-filechannel-worker-" + threadNumber.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        };
        this.workers = Executors.newFixedThreadPool(settings.workerThreads(), factory);
    }

    /**
     * Opens (creating a regular file if needed, extended sparsely to {@code l2PreallocateBytes})
     * the L2 file or block device at {@code l2Path}.
     */
    public static FileChannelBackend open(Path l2Path, PinnedArena arena, FileChannelSettings settings) throws IOException {
        Objects.requireNonNull(l2Path, "l2Path");
        Objects.requireNonNull(arena, "arena");
        Objects.requireNonNull(settings, "settings");
        if (Files.isDirectory(l2Path)) {
            throw new IOException("L2 path " + l2Path + " is a directory; give a file or a block device");
        }
        boolean existed = Files.exists(l2Path);
        boolean device = existed && !Files.isRegularFile(l2Path);
        if (!device && settings.l2PreallocateBytes() > 0) {
            try (RandomAccessFile file = new RandomAccessFile(l2Path.toFile(), "rw")) {
                if (file.length() < settings.l2PreallocateBytes()) {
                    L2Room.check(l2Path, file.length(), settings.l2PreallocateBytes());
                    file.setLength(settings.l2PreallocateBytes());
                }
            } catch (IOException e) {
                L2Room.deleteIfCreated(l2Path, existed);
                throw e;
            }
        }
        Set<OpenOption> options = new HashSet<>(List.of(StandardOpenOption.READ, StandardOpenOption.WRITE));
        if (!device) {
            options.add(StandardOpenOption.CREATE);
        }
        FileChannel channel = null;
        String status;
        boolean direct = false;
        if (settings.preferDirectIo() && DirectOpenOption.direct().isEmpty()) {
            status = "buffered: this JDK has no ExtendedOpenOption.DIRECT";
        } else if (settings.preferDirectIo()) {
            Set<OpenOption> directOptions = new HashSet<>(options);
            directOptions.add(DirectOpenOption.direct().orElseThrow());
            try {
                channel = FileChannel.open(l2Path, directOptions);
                direct = true;
                status = "DIRECT (O_DIRECT; file store block size " + Files.getFileStore(l2Path).getBlockSize() + " bytes)";
            } catch (IOException | UnsupportedOperationException e) {
                status = "buffered: the file system refused DIRECT (" + e + ")";
            }
        } else {
            status = "buffered (preferDirectIo=false)";
        }
        if (channel == null) {
            channel = FileChannel.open(l2Path, options);
        }
        return new FileChannelBackend(l2Path, channel, direct, status, arena, settings);
    }

    @Override
    public String name() {
        return "filechannel";
    }

    @Override
    public void submit(List<? extends IoOp.L2Op> ops, CompletionSink sink) {
        IoOp.L2Op[] refused = gate.submit(ops, sink, counters, snapshot -> {
            for (IoOp.L2Op op : snapshot) {
                workers.execute(() -> perform(op, sink));
            }
        });
        for (IoOp.L2Op op : refused) {
            deliver(op, sink, Errno.ECLOSED, "the filechannel backend on " + path + " is closed; the op never reached the device");
        }
    }

    private void perform(IoOp.L2Op op, CompletionSink sink) {
        OpValidation.Rejection rejection = OpValidation.check(op, arena.sizeBytes(), settings.alignmentBytes());
        if (rejection != null) {
            deliver(op, sink, rejection.errorName(), rejection.message());
            return;
        }
        boolean read = op instanceof IoOp.L2Read;
        String kind = read ? "read" : "write";
        FileChannel ch = channel;
        long done = 0;
        try {
            while (done < op.lengthBytes()) {
                long length = OpValidation.transferLength(op.l1Offset() + done, op.lengthBytes() - done, settings.maxTransferBytes(), 0);
                if (done > 0) {
                    counters.splitTransfers.increment();
                }
                ByteBuffer buffer = arena.segment().asSlice(op.l1Offset() + done, length).asByteBuffer();
                long position = op.l2Offset() + done;
                boolean first = true;
                while (buffer.hasRemaining()) {
                    if (!first) {
                        counters.shortTransferResubmits.increment();
                    }
                    first = false;
                    counters.transfers.increment();
                    int moved = read ? ch.read(buffer, position) : ch.write(buffer, position);
                    if (moved <= 0) {
                        deliver(op, sink, Errno.ESHORT, kind + " of " + buffer.remaining() + " bytes at l2Offset " + position
                                + " transferred nothing: end of file (reads past the end are failures, never zero-filled)");
                        return;
                    }
                    position += moved;
                    if (buffer.hasRemaining() && directIo && position % settings.alignmentBytes() != 0) {
                        deliver(op, sink, Errno.ESHORT, "short " + kind + " left an unaligned remainder at l2Offset " + position
                                + " (the file ends inside a block)");
                        return;
                    }
                }
                done += length;
            }
        } catch (ClosedChannelException e) {
            deliver(op, sink, Errno.name(Errno.EBADF), kind + " at l2Offset " + (op.l2Offset() + done)
                    + ": the file channel is closed (" + e.getClass().getSimpleName() + ")");
            return;
        } catch (IOException e) {
            String name = ErrnoMessages.nameOf(e.getMessage());
            deliver(op, sink, name, kind + " at l2Offset " + (op.l2Offset() + done) + " failed: " + e.getMessage());
            return;
        } catch (RuntimeException e) {
            deliver(op, sink, "EIO", kind + " at l2Offset " + (op.l2Offset() + done) + " failed: " + e);
            return;
        }
        deliver(op, sink, null, null);
    }

    private void deliver(IoOp.L2Op op, CompletionSink sink, String errorName, String message) {
        delivery.deliver(op, sink, errorName, message);
    }

    public IoCounters counters() {
        return counters.snapshot();
    }

    public List<IoFailure> recentFailures() {
        return delivery.recentFailures();
    }

    /** Whether the file was opened with DIRECT. */
    public boolean directIo() {
        return directIo;
    }

    /** "DIRECT (...)" or "buffered: ..." with the reason. */
    public String directIoStatus() {
        return directIoStatus;
    }

    public FileChannelSettings settings() {
        return settings;
    }

    public Path l2Path() {
        return path;
    }

    /** Test hook: I/O from now on goes to a closed channel (EBADF); close still closes the real one. */
    void poisonFileDescriptorForTest() throws IOException {
        FileChannel dead = FileChannel.open(path, StandardOpenOption.READ);
        dead.close();
        channel = dead;
    }

    @Override
    public void close() {
        if (workerMarker.isWorker.get()) {
            throw new IllegalStateException("close() called from a completion sink on " + Thread.currentThread().getName()
                    + ": the pool cannot wait for itself; close from another thread");
        }
        if (!gate.close()) {
            return;
        }
        workers.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (workers.awaitTermination(1, TimeUnit.SECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        try {
            realChannel.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "closing " + path + " failed", e);
        }
        arena.release(arenaUser);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
