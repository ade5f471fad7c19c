package tierlab.model.testkit;

import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.store.StoreSettings;

/**
 * Model shapes small enough that a test's whole L1 and L2 are a few KiB to a few MiB, so
 * hand-driven schedules, fuzzing and real-file runs stay fast while the geometry arithmetic
 * (lanes, blocks, pages) is the same as for a real model.
 */
public final class TinyModel {
    private TinyModel() {}

    /** 512 B of KV per token (1 layer, 1 KV head of dim 128, 2-byte dtype): the registered "tiny" shape. */
    public static final ModelShape TINY = ModelShape.TINY;
    /** Tokens per block in every tiny geometry. */
    public static final int BLOCK_TOKENS = 16;
    /** One 16-token block of {@link #TINY}: 8 KiB. */
    public static final long BLOCK_BYTES = BLOCK_TOKENS * 512L;
    /**
     * 2 KiB of KV per token (2 layers, 2 KV heads): 32 KiB blocks, large enough for O_DIRECT
     * alignment on a real L2 file in live runs.
     */
    public static final ModelShape SMALL = new ModelShape("small", 2, 2, 128, 2);

    /** {@link #TINY} in 16-token blocks over {@code tp} lanes. */
    public static Geometry geometry(int tp) {
        return new Geometry(TINY, BLOCK_TOKENS, tp);
    }

    /** {@link #SMALL} in 16-token blocks on one lane. */
    public static Geometry smallGeometry() {
        return new Geometry(SMALL, BLOCK_TOKENS, 1);
    }

    /** Default store settings over the tp-1 tiny geometry, capacities counted in blocks. */
    public static StoreSettings store(long l1Blocks, long l2Blocks) {
        return store(l1Blocks, l2Blocks, 1);
    }

    /** Default store settings over the tiny geometry of {@code tp} lanes, capacities counted in blocks. */
    public static StoreSettings store(long l1Blocks, long l2Blocks, int tp) {
        return StoreSettings.defaults(geometry(tp), l1Blocks * BLOCK_BYTES, l2Blocks * BLOCK_BYTES);
    }
}
