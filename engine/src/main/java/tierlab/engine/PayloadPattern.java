package tierlab.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import tierlab.model.geometry.BlockKey;

/**
 * Deterministic KV payload bytes for one block lane, so a lane's bytes identify it and any stale,
 * torn or misplaced read fails verification. Live and hybrid mode write these bytes where the GPU
 * would produce KV and verify them wherever KV is loaded.
 *
 * <p>The lane is a run of 4 KiB pages. A page template of 512 words is a mix of the block key, the
 * lane and the word's position in the page; page {@code p} holds the template XOR a page mask, a
 * mix of the key, the lane and {@code p}:
 * <pre>
 *   word(i) = template(key, lane)[i mod 512]  XOR  mask(key, lane, i div 512)
 * </pre>
 * Every 8-byte word still depends on the key, the lane and its own index (a sector of another
 * block, of another lane, of another page of the same lane or from another place in the same page
 * does not match), but writing and checking a lane costs one XOR per word against a template that
 * stays in the CPU cache, instead of a full 64-bit mix per word: a live run writes and checks every
 * byte of KV it moves, several GiB per pass, on its model thread, and the mix per word made that
 * the live path's largest cost (docs/performance.md).
 */
public final class PayloadPattern {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;
    /** Words per page: 4 KiB, the O_DIRECT alignment, so a page is the unit a transfer tears at. */
    static final int PAGE_WORDS = 512;
    private static final long PAGE_BYTES = PAGE_WORDS * (long) Long.BYTES;

    private PayloadPattern() {}

    /** The word at {@code index} of the lane's payload. */
    public static long word(BlockKey key, int lane, long index) {
        return templateWord(key, lane, (int) (index % PAGE_WORDS)) ^ pageMask(key, lane, index / PAGE_WORDS);
    }

    /** Writes the lane's payload over the whole segment (its size is the lane size). */
    public static void fill(MemorySegment target, BlockKey key, int lane) {
        long[] template = template(key, lane);
        long[] page = new long[PAGE_WORDS];
        long words = target.byteSize() / Long.BYTES;
        for (long first = 0, p = 0; first < words; first += PAGE_WORDS, p++) {
            int count = (int) Math.min(PAGE_WORDS, words - first);
            masked(template, pageMask(key, lane, p), page, count);
            MemorySegment.copy(page, 0, target, WORD, first * Long.BYTES, count);
        }
    }

    /**
     * Whether the segment holds exactly the lane's payload. Checks every word: a torn read that
     * mixes two payloads must not pass.
     */
    public static boolean matches(MemorySegment source, BlockKey key, int lane) {
        long[] template = template(key, lane);
        long[] page = new long[PAGE_WORDS];
        MemorySegment expected = MemorySegment.ofArray(page);
        long words = source.byteSize() / Long.BYTES;
        for (long first = 0, p = 0; first < words; first += PAGE_WORDS, p++) {
            int count = (int) Math.min(PAGE_WORDS, words - first);
            masked(template, pageMask(key, lane, p), page, count);
            long bytes = count * (long) Long.BYTES;
            long from = first * Long.BYTES;
            if (MemorySegment.mismatch(source, from, from + bytes, expected, 0, bytes) != -1) {
                return false;
            }
        }
        return true;
    }

    /** The first {@code count} words of page {@code mask}'s content into {@code page}. */
    private static void masked(long[] template, long mask, long[] page, int count) {
        for (int w = 0; w < count; w++) {
            page[w] = template[w] ^ mask;
        }
    }

    private static long[] template(BlockKey key, int lane) {
        long[] template = new long[PAGE_WORDS];
        for (int w = 0; w < PAGE_WORDS; w++) {
            template[w] = templateWord(key, lane, w);
        }
        return template;
    }

    private static long templateWord(BlockKey key, int lane, int wordInPage) {
        return mix(key.hi() ^ Long.rotateLeft(key.lo(), 17) ^ ((long) lane << 56) ^ (wordInPage * 0x9E3779B97F4A7C15L));
    }

    /** Distinct per page; page 0's mask is not zero either, so a page of zeros never matches. */
    private static long pageMask(BlockKey key, int lane, long page) {
        return mix(Long.rotateLeft(key.hi(), 29) ^ key.lo() ^ ((long) lane << 48) ^ ((page + 1) * 0xD1B54A32D192ED03L));
    }

    /** SplitMix64's finaliser: single-bit changes of the input spread over the whole word. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The page size of the pattern, for tests. */
    static long pageBytes() {
        return PAGE_BYTES;
    }
}
