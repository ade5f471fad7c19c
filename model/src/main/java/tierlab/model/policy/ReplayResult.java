package tierlab.model.policy;

/**
 * The outcome of a {@link CacheReplay}: how many references hit and how many missed.
 *
 * @param hits   references found resident
 * @param misses references that had to be inserted
 */
public record ReplayResult(long hits, long misses) {

    public ReplayResult {
        if (hits < 0 || misses < 0) {
            throw new IllegalArgumentException("hits and misses must be >= 0, were " + hits + " and " + misses);
        }
    }

    public long references() {
        return hits + misses;
    }

    /** hits / references, or 0 for an empty replay. */
    public double hitRatio() {
        long references = references();
        return references == 0 ? 0.0 : (double) hits / references;
    }
}
