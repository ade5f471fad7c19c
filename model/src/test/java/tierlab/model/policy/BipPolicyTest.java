package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class BipPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return BipPolicy.NAME;
    }

    @Test
    void firstInsertionGoesToTheMostRecentEndAndTheNextOnesToTheLeastRecentEnd() {
        BipPolicy policy = new BipPolicy(32);
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 0);
        policy.onInsert(3, 0, 0);
        // 1 entered at the most-recent end; 2 and then 3 were each put at the least-recent end.
        assertEquals(List.of(3L, 2L, 1L), drain(policy, key -> true));
    }

    @Test
    void everyMruIntervalThInsertionGoesToTheMostRecentEnd() {
        BipPolicy policy = new BipPolicy(3);
        for (long key = 1; key <= 7; key++) {
            policy.onInsert(key, 0, 0);
        }
        // Insertions 1, 4 and 7 went to the most-recent end (in that order); the rest piled up at the
        // least-recent end, the latest one first in line.
        assertEquals(List.of(6L, 5L, 3L, 2L, 1L, 4L, 7L), drain(policy, key -> true));
    }

    @Test
    void anAccessMovesTheKeyToTheMostRecentEnd() {
        BipPolicy policy = new BipPolicy(32);
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 0);
        policy.onAccess(2);
        assertEquals(List.of(1L, 2L), drain(policy, key -> true));
    }

    @Test
    void aLoopLargerThanTheCacheKeepsPartOfItsKeysWhereLruKeepsNone() {
        int capacity = 50;
        long[] loop = new long[(capacity + 10) * 40];
        for (int i = 0; i < loop.length; i++) {
            loop[i] = i % (capacity + 10);
        }
        ReplayResult lru = CacheReplay.run(new LruPolicy(), capacity, loop);
        ReplayResult bip = CacheReplay.run(new BipPolicy(32), capacity, loop);
        assertEquals(0, lru.hits(), "LRU on a loop one larger than the cache always evicts the next key");
        assertTrue(bip.hitRatio() > 0.5, "BIP hit ratio was " + bip.hitRatio());
    }

    @Test
    void anIntervalOfOneIsExactlyLru() {
        SplittableRandom random = new SplittableRandom(5);
        long[] stream = random.longs(10_000, 0, 80).toArray();
        ReplayResult lru = CacheReplay.run(new LruPolicy(), 40, stream);
        ReplayResult bipAsLru = CacheReplay.run(new BipPolicy(1), 40, stream);
        assertTrue(lru.hits() > 0);
        assertEquals(lru, bipAsLru);
    }

    @Test
    void rejectsAnIntervalBelowOne() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> new BipPolicy(0));
        assertEquals("mruInterval must be >= 1, was 0", error.getMessage());
    }
}
