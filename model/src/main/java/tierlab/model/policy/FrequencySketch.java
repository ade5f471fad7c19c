package tierlab.model.policy;

/**
 * TinyLFU's frequency filter (Einziger, Friedman and Manes, ACM TOS 2017): a count-min sketch of
 * 4-bit counters that estimates how often a key was referenced recently, in a few bytes per
 * cache entry, plus an optional doorkeeper.
 *
 * <ul>
 *   <li><b>Sketch</b>: {@value #DEPTH} rows of {@code width} counters, width the power of two at
 *       least the capacity. A key's counter in row i is picked by a seeded 64-bit mix of the key
 *       (deterministic: no {@code hashCode}, no randomness). {@link #increment} adds one to each of
 *       the key's counters that is below {@value #MAX_COUNT}; {@link #frequency} is the smallest of
 *       them (count-min: collisions only ever overestimate).</li>
 *   <li><b>Aging (reset)</b>: every {@code sampleSize} increments (agingFactor × capacity; Caffeine
 *       uses 10 × the maximum size) every counter is halved, rounded down, and the doorkeeper is
 *       cleared, so the filter follows a changing popularity instead of remembering forever. Every
 *       increment counts toward the reset (Caffeine counts only those that raised a counter).</li>
 *   <li><b>Doorkeeper</b> (optional, as in the TinyLFU paper; Caffeine has none): a Bloom filter in
 *       front of the sketch. A key's first increment since the last reset only sets its doorkeeper
 *       bits; later ones reach the sketch. The estimate adds one for a key the doorkeeper holds. One-
 *       hit wonders then never occupy sketch counters.</li>
 * </ul>
 * Our own code after the published design; see docs/policies.md for the sources. Public because the
 * store's L2 admission filter ({@code store.L2WriteGate}) counts block sightings with it too.
 */
public final class FrequencySketch {

    static final int DEPTH = 4;
    static final int MAX_COUNT = 15;
    /** Odd 64-bit constants (from the golden ratio and SplitMix64), one seed per row. */
    private static final long[] ROW_SEEDS = {
        0x9E3779B97F4A7C15L, 0xBF58476D1CE4E5B9L, 0x94D049BB133111EBL, 0xD6E8FEB86659FD93L};
    private static final int DOORKEEPER_HASHES = 2;

    private final byte[][] counters;
    private final int widthMask;
    private final long sampleSize;
    private final long[] doorkeeperBits;
    private final int doorkeeperMask;
    private long incrementsSinceReset;
    private long resets;

    /**
     * @param capacityEntries the cache capacity; sizes the sketch
     * @param sampleSize      increments between two resets; 0 never resets
     * @param doorkeeper      whether a doorkeeper filters first occurrences
     */
    public FrequencySketch(long capacityEntries, long sampleSize, boolean doorkeeper) {
        int width = Integer.highestOneBit((int) Math.min(1 << 30, Math.max(16, capacityEntries)) * 2 - 1);
        this.counters = new byte[DEPTH][width];
        this.widthMask = width - 1;
        this.sampleSize = sampleSize;
        // Eight doorkeeper bits per counter column keeps its false positives near 2% at capacity.
        int doorkeeperBitCount = doorkeeper ? width * 8 : 0;
        this.doorkeeperBits = new long[Math.max(1, doorkeeperBitCount / 64)];
        this.doorkeeperMask = doorkeeper ? doorkeeperBitCount - 1 : -1;
    }

    /** Counters per row. */
    int width() {
        return widthMask + 1;
    }

    public long resets() {
        return resets;
    }

    /** Records one reference to {@code key}; may trigger a reset. */
    public void increment(long key) {
        if (doorkeeperMask >= 0 && !doorkeeperContainsThenAdd(key)) {
            countTowardReset();
            return;
        }
        for (int row = 0; row < DEPTH; row++) {
            int column = column(key, row);
            if (counters[row][column] < MAX_COUNT) {
                counters[row][column]++;
            }
        }
        countTowardReset();
    }

    /** The estimated number of recent references to {@code key}, 0 to MAX_COUNT (+1 with a doorkeeper). */
    public int frequency(long key) {
        int smallest = MAX_COUNT;
        for (int row = 0; row < DEPTH; row++) {
            smallest = Math.min(smallest, counters[row][column(key, row)]);
        }
        return doorkeeperMask >= 0 && doorkeeperContains(key) ? smallest + 1 : smallest;
    }

    private void countTowardReset() {
        if (sampleSize > 0 && ++incrementsSinceReset >= sampleSize) {
            reset();
        }
    }

    /** Halves every counter and clears the doorkeeper: TinyLFU's aging step. */
    void reset() {
        for (byte[] row : counters) {
            for (int column = 0; column < row.length; column++) {
                row[column] = (byte) (row[column] >>> 1);
            }
        }
        java.util.Arrays.fill(doorkeeperBits, 0L);
        incrementsSinceReset = 0;
        resets++;
    }

    private int column(long key, int row) {
        return (int) (mix(key ^ ROW_SEEDS[row]) & widthMask);
    }

    private boolean doorkeeperContains(long key) {
        for (int hash = 0; hash < DOORKEEPER_HASHES; hash++) {
            int bit = doorkeeperBit(key, hash);
            if ((doorkeeperBits[bit >>> 6] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether the doorkeeper held {@code key}; adds it either way. */
    private boolean doorkeeperContainsThenAdd(long key) {
        boolean contained = doorkeeperContains(key);
        for (int hash = 0; hash < DOORKEEPER_HASHES; hash++) {
            int bit = doorkeeperBit(key, hash);
            doorkeeperBits[bit >>> 6] |= 1L << bit;
        }
        return contained;
    }

    private int doorkeeperBit(long key, int hash) {
        return (int) (mix(key + ROW_SEEDS[DEPTH - 1 - hash]) & doorkeeperMask);
    }

    /** SplitMix64's finaliser: a bijective mix whose every output bit depends on every input bit. */
    static long mix(long value) {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Counters within [0, MAX_COUNT] and the reset clock within its sample. */
    public void checkInvariants(String owner) {
        for (byte[] row : counters) {
            for (byte count : row) {
                if (count < 0 || count > MAX_COUNT) {
                    throw new IllegalStateException(owner + ": sketch counter " + count + " outside [0, " + MAX_COUNT + "]");
                }
            }
        }
        if (sampleSize > 0 && incrementsSinceReset >= sampleSize) {
            throw new IllegalStateException(owner + ": " + incrementsSinceReset + " increments since the last reset,"
                    + " the sample size is " + sampleSize);
        }
    }
}
