package tierlab.model.policy;

import java.util.Arrays;

/**
 * The settings a replacement policy may need, one record for all of them; each policy reads only
 * its own.
 *
 * @param capacityEntries  the cache capacity in entries (blocks); sizes ARC's and S3-FIFO's
 *                         queues and ghost lists. At least 1.
 * @param mruInterval      for {@code bip}: one in this many insertions goes to the most-recent end
 *                         [32]. At least 1.
 * @param futureReferences for {@code belady}: the future reference stream (keys in the order they
 *                         will be inserted or accessed); {@code null} for every other policy. The
 *                         array is shared, not copied (traces are large), and must not change.
 */
public record PolicyOptions(long capacityEntries, int mruInterval, long[] futureReferences) {

    public static final int DEFAULT_MRU_INTERVAL = 32;

    public PolicyOptions {
        if (capacityEntries < 1) {
            throw new IllegalArgumentException("capacityEntries must be >= 1, was " + capacityEntries);
        }
        if (mruInterval < 1) {
            throw new IllegalArgumentException("mruInterval must be >= 1, was " + mruInterval);
        }
    }

    /** The reference system's defaults for a cache of {@code capacityEntries}, without a future trace. */
    public static PolicyOptions defaults(long capacityEntries) {
        return new PolicyOptions(capacityEntries, DEFAULT_MRU_INTERVAL, null);
    }

    public PolicyOptions withMruInterval(int newMruInterval) {
        return new PolicyOptions(capacityEntries, newMruInterval, futureReferences);
    }

    public PolicyOptions withFutureReferences(long[] newFutureReferences) {
        return new PolicyOptions(capacityEntries, mruInterval, newFutureReferences);
    }

    // The generated record members would compare and print the array by identity; options are
    // values, so compare and print them by content.

    @Override
    public boolean equals(Object other) {
        return other instanceof PolicyOptions that
                && capacityEntries == that.capacityEntries
                && mruInterval == that.mruInterval
                && Arrays.equals(futureReferences, that.futureReferences);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Long.hashCode(capacityEntries) + mruInterval) + Arrays.hashCode(futureReferences);
    }

    @Override
    public String toString() {
        return "PolicyOptions[capacityEntries=" + capacityEntries + ", mruInterval=" + mruInterval
                + ", futureReferences=" + (futureReferences == null ? "none" : futureReferences.length + " references")
                + "]";
    }
}
