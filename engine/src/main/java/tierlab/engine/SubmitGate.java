package tierlab.engine;

import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort.CompletionSink;

/**
 * The open/closed state a backend's submits and its close() agree on. A submit either hands its
 * batch on while the backend is open or learns that it is closed; close() waits for the submits
 * in progress, so once it has returned from {@link #close()} no batch can be handed on any more.
 */
final class SubmitGate {

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private boolean closed; // guarded by lock

    private static final IoOp.L2Op[] NONE = new IoOp.L2Op[0];

    /**
     * One submit: accepts the batch ({@link OpValidation#acceptSubmission}) and hands its snapshot
     * on while the backend is open. Returns the ops the caller must fail with ECLOSED: none when
     * they were handed on (or the batch was empty), all of them once the backend is closed.
     */
    IoOp.L2Op[] submit(List<? extends IoOp.L2Op> ops, CompletionSink sink, BackendCounters counters,
                       Consumer<IoOp.L2Op[]> handOn) {
        IoOp.L2Op[] snapshot = OpValidation.acceptSubmission(ops, sink, counters);
        if (snapshot.length == 0 || ifOpen(() -> handOn.accept(snapshot))) {
            return NONE;
        }
        return snapshot;
    }

    /** Runs {@code handOn} while the backend is open and says true; says false, running nothing, once it is closed. */
    private boolean ifOpen(Runnable handOn) {
        lock.readLock().lock();
        try {
            if (closed) {
                return false;
            }
            handOn.run();
            return true;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Closes the gate; false when it was closed already (the caller's close() has nothing more to do). */
    boolean close() {
        lock.writeLock().lock();
        try {
            if (closed) {
                return false;
            }
            closed = true;
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }
}
