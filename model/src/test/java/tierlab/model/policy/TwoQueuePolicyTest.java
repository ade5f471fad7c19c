package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

final class TwoQueuePolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return TwoQueuePolicy.NAME;
    }

    @Test
    void thePapersReclaimRuleOnAHandComputedSequence() {
        // Capacity 4, Kin = 0.25 x 4 = 1, Kout = 0.5 x 4 = 2.
        TwoQueuePolicy policy = new TwoQueuePolicy(4, 0.25, 0.5);
        assertEquals(1, policy.kinEntries());
        assertEquals(2, policy.koutEntries());
        for (long key = 1; key <= 4; key++) {
            policy.onInsert(key, 0, 0);
        }
        policy.onAccess(1);                    // a hit in A1in does not move the key
        assertEquals(1, policy.selectVictim(key -> true));  // |A1in| = 4 > Kin: A1in's oldest
        policy.onRemove(1);                    // A1out: 1
        assertEquals("A1out", policy.queueOf(1));
        policy.onInsert(5, 1, 0);              // A1in: 2 3 4 5
        assertEquals(2, policy.selectVictim(key -> true));
        policy.onRemove(2);                    // A1out: 1 2
        policy.onInsert(1, 2, 0);              // 1 comes back from A1out into Am
        assertEquals("Am", policy.queueOf(1));
        assertEquals(3, policy.selectVictim(key -> true));  // A1in 3 4 5 is still over Kin
        policy.onRemove(3);                    // A1out: 2 3 (1 left it for Am)
        policy.onRemove(4);                    // A1out: 2 3 4 -> 2 is forgotten
        assertNull(policy.queueOf(2));
        assertEquals("A1out", policy.queueOf(4));
        // A1in holds only 5 now (not over Kin), so Am gives the victim.
        assertEquals(1, policy.selectVictim(key -> true));
        assertEquals(5, policy.selectVictim(key -> key != 1), "falls back to A1in when Am is held");
        policy.checkInvariants();
    }

    @Test
    void hitCountsOfAHandComputedStream() {
        // Capacity 2, Kin = 0 (0.25 x 2 rounded down), Kout = 1: stream 1 2 1 3 1 2 1:
        //   1 miss; 2 miss; 1 hit (stays in A1in); 3 miss evicts 1 (A1in over Kin; A1out: 1);
        //   1 miss from A1out -> Am, evicting 2 (A1in over Kin; A1out: 2, 1 left it);
        //   2 miss from A1out -> Am, evicting 3 (A1in 3 over Kin; A1out: 3); 1 hit. Hits: 2.
        long[] stream = {1, 2, 1, 3, 1, 2, 1};
        assertEquals(new ReplayResult(2, 5),
                CacheReplay.run(new TwoQueuePolicy(2, 0.25, 0.5), 2, stream, true));
    }
}
