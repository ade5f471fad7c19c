package tierlab.model.io;

import java.util.List;

/**
 * The storage port: where the model's L2 reads and writes meet a device. One interface, one
 * implementation per mode: a device model in simulation, the real io_uring engine (or the
 * FileChannel fallback) in live mode, and the hybrid backend that runs the real engine but lets
 * the simulator choose when and in which order completions are delivered.
 *
 * <p>Offsets are the model's: {@code l1Offset} is a byte offset into the L1 pool (the pinned
 * arena in live mode), {@code l2Offset} a byte offset into the L2 file or device.
 *
 * <p>Contract (one abstract contract test per implementation checks it):
 * <ul>
 *   <li>{@link #submit} returns without waiting for the device. Operations of one L2 read batch
 *       (same {@code batchId}) arrive in one call and are submitted together.</li>
 *   <li>Every submitted operation is reported to the sink exactly once, successful or failed; a
 *       failure is a value carrying the errno name, never an exception.</li>
 *   <li>Writes to overlapping ranges may complete in any order: ordering is the model's job.</li>
 *   <li>Live implementations may call the sink from their own threads; the runtime hands
 *       completions back to the model's single thread.</li>
 * </ul>
 */
public interface StoragePort extends AutoCloseable {

    /** Receives one completion per submitted operation. */
    @FunctionalInterface
    interface CompletionSink {
        void completed(IoOp.L2Op op, IoCompletion completion);
    }

    /** Starts the operations; their completions go to {@code sink}. */
    void submit(List<? extends IoOp.L2Op> ops, CompletionSink sink);

    /** A short name for reports ({@code io_uring}, {@code filechannel}, {@code sim-nvme}, ...). */
    String name();

    /** Releases the device, rings, registrations and file descriptors. */
    @Override
    void close();
}
