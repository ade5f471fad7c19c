package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

final class LecarPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return LecarPolicy.NAME;
    }

    // Capacity 2: histories of 1 key each, discount d = 0.005^(1/2) = 0.070711. One regret right after
    // its eviction (t = 1) multiplies a weight by e^(-0.45 x 0.070711) = 0.968681, so after normalising
    // the wrong expert has 0.968681 / 1.968681 = 0.492046 and the other 0.507954.
    // SplitMix64's first draw is 0x910A2DEC89025CC1 = 0.56656 of 2^64 for seed 1 and
    // 0x1D0B14E4DB018FED = 0.11345 for seed 3.
    private static final double WRONG_EXPERT = 0.968681117698929 / 1.968681117698929;

    @Test
    void theLruExpertsMistakeOnAHandComputedStream() {
        // Seed 3, stream 1 1 2 3 1: 1 miss (1 use), 1 hit (2 uses), 2 miss (1 use);
        //   3 miss: LRU names 1 (used longer ago), LFU names 2 (fewer uses); the draw 0.113 < wLru 0.5 picks
        //     LRU: 1 is evicted into LRU's history (after 3 references);
        //   1 miss: found in LRU's history 1 reference later: wLru = 0.492046; both experts name 2 (least
        //     recent, and the older of the two single-use keys), evicted with no history; 1 re-enters.
        // Hits 1, misses 4.
        LecarPolicy policy = new LecarPolicy(2, 0.45, 3);
        assertEquals(new ReplayResult(1, 4), CacheReplay.run(policy, 2, new long[] {1, 1, 2, 3, 1}, true));
        assertEquals(WRONG_EXPERT, policy.lruWeight(), 1e-12);
        assertEquals("resident", policy.placeOf(1));
        assertEquals("resident", policy.placeOf(3));
        assertNull(policy.placeOf(2));
    }

    @Test
    void theLfuExpertsMistakeWithAnotherSeed() {
        // Seed 1, the same first four references: the draw 0.567 >= wLru 0.5 picks LFU's candidate 2,
        // into LFU's history. Dropping 3 (no search named it) leaves no history; 2 comes back one
        // reference after its eviction: LFU's weight falls to 0.492046, wLru = 0.507954.
        LecarPolicy policy = new LecarPolicy(2, 0.45, 1);
        policy.onInsert(1, 0, 0);
        policy.onAccess(1);
        policy.onInsert(2, 0, 0);
        assertEquals(2, policy.selectVictim(key -> true));
        policy.onRemove(2);
        assertEquals("LFU history", policy.placeOf(2));
        policy.onInsert(3, 0, 0);
        policy.onRemove(3);
        assertNull(policy.placeOf(3));
        policy.onInsert(2, 0, 0);
        assertEquals(1 - WRONG_EXPERT, policy.lruWeight(), 1e-12);
        assertEquals("resident", policy.placeOf(2));
        policy.checkInvariants();
    }
}
