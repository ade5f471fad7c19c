package tierlab.engine;

import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;

/**
 * Runs one storage operation on a real port and waits for its completion: what hybrid mode
 * needs when the simulator decides that an operation completes now. The waiting lives here, in the
 * engine, so the simulator itself never blocks on a thread.
 */
public final class BlockingStorage {
    private final StoragePort port;
    private final long timeoutNs;

    public BlockingStorage(StoragePort port, long timeoutNs) {
        this.port = port;
        this.timeoutNs = timeoutNs;
    }

    /** Submits the operation and returns its completion; a port that never answers is reported as ETIMEDOUT. */
    public IoCompletion execute(IoOp.L2Op op) {
        LinkedBlockingQueue<IoCompletion> done = new LinkedBlockingQueue<>();
        port.submit(List.of(op), (completedOp, completion) -> done.add(completion));
        try {
            IoCompletion completion = done.poll(timeoutNs, TimeUnit.NANOSECONDS);
            return completion != null ? completion : IoCompletion.failed(op.ticket(), "ETIMEDOUT");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return IoCompletion.failed(op.ticket(), "EINTR");
        }
    }

    public StoragePort port() {
        return port;
    }
}
