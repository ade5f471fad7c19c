package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

final class GdsfPolicyTest extends ReplacementPolicyContract {

    /** Requests [10 11] [12] [11 10] [13] [11]: each block's position is its index in its request. */
    static final List<long[]> REQUESTS = List.of(new long[] {10, 11}, new long[] {12}, new long[] {11, 10},
            new long[] {13}, new long[] {11});

    @Override
    protected String policyName() {
        return GreedyDualPolicy.GDSF;
    }

    @Test
    void costsFromPositionsOnHandComputedRequests() {
        // Capacity 2; K = L + uses x C, C = position + 1 (fixed at insert); ties to the least recently used.
        //   [10 11]: 10 at 0 miss, C=1, K=1; 11 at 1 miss, C=2, K=2.
        //   [12]: miss, victim 10 (K 1), L=1; 12 C=1, K=2.
        //   [11 10]: 11 hit, K = 1 + 2 x 2 = 5; 10 at 1 miss: victim 12 (K 2), L=2; 10 C=2, K = 2+2 = 4.
        //   [13]: miss, victim 10 (K 4 < 5), L=4; 13 K = 5.
        //   [11]: hit.
        // Hits 2, misses 5. (lfuda, costs 1: at [13] the victim is 11, K 3 and less recent than 10's 3,
        // so the last 11 misses: hits 1.)
        GreedyDualPolicy policy = new GreedyDualPolicy(true);
        assertEquals(new ReplayResult(2, 5), CacheReplay.run(policy, 2, REQUESTS, true));
        assertEquals(4, policy.age());
        assertEquals(4 + 3 * 2, policy.priority(11), "third use at age 4, cost 2");
        assertEquals(5, policy.priority(13));
    }
}
