package tierlab.engine;

import tierlab.engine.uring.Errno;
import tierlab.model.io.IoOp;

/**
 * The checks every backend makes before an operation reaches a device: O_DIRECT needs the buffer
 * address, the file offset and the length aligned (4096 is safe on every file system and NVMe
 * device here), and the L1 slice must lie inside the arena. A rejected operation fails with
 * EINVAL (misaligned, empty or negative) or EFAULT (outside the arena, as the kernel would answer
 * for a bad buffer) and a message; no system call is made for it.
 */
final class OpValidation {

    /** Why an operation was rejected. */
    record Rejection(String errorName, String message) {}

    private OpValidation() {}

    /**
     * The start of every backend's submit: arguments checked, the operations copied (the caller
     * may reuse its list as soon as submit returns) and counted. Empty when there is nothing to do.
     */
    static IoOp.L2Op[] acceptSubmission(java.util.List<? extends IoOp.L2Op> ops, tierlab.model.io.StoragePort.CompletionSink sink,
                                        BackendCounters counters) {
        java.util.Objects.requireNonNull(ops, "ops");
        java.util.Objects.requireNonNull(sink, "sink");
        IoOp.L2Op[] snapshot = ops.toArray(new IoOp.L2Op[0]);
        for (IoOp.L2Op op : snapshot) {
            java.util.Objects.requireNonNull(op, "ops contains null");
        }
        if (snapshot.length > 0) {
            counters.opsSubmitted.add(snapshot.length);
            counters.batches.increment();
        }
        return snapshot;
    }

    /** Null when {@code op} may be issued; otherwise the errno name and a sentence. */
    static Rejection check(IoOp.L2Op op, long arenaBytes, long alignmentBytes) {
        String kind = op instanceof IoOp.L2Read ? "read" : "write";
        if (op.lengthBytes() <= 0) {
            return new Rejection("EINVAL", kind + " of lengthBytes " + op.lengthBytes() + ": length must be positive; rejected before any I/O");
        }
        if (op.lengthBytes() % alignmentBytes != 0) {
            return new Rejection("EINVAL", kind + " of lengthBytes " + op.lengthBytes() + " is not a multiple of "
                    + alignmentBytes + " (O_DIRECT); rejected before any I/O");
        }
        if (op.l2Offset() < 0 || op.l2Offset() % alignmentBytes != 0) {
            return new Rejection("EINVAL", kind + " at l2Offset " + op.l2Offset() + " is not a non-negative multiple of "
                    + alignmentBytes + " (O_DIRECT); rejected before any I/O");
        }
        if (op.l1Offset() < 0 || op.l1Offset() % alignmentBytes != 0) {
            return new Rejection("EINVAL", kind + " with l1Offset " + op.l1Offset() + ": the buffer address is not a multiple of "
                    + alignmentBytes + " (O_DIRECT; the arena base is aligned, so l1Offset must be); rejected before any I/O");
        }
        if (op.l1Offset() > arenaBytes - op.lengthBytes()) {
            return new Rejection(Errno.name(Errno.EFAULT), kind + " of L1 slice (l1Offset " + op.l1Offset() + ", " + op.lengthBytes()
                    + " bytes) reaches outside the arena of " + arenaBytes + " bytes; rejected before any I/O");
        }
        return null;
    }

    /**
     * The length of the next transfer of an operation at {@code l1Offset} with {@code remainingBytes}
     * left: at most {@code maxTransferBytes}, and, when {@code chunkBytes > 0}, not crossing a chunk
     * boundary of the arena (a registered buffer cannot serve a transfer that runs past its end).
     */
    static long transferLength(long l1Offset, long remainingBytes, long maxTransferBytes, long chunkBytes) {
        long length = Math.min(remainingBytes, maxTransferBytes);
        if (chunkBytes > 0) {
            long chunkEnd = (l1Offset / chunkBytes + 1) * chunkBytes;
            length = Math.min(length, chunkEnd - l1Offset);
        }
        // The caller advances by this length until nothing remains: zero (no bytes left, a zero maximum)
        // would loop forever.
        assert length > 0 : "transfer of " + length + " bytes at l1Offset " + l1Offset + " (" + remainingBytes
                + " bytes left, at most " + maxTransferBytes + " per transfer)";
        return length;
    }
}
