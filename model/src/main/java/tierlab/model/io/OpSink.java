package tierlab.model.io;

/**
 * Receives the completion of one operation a device port carried out (copies, compute steps; the
 * storage port's {@link StoragePort.CompletionSink} is the same shape over L2 operations).
 */
@FunctionalInterface
public interface OpSink {
    void completed(IoOp op, IoCompletion completion);
}
