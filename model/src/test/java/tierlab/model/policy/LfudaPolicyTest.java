package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

final class LfudaPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return GreedyDualPolicy.LFUDA;
    }

    @Test
    void theAgeOnAHandComputedStream() {
        // Capacity 2, stream 1 1 2 3 2 3 1; K = L + uses, ties to the least recently used.
        //   1 miss K1=1; 1 hit K1=2; 2 miss K2=1;
        //   3 miss: victim 2 (K 1), L=1; K3 = 1+1 = 2;
        //   2 miss: 1 and 3 both at K 2, 1 used less recently: victim 1, L=2; K2 = 2+1 = 3;
        //   3 hit: K3 = L + 2 uses = 4;  1 miss: victim 2 (K 3 < 4), L=3; K1 = 4.
        // Hits 2, misses 5, age 3.
        GreedyDualPolicy policy = new GreedyDualPolicy(false);
        assertEquals(new ReplayResult(2, 5), CacheReplay.run(policy, 2, new long[] {1, 1, 2, 3, 2, 3, 1}, true));
        assertEquals(3, policy.age());
        assertEquals(4, policy.priority(1));
        assertEquals(4, policy.priority(3));
    }

    @Test
    void aDropIsNoEvictionAndLeavesTheAge() {
        GreedyDualPolicy policy = new GreedyDualPolicy(false);
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 5);           // lfuda ignores the position: cost 1
        policy.onAccess(2);
        assertEquals(2, policy.priority(2));
        policy.onRemove(2);                 // not named by a search: a drop
        assertEquals(0, policy.age());
        assertEquals(1, policy.selectVictim(key -> true));
        policy.onRemove(1);                 // the named victim: an eviction
        assertEquals(1, policy.age());
        policy.checkInvariants();
    }

    @Test
    void withoutPositionsGdsfIsLfuda() {
        long[] stream = {1, 2, 3, 1, 4, 1, 2, 5, 3, 3, 6, 1, 2, 4, 4, 7, 1};
        assertEquals(CacheReplay.run(new GreedyDualPolicy(false), 3, stream, true),
                CacheReplay.run(new GreedyDualPolicy(true), 3, stream, true));
        List<long[]> requests = GdsfPolicyTest.REQUESTS;
        // Requests with positions: gdsf keeps the deeper block 11, lfuda does not (GdsfPolicyTest works it out).
        assertEquals(new ReplayResult(1, 6), CacheReplay.run(new GreedyDualPolicy(false), 2, requests, true));
    }
}
