package tierlab.model.io;

/**
 * The host↔GPU copy port: where the model's copies between the L1 pool (pinned host memory) and
 * GPU KV blocks meet a device. A PCIe model in simulation, real memcpys into device-side buffers in
 * live and hybrid mode. Like the {@link StoragePort}: {@code submit} returns without waiting, and
 * every copy is reported to the sink exactly once.
 */
public interface CopyPort {

    /** Starts a load of L1 bytes into GPU blocks. */
    void toGpu(IoOp.CopyToGpu copy, OpSink sink);

    /** Starts a staging copy of GPU blocks into L1 (a save's first half). */
    void fromGpu(IoOp.CopyFromGpu copy, OpSink sink);
}
