package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

final class LirsPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return LirsPolicy.NAME;
    }

    @Test
    void thePapersRulesOnAHandComputedStream() {
        // Capacity 3: Lhirs = max(1, 0.01 x 3 rounded down) = 1, Llirs = 2. S bottom first, L/h/n = LIR,
        // resident HIR, non-resident HIR.
        //   1 miss: LIR (fewer than Llirs) S [1L]; 2 miss: S [1L 2L];
        //   3 miss: the LIR set is full: HIR, S [1L 2L 3h], Q [3];
        //   4 miss: victim Q's front 3, non-resident on S; S [1L 2L 3n 4h], Q [4];
        //   1 hit: to the top, S [2L 3n 4h 1L] (the bottom is LIR, nothing pruned);
        //   3 miss: victim 4 (non-resident too); 3 is non-resident on S, so it comes back LIR: S [2L 4n 1L 3L];
        //     one LIR too many: bottom 2 becomes HIR, Q [2]; pruning forgets 4: S [1L 3L];
        //   5 miss: victim 2 (not on S: forgotten); S [1L 3L 5h], Q [5];
        //   3 hit: S [1L 5h 3L];
        //   4 miss (4 was forgotten): victim 5, non-resident; S [1L 5n 3L 4h], Q [4].
        // Hits 2 (the 1 and the second 3), misses 7.
        LirsPolicy policy = new LirsPolicy(3, 0.01, 2.0);
        assertEquals(1, policy.hirLimit());
        assertEquals(2, policy.lirLimit());
        assertEquals(new ReplayResult(2, 7), CacheReplay.run(policy, 3, new long[] {1, 2, 3, 4, 1, 3, 5, 3, 4}, true));
        assertEquals("LIR", policy.statusOf(1));
        assertEquals("LIR", policy.statusOf(3));
        assertEquals("HIR", policy.statusOf(4));
        assertEquals("non-resident", policy.statusOf(5));
        assertTrue(policy.inStack(5));
        assertFalse(policy.contains(5));
        assertNull(policy.statusOf(2));
        assertEquals(4, policy.selectVictim(key -> true), "Q's front");
        assertEquals(1, policy.selectVictim(key -> key != 4), "with Q held, the bottom-most LIR key");
    }

    @Test
    void nonResidentEntriesAreBoundedByTheStack() {
        // Capacity 2 (Llirs 1, Lhirs 1), S at most 2 entries: a scan of new keys after key 1 keeps
        // at most one non-resident entry beside the LIR key.
        LirsPolicy policy = new LirsPolicy(2, 0.01, 1.0);
        long[] stream = {1, 2, 3, 4, 5, 6};
        assertEquals(new ReplayResult(0, 6), CacheReplay.run(policy, 2, stream, true));
        // S [1L 5n 6h] would be 3 > 2: 5 (the oldest non-resident) is forgotten.
        assertNull(policy.statusOf(5));
        assertEquals("HIR", policy.statusOf(6));
        assertEquals("LIR", policy.statusOf(1));
    }
}
