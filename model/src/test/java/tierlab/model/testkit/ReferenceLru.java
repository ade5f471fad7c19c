package tierlab.model.testkit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The textbook LRU as the JDK spells it (an access-ordered {@link LinkedHashMap} that drops its
 * eldest entry when full): an oracle written independently of every policy under test, so the
 * policy unit tests, the replay command and the policy properties all compare against one.
 */
public final class ReferenceLru {
    private ReferenceLru() {}

    /** How many of {@code references} hit in an LRU cache of {@code capacity} keys that starts empty. */
    public static long hits(long[] references, int capacity) {
        Map<Long, Boolean> cache = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > capacity;
            }
        };
        long hits = 0;
        for (long key : references) {
            if (cache.get(key) != null) {
                hits++;
            } else {
                cache.put(key, Boolean.TRUE);
            }
        }
        return hits;
    }
}
