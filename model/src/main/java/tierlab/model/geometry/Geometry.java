package tierlab.model.geometry;

import tierlab.model.Settings;

/**
 * Block and lane sizes derived from a model shape, the block size in tokens and the tensor
 * parallel degree.
 *
 * <p>A block is {@code blockTokens} tokens of KV. With tensor parallelism each of the {@code tp}
 * ranks owns one lane: 1/tp of every block. The L2 file is laid out lane-major, so that the
 * consecutive slots of one lane are contiguous on disk and a rank's batch of adjacent slots is one
 * contiguous write:
 *
 * <pre>
 *   L2 file:  | lane 0: slot 0 | slot 1 | ... | slot S-1 | lane 1: slot 0 | ... | slot S-1 | ...
 *   unit offset(slot, lane) = (lane × slotCount + slot) × laneBytes
 * </pre>
 *
 * The pair (slot, lane) is a <em>unit</em>: the granularity of L1 entries, leases and I/O.
 */
public record Geometry(ModelShape shape, int blockTokens, int tp) {

    public Geometry {
        if (shape == null) {
            throw new IllegalArgumentException("model must be set");
        }
        Settings.positive("blockTokens", blockTokens);
        Settings.positive("tp", tp);
        long blockBytes = (long) blockTokens * shape.kvBytesPerToken();
        if (blockBytes % (Settings.PAGE_BYTES * tp) != 0) {
            throw new IllegalArgumentException("blockTokens: block bytes " + blockBytes + " (" + blockTokens
                    + " tokens × " + shape.kvBytesPerToken() + " B) split over tp=" + tp
                    + " must give lanes that are multiples of " + Settings.PAGE_BYTES + " bytes");
        }
    }

    /** The reference configuration: Qwen3-8B, 16-token blocks, tp = 1. */
    public static Geometry qwen3_8b() {
        return new Geometry(ModelShape.QWEN3_8B, 16, 1);
    }

    public long blockBytes() {
        return (long) blockTokens * shape.kvBytesPerToken();
    }

    public long laneBytes() {
        return blockBytes() / tp;
    }

    /** Number of whole blocks in a prompt; a trailing partial block is never stored. */
    public int fullBlocks(long tokens) {
        return (int) (tokens / blockTokens);
    }
}
