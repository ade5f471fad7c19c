package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

final class ArcPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return ArcPolicy.NAME;
    }

    @Test
    void aHotSetSurvivesScansThatFlushLru() {
        // Each round touches a hot set of 50 keys twice, then scans 150 keys never seen before. The
        // scan is larger than the cache (100), so LRU loses the whole hot set every round; ARC keeps
        // it in T2 because the scan keys only ever reach T1.
        int capacity = 100;
        List<Long> references = new ArrayList<>();
        long nextScanKey = 1_000_000;
        for (int round = 0; round < 30; round++) {
            for (int pass = 0; pass < 2; pass++) {
                for (long hot = 0; hot < 50; hot++) {
                    references.add(hot);
                }
            }
            for (int i = 0; i < 150; i++) {
                references.add(nextScanKey++);
            }
        }
        long[] stream = references.stream().mapToLong(Long::longValue).toArray();
        ReplayResult lru = CacheReplay.run(new LruPolicy(), capacity, stream);
        ReplayResult arc = CacheReplay.run(new ArcPolicy(capacity), capacity, stream, true);
        assertEquals(30 * 50, lru.hits(), "LRU only hits the second pass over the hot set");
        assertTrue(arc.hits() >= 29 * 100 + 50, "ARC hits both passes after the first round, got " + arc.hits());
    }

    @Test
    void aGhostHitInB1GrowsTheTargetAndAGhostHitInB2ShrinksIt() {
        ArcPolicy policy = new ArcPolicy(4);
        for (long key = 1; key <= 4; key++) {
            policy.onInsert(key, 0, 0);
        }
        assertEquals(0, policy.targetT1Size());

        // |T1| = 4 > p = 0, so REPLACE takes T1's least recent key; removing it leaves a B1 ghost.
        assertEquals(1, policy.selectVictim(key -> true));
        policy.onRemove(1);
        assertFalse(policy.contains(1));

        // The ghost hit says T1 was too small: p grows by max(1, |B2| / |B1|) = 1.
        policy.onInsert(1, 0, 0);
        assertEquals(1, policy.targetT1Size());
        policy.checkInvariants();

        // Move everything to T2; then |T1| = 0 <= p, so REPLACE takes T2's least recent key (1).
        policy.onAccess(2);
        policy.onAccess(3);
        policy.onAccess(4);
        assertEquals(1, policy.selectVictim(key -> true));
        policy.onRemove(1);

        // The B2 ghost hit says T2 was too small: p shrinks by max(1, |B1| / |B2|) = 1.
        policy.onInsert(1, 0, 0);
        assertEquals(0, policy.targetT1Size());
        policy.checkInvariants();
    }

    @Test
    void theTargetFollowsTheWorkloadFromRecencyToFrequencyAndBack() {
        int capacity = 20;
        ArcPolicy policy = new ArcPolicy(capacity);
        // Phase 1: ten hot keys used twice settle in T2; p stays at 0 without ghost hits.
        CacheReplay.run(policy, capacity, repeat(0, 10, 2), true);
        assertEquals(0, policy.targetT1Size());

        // Phase 2: a loop of 12 new keys through the 10 slots T1 has left. Each key returns just
        // after it was evicted, so its miss hits B1: T1 was too small and p must rise.
        CacheReplay.run(policy, capacity, repeat(100, 12, 10), true);
        long targetAfterLoop = policy.targetT1Size();
        assertTrue(targetAfterLoop >= 5, "p rose only to " + targetAfterLoop);

        // Phase 3: the hot set returns. Growing T1 pushed some hot keys out of T2 into B2, so their
        // misses hit B2 and p must fall again.
        long hotKeysLost = LongStream.range(0, 10).filter(key -> !policy.contains(key)).count();
        assertTrue(hotKeysLost > 0, "phase 2 must have cost some hot keys");
        CacheReplay.run(policy, capacity, repeat(0, 10, 5), true);
        assertTrue(policy.targetT1Size() < targetAfterLoop,
                "p stayed at " + policy.targetT1Size() + " after B2 hits");
    }

    /** {@code rounds} passes over the keys {@code firstKey} .. {@code firstKey + keys - 1}. */
    private static long[] repeat(long firstKey, int keys, int rounds) {
        long[] stream = new long[keys * rounds];
        for (int i = 0; i < stream.length; i++) {
            stream[i] = firstKey + i % keys;
        }
        return stream;
    }

    @Test
    void preferredListFallsBackToTheOtherWhenItsKeysAreHeld() {
        ArcPolicy policy = new ArcPolicy(4);
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 0);
        policy.onAccess(2);
        // |T1| = 1 > p = 0 prefers T1, whose only key is held, so the victim comes from T2.
        assertEquals(2, policy.selectVictim(key -> key != 1));
    }
}
