package tierlab.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import tierlab.model.geometry.BlockKey;

/**
 * Deterministic KV payload bytes for one block lane: every 8-byte word is a mix of the block key,
 * the lane and the word's index, so a lane's bytes identify it and any stale, torn or misplaced
 * read fails verification. Live and hybrid mode write these bytes where the GPU would produce KV
 * and verify them wherever KV is loaded.
 */
public final class PayloadPattern {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private PayloadPattern() {}

    /** The word at {@code index} of the lane's payload. */
    public static long word(BlockKey key, int lane, long index) {
        long z = key.hi() ^ Long.rotateLeft(key.lo(), 17) ^ ((long) lane << 56) ^ (index * 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Writes the lane's payload over the whole segment (its size is the lane size). */
    public static void fill(MemorySegment target, BlockKey key, int lane) {
        long words = target.byteSize() / Long.BYTES;
        for (long i = 0; i < words; i++) {
            target.setAtIndex(WORD, i, word(key, lane, i));
        }
    }

    /**
     * Whether the segment holds exactly the lane's payload. Checks every word: a torn read that
     * mixes two payloads must not pass.
     */
    public static boolean matches(MemorySegment source, BlockKey key, int lane) {
        long words = source.byteSize() / Long.BYTES;
        for (long i = 0; i < words; i++) {
            if (source.getAtIndex(WORD, i) != word(key, lane, i)) {
                return false;
            }
        }
        return true;
    }
}
