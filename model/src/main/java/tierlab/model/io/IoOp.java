package tierlab.model.io;

import java.util.List;
import java.util.Objects;
import tierlab.model.geometry.BlockKey;

/**
 * An operation the model asks the outside world to perform. The model never does I/O: it emits
 * these immutable records, each with a ticket, and resumes when the backend reports an
 * {@link IoCompletion} for that ticket. The same records drive the device model in simulation,
 * the real io_uring engine in live mode, and the hybrid backend in between.
 */
public sealed interface IoOp permits IoOp.L2Op, IoOp.CopyToGpu, IoOp.CopyFromGpu, IoOp.Compute {

    long ticket();

    /** Payload identity of one unit: the KV of one block lane is a pure function of its prefix key. */
    record Content(BlockKey key, int lane) {
        // Written out: the payload ledger and the lease checks compare contents on every load and
        // lease, and the record's generated equals goes through a method-handle chain there.
        @Override
        public boolean equals(Object other) {
            return other instanceof Content that && lane == that.lane && Objects.equals(key, that.key);
        }

        /** The value the record's generated hashCode gives (31 × key's hash + lane). */
        @Override
        public int hashCode() {
            return 31 * Objects.hashCode(key) + lane;
        }
    }

    /** An operation on the L2 device: what a {@link StoragePort} performs. */
    sealed interface L2Op extends IoOp permits L2Read, L2Write {
        long l1Offset();

        long l2Offset();

        long lengthBytes();
    }

    /**
     * Read an L2 range into an L1 slice. Reads with the same {@code batchId} were grouped by the
     * model and should be submitted together (one io_uring_enter per batch per ring).
     */
    record L2Read(long ticket, long l2Offset, long lengthBytes, long l1Offset, long batchId, int batchSize) implements L2Op {}

    /** Write an L1 slice to an L2 range. */
    record L2Write(long ticket, long l1Offset, long l2Offset, long lengthBytes) implements L2Op {}

    /** One piece of a grouped L1 → GPU copy, with the payload the request expects to receive. */
    record GpuLoadSegment(long l1Offset, long lengthBytes, long gpuBlockId, Content expected) {}

    /** Copy L1 slices to the GPU in one grouped copy (the slices are borrowed until it completes). */
    record CopyToGpu(long ticket, long requestId, List<GpuLoadSegment> segments) implements IoOp {
        public CopyToGpu {
            segments = List.copyOf(segments);
        }

        public long totalBytes() {
            long total = 0;
            for (GpuLoadSegment segment : segments) {
                total += segment.lengthBytes();
            }
            return total;
        }
    }

    /**
     * Stage KV from GPU blocks into one contiguous L1 span: block i's lane lands at
     * {@code l1Offset + i × laneBytes}. {@code expected} is what the request believes those GPU
     * blocks hold; the copy moves whatever they actually hold.
     */
    record CopyFromGpu(long ticket, long requestId, long l1Offset, long laneBytes, int lane,
                       List<Long> gpuBlockIds, List<Content> expected) implements IoOp {
        public CopyFromGpu {
            gpuBlockIds = List.copyOf(gpuBlockIds);
            expected = List.copyOf(expected);
        }

        public long totalBytes() {
            return laneBytes * gpuBlockIds.size();
        }
    }

    /** The KV that one GPU block holds after a compute step finishes it. */
    record GpuBlockWrite(long gpuBlockId, BlockKey key) {}

    /** One request's share of an engine step: new tokens computed over cached context tokens. */
    record ComputeItem(long requestId, long newTokens, long contextTokens, List<GpuBlockWrite> blocksCompleted) {
        public ComputeItem {
            blocksCompleted = List.copyOf(blocksCompleted);
        }
    }

    /** One forward pass of the serving engine over a batch. */
    record Compute(long ticket, long stepIndex, List<ComputeItem> items) implements IoOp {
        public Compute {
            items = List.copyOf(items);
        }

        public long newTokens() {
            long total = 0;
            for (int i = 0; i < items.size(); i++) {
                total += items.get(i).newTokens();
            }
            return total;
        }
    }
}
