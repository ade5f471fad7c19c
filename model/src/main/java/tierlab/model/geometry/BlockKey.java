package tierlab.model.geometry;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A 128-bit prefix key. key_0 is the hash of a fixed domain tag; key_i = H(key_(i-1) ‖ token ids
 * of block i). Equal keys mean equal prefixes up to and including that block, so a lookup walks
 * the chain until the first absent key.
 *
 * <p>H is SHA-256 truncated to 128 bits: stable across JVMs and runs (never
 * {@code Object.hashCode}) and in the JDK, which the model may not leave.
 */
public record BlockKey(long hi, long lo) implements Comparable<BlockKey> {

    /** The chain's root: the hash of the domain tag. Its children are the first blocks of prompts. */
    public static final BlockKey ROOT = hash(null, "tierlab/kv-prefix/v1".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    /** key_i from key_(i-1) and the token ids of block i. */
    public static BlockKey chain(BlockKey parent, int[] blockTokenIds) {
        ByteBuffer tokens = ByteBuffer.allocate(blockTokenIds.length * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int token : blockTokenIds) {
            tokens.putInt(token);
        }
        return hash(parent, tokens.array());
    }

    /**
     * A key for a block that a trace names by id (Mooncake {@code hash_ids}), re-blocked into
     * {@code subBlock} pieces: the trace id already encodes its prefix, so (parent, id, sub-block)
     * keeps the prefix property at any block size.
     */
    public static BlockKey fromTraceId(BlockKey parent, long traceBlockId, int subBlock) {
        ByteBuffer bytes = ByteBuffer.allocate(Long.BYTES + Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.putLong(traceBlockId).putInt(subBlock);
        return hash(parent, bytes.array());
    }

    /** A whole prompt's chain of full-block keys from its token ids. */
    public static BlockKey[] chainOf(int[] promptTokenIds, int blockTokens) {
        int blocks = promptTokenIds.length / blockTokens;
        BlockKey[] keys = new BlockKey[blocks];
        BlockKey parent = ROOT;
        for (int b = 0; b < blocks; b++) {
            int[] block = java.util.Arrays.copyOfRange(promptTokenIds, b * blockTokens, (b + 1) * blockTokens);
            parent = chain(parent, block);
            keys[b] = parent;
        }
        return keys;
    }

    private static BlockKey hash(BlockKey parent, byte[] payload) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
        if (parent != null) {
            ByteBuffer parentBytes = ByteBuffer.allocate(16).order(ByteOrder.BIG_ENDIAN);
            parentBytes.putLong(parent.hi).putLong(parent.lo);
            sha.update(parentBytes.array());
        }
        sha.update(payload);
        ByteBuffer digest = ByteBuffer.wrap(sha.digest()).order(ByteOrder.BIG_ENDIAN);
        return new BlockKey(digest.getLong(), digest.getLong());
    }

    /** The bits are a SHA-256 digest already: fold them, nothing to mix. Written out so lookups stay cheap. */
    @Override
    public int hashCode() {
        return (int) (hi ^ (hi >>> 32) ^ lo ^ (lo >>> 32));
    }

    @Override
    public boolean equals(Object other) {
        return this == other || (other instanceof BlockKey key && key.hi == hi && key.lo == lo);
    }

    @Override
    public int compareTo(BlockKey other) {
        int byHi = Long.compareUnsigned(hi, other.hi);
        return byHi != 0 ? byHi : Long.compareUnsigned(lo, other.lo);
    }

    @Override
    public String toString() {
        return HexFormat.of().toHexDigits(hi).substring(0, 8);
    }

    public String toHex() {
        return HexFormat.of().toHexDigits(hi) + HexFormat.of().toHexDigits(lo);
    }
}
