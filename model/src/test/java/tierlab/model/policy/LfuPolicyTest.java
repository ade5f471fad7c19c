package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

final class LfuPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return LfuPolicy.NAME;
    }

    @Test
    void theLeastUsedKeyGoesFirstAndTiesGoToTheLeastRecent() {
        LfuPolicy policy = new LfuPolicy(8, 0.0);
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 1);
        policy.onInsert(3, 0, 2);
        policy.onAccess(1);
        policy.onAccess(1);
        policy.onAccess(2);
        // Counts 1:3, 2:2, 3:1.
        assertEquals(3, policy.count(1));
        assertEquals(3, policy.selectVictim(key -> true));
        assertEquals(2, policy.selectVictim(key -> key != 3));
        policy.onInsert(4, 1, 0);
        // 3 and 4 both have count 1; 3 was used less recently.
        assertEquals(List.of(3L, 4L, 2L, 1L), drain(policy, key -> true));
    }

    @Test
    void countsAreHalvedEveryAgingFactorTimesCapacityReferences() {
        // Capacity 4, factor 1: a halving every 4 references (inserts and hits).
        LfuPolicy policy = new LfuPolicy(4, 1.0);
        assertEquals(4, policy.agingIntervalReferences());
        policy.onInsert(1, 0, 0);   // reference 1, count(1) = 1
        policy.onAccess(1);         // reference 2, count(1) = 2
        policy.onAccess(1);         // reference 3, count(1) = 3
        policy.onInsert(2, 0, 1);   // reference 4: count(2) = 1, then halving: 1 -> 1, 2 -> 0
        assertEquals(1, policy.halvings());
        assertEquals(1, policy.count(1));
        assertEquals(0, policy.count(2));
        assertEquals(2, policy.selectVictim(key -> true));
        policy.onAccess(2);         // count(2) = 1: a tie with 1, and 1 was used less recently
        assertEquals(1, policy.selectVictim(key -> true));
        policy.checkInvariants();

        // Without aging, 1 keeps its three uses and 2 is the victim.
        LfuPolicy ageless = new LfuPolicy(4, 0.0);
        ageless.onInsert(1, 0, 0);
        ageless.onAccess(1);
        ageless.onAccess(1);
        ageless.onInsert(2, 0, 1);
        ageless.onAccess(2);
        assertEquals(0, ageless.halvings());
        assertEquals(2, ageless.selectVictim(key -> true));
    }

    @Test
    void hitCountsOfAHandComputedStream() {
        // Capacity 2, no aging, stream 1 1 2 3 1 2:
        //   1 miss; 1 hit (count 2); 2 miss; 3 miss evicts 2 (count 1 < 2); 1 hit; 2 miss evicts 3
        //   (count 1, the only key below 1's count 3). Hits: 2.
        long[] stream = {1, 1, 2, 3, 1, 2};
        assertEquals(new ReplayResult(2, 4), CacheReplay.run(new LfuPolicy(2, 0.0), 2, stream, true));
    }
}
