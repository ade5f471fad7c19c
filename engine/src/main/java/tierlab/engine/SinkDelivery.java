package tierlab.engine;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort.CompletionSink;

/**
 * How a backend reports one finished op: it counts the op (bytes on success, an error and the
 * message in the failure log otherwise), then calls the sink. A throwing sink must not take the
 * thread that reports (a ring or a pool worker) and every other op on it down with it, so its
 * exception is counted and logged: the first one with its stack trace, later ones in one line,
 * so a broken sink cannot flood the log.
 */
final class SinkDelivery {

    private final System.Logger log;
    private final BackendCounters counters;
    private final FailureLog failures = new FailureLog();
    private final AtomicBoolean firstSinkException = new AtomicBoolean();

    SinkDelivery(System.Logger log, BackendCounters counters) {
        this.log = log;
        this.counters = counters;
    }

    /** Reports {@code op} to {@code sink}: a success when {@code errorName} is null, else a failure with that errno name. */
    void deliver(IoOp.L2Op op, CompletionSink sink, String errorName, String message) {
        IoCompletion completion;
        if (errorName == null) {
            completion = IoCompletion.ok(op.ticket());
            counters.bytesTransferred.add(op.lengthBytes());
        } else {
            completion = IoCompletion.failed(op.ticket(), errorName);
            counters.errors.increment();
            failures.add(new IoFailure(op.ticket(), errorName, message));
        }
        counters.opsCompleted.increment();
        try {
            sink.completed(op, completion);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable t) {
            counters.sinkExceptions.increment();
            if (firstSinkException.compareAndSet(false, true)) {
                log.log(System.Logger.Level.WARNING, "completion sink threw for ticket " + op.ticket(), t);
            } else {
                log.log(System.Logger.Level.WARNING, "completion sink threw for ticket " + op.ticket() + ": " + t);
            }
        }
    }

    /** The last {@value FailureLog#CAPACITY} failures with their messages, oldest first. */
    List<IoFailure> recentFailures() {
        return failures.snapshot();
    }
}
