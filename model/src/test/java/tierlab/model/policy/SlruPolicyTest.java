package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

final class SlruPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return SlruPolicy.NAME;
    }

    @Test
    void aHitPromotesAndAnOverfullProtectedSegmentDemotesItsLeastRecentKey() {
        // Capacity 4, protected share 0.5: protected holds 2.
        SlruPolicy policy = new SlruPolicy(4, 0.5);
        assertEquals(2, policy.protectedCapacity());
        for (long key = 1; key <= 4; key++) {
            policy.onInsert(key, 0, 0);
        }
        policy.onAccess(1);
        policy.onAccess(2);
        policy.onAccess(3);   // protected would hold 1 2 3: 1 is demoted to probation's newest end
        assertFalse(policy.isProtected(1));
        assertTrue(policy.isProtected(2));
        assertTrue(policy.isProtected(3));
        policy.checkInvariants();
        // probation (oldest first): 4, 1; protected: 2, 3.
        assertEquals(4, policy.selectVictim(key -> true));
        assertEquals(1, policy.selectVictim(key -> key != 4));
        assertEquals(2, policy.selectVictim(key -> key != 4 && key != 1));
        assertEquals(List.of(4L, 1L, 2L, 3L), drain(policy, key -> true));
    }

    @Test
    void hitCountsOfAHandComputedStream() {
        // Capacity 2, protected 1 (0.5): stream 1 1 2 3 1 2:
        //   1 miss; 1 hit (protected); 2 miss (probation); 3 miss evicts 2 (probation's only key);
        //   1 hit; 2 miss evicts 3. Hits: 2. lru evicts 1 at the 3 and scores 1.
        long[] stream = {1, 1, 2, 3, 1, 2};
        assertEquals(new ReplayResult(2, 4), CacheReplay.run(new SlruPolicy(2, 0.5), 2, stream, true));
        assertEquals(new ReplayResult(1, 5), CacheReplay.run(new LruPolicy(), 2, stream, true));
    }

    @Test
    void anEmptyProtectedSegmentIsExactlyLru() {
        // protectedRatio 0: a promoted key is demoted at once to probation's newest end, as lru moves it.
        long[] stream = new java.util.SplittableRandom(5).longs(20_000, 0, 300).toArray();
        for (int capacity : new int[] {1, 7, 64, 250}) {
            assertEquals(CacheReplay.run(new LruPolicy(), capacity, stream),
                    CacheReplay.run(new SlruPolicy(capacity, 0.0), capacity, stream, true), "capacity " + capacity);
        }
    }
}
