package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tierlab.model.testkit.ReferenceLru;

final class LruPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return LruPolicy.NAME;
    }

    @Test
    void evictsTheLeastRecentlyUsedKey() {
        LruPolicy policy = new LruPolicy();
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 1);
        policy.onInsert(3, 0, 2);
        policy.onAccess(1);
        assertEquals(2, policy.selectVictim(key -> true));
        // A held least-recent key is skipped, not evicted, and the next one in recency order goes.
        assertEquals(3, policy.selectVictim(key -> key != 2));
        assertEquals(List.of(2L, 3L, 1L), drain(policy, key -> true));
    }

    @Test
    void hitCountsEqualAnObviouslyCorrectLru() {
        for (long seed = 1; seed <= 10; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int capacity = 1 + random.nextInt(64);
            int keySpace = capacity + 1 + random.nextInt(3 * capacity);
            // A skewed stream (the square of a uniform draw favours small keys) so hits are frequent.
            long[] stream = new long[20_000];
            for (int i = 0; i < stream.length; i++) {
                double u = random.nextDouble();
                stream[i] = (long) (u * u * keySpace);
            }
            ReplayResult result = CacheReplay.run(new LruPolicy(), capacity, stream);
            long expectedHits = ReferenceLru.hits(stream, capacity);
            assertTrue(expectedHits > 0 && expectedHits < stream.length, "the stream must both hit and miss");
            assertEquals(expectedHits, result.hits(), "seed " + seed + ", capacity " + capacity);
        }
    }
}
