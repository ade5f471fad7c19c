package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

final class S3FifoPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return S3FifoPolicy.NAME;
    }

    @Test
    void smallQueueIsTenPercentOfTheCapacityAndAtLeastOne() {
        assertEquals(10, new S3FifoPolicy(100).smallTargetSize());
        assertEquals(1, new S3FifoPolicy(10).smallTargetSize());
        assertEquals(1, new S3FifoPolicy(3).smallTargetSize());
    }

    @Test
    void oneHitWondersLeaveThroughTheSmallQueue() {
        int capacity = 10;
        S3FifoPolicy policy = new S3FifoPolicy(capacity);
        // Five hot keys are used twice each, so they have a frequency when small is next searched.
        for (long hot = 1; hot <= 5; hot++) {
            policy.onInsert(hot, 0, 0);
            policy.onAccess(hot);
        }
        // A hundred keys used once each stream through a full cache.
        for (long once = 100; once < 200; once++) {
            if (policy.size() >= capacity) {
                long victim = policy.selectVictim(key -> true);
                assertTrue(victim >= 100, "a hot key was evicted: " + victim);
                assertTrue(policy.isInSmallQueue(victim), "victim " + victim + " did not leave through small");
                policy.onRemove(victim);
                assertTrue(policy.isGhost(victim), "an evicted small-queue key is remembered as a ghost");
            }
            policy.onInsert(once, 0, 0);
            policy.checkInvariants();
        }
        for (long hot = 1; hot <= 5; hot++) {
            assertTrue(policy.isInMainQueue(hot), "hot key " + hot + " should have been promoted to main");
        }
    }

    @Test
    void aGhostKeyReturnsStraightToMain() {
        S3FifoPolicy policy = new S3FifoPolicy(10);
        policy.onInsert(7, 0, 0);
        policy.onRemove(7);
        assertTrue(policy.isGhost(7));
        assertFalse(policy.contains(7));
        policy.onInsert(7, 0, 0);
        assertTrue(policy.isInMainQueue(7));
        assertFalse(policy.isGhost(7));
        policy.checkInvariants();
    }

    @Test
    void ghostQueueRemembersAtMostCapacityKeys() {
        S3FifoPolicy policy = new S3FifoPolicy(4);
        for (long key = 1; key <= 6; key++) {
            policy.onInsert(key, 0, 0);
            policy.onRemove(key);
        }
        // Keys 1 and 2 were forgotten first-in-first-out; 3 to 6 are still remembered.
        assertFalse(policy.isGhost(1));
        assertFalse(policy.isGhost(2));
        for (long key = 3; key <= 6; key++) {
            assertTrue(policy.isGhost(key));
        }
        policy.checkInvariants();
    }

    @Test
    void mainQueueGivesUsedKeysAnotherRoundLikeClock() {
        S3FifoPolicy policy = new S3FifoPolicy(100);
        // Ghost keys 1 to 3 re-enter into main in that order, so main is 1 (oldest), 2, 3.
        for (long key = 1; key <= 3; key++) {
            policy.onInsert(key, 0, 0);
            policy.onRemove(key);
            policy.onInsert(key, 0, 0);
        }
        policy.onAccess(1);
        // Small is empty (below its target), so main is searched: 1 has frequency 1 and is
        // decremented and reinserted; 2 is the victim.
        assertEquals(2, policy.selectVictim(key -> true));
        policy.onRemove(2);
        assertEquals(3, policy.selectVictim(key -> true));
        policy.onRemove(3);
        assertEquals(1, policy.selectVictim(key -> true));
    }

    @Test
    void heldKeysWithHighFrequencyDoNotStopTheSearch() {
        S3FifoPolicy policy = new S3FifoPolicy(10);
        for (long key = 1; key <= 10; key++) {
            policy.onInsert(key, 0, 0);
            for (int use = 0; use < 5; use++) {
                policy.onAccess(key);
            }
        }
        // Every key is used and saturated at frequency 3; only key 9 may go. The bounded search
        // must still find it, and find nothing once it is held too.
        assertEquals(9, policy.selectVictim(key -> key == 9));
        assertEquals(ReplacementPolicy.NO_VICTIM, policy.selectVictim(key -> key > 10));
        policy.checkInvariants();
    }

    @Test
    void aUsedSmallKeyIsFoundEvenWhenMainHasNothingEvictable() {
        S3FifoPolicy policy = new S3FifoPolicy(100);
        for (long key = 1; key <= 2; key++) {
            policy.onInsert(key, 0, 0);
            policy.onRemove(key);
            policy.onInsert(key, 0, 0);
        }
        policy.onInsert(50, 0, 0);
        policy.onAccess(50);
        // Small (1 key) is below its target of 10, so main is searched first and holds nothing
        // evictable; small's only key is used, so the search of small promotes it to main instead
        // of evicting it. It is still the one evictable key and must be found there.
        assertEquals(50, policy.selectVictim(key -> key == 50));
        assertTrue(policy.isInMainQueue(50));
        policy.checkInvariants();
    }

    @Test
    void theDefaultSmallRatioRoundsExactlyLikeTheOriginalIntegerDivision() {
        // Before the knob existed the small target was capacity / 10; the default must not move it.
        for (long capacity = 1; capacity <= 2_000_000; capacity++) {
            assertEquals(capacity / 10, S3FifoPolicy.shareOf(0.1, capacity), "capacity " + capacity);
        }
        assertEquals(1_000_000_000L, S3FifoPolicy.shareOf(1.0, 1_000_000_000L));
        S3FifoPolicy defaults = new S3FifoPolicy(250);
        assertEquals(25, defaults.smallTargetSize());
        assertEquals(250, defaults.ghostCapacity(), "the ghost queue remembers a full capacity of keys by default");
    }

    @Test
    void knobsComeFromTheRegistryOptions() {
        S3FifoPolicy paper = (S3FifoPolicy) Policies.create(S3FifoPolicy.NAME,
                PolicyOptions.defaults(200).with("ghostRatio", 0.9).with("smallRatio", 0.2));
        assertEquals(40, paper.smallTargetSize());
        assertEquals(180, paper.ghostCapacity());
    }

    @Test
    void aThresholdOfTwoEvictsAKeyUsedOnceInSmall() {
        // Capacity 4, small target 1. Keys 1-4 in small; 1 used once, 2 used twice.
        for (int threshold : new int[] {1, 2}) {
            S3FifoPolicy policy = new S3FifoPolicy(4, 0.25, 1.0, threshold);
            for (long key = 1; key <= 4; key++) {
                policy.onInsert(key, 0, 0);
            }
            policy.onAccess(1);
            policy.onAccess(2);
            policy.onAccess(2);
            // Threshold 1: 1 and 2 move to main, 3 (never used) is the victim.
            // Threshold 2: 1 (one access) is below it and is the victim at once.
            long victim = policy.selectVictim(key -> true);
            assertEquals(threshold == 1 ? 3 : 1, victim, "threshold " + threshold);
            assertEquals(threshold == 1, policy.isInMainQueue(1));
            assertTrue(threshold == 1 ? policy.isInMainQueue(2) : policy.isInSmallQueue(2));
            policy.checkInvariants();
        }
    }

    @Test
    void theGhostQueueKeepsGhostRatioTimesTheCapacity() {
        // Capacity 10, ghostRatio 0.2: two ghosts. Three keys leave small; the oldest is forgotten.
        S3FifoPolicy policy = new S3FifoPolicy(10, 0.1, 0.2, 1);
        assertEquals(2, policy.ghostCapacity());
        for (long key = 1; key <= 3; key++) {
            policy.onInsert(key, 0, 0);
        }
        for (long key = 1; key <= 3; key++) {
            policy.onRemove(key);
        }
        assertFalse(policy.isGhost(1));
        assertTrue(policy.isGhost(2));
        assertTrue(policy.isGhost(3));
        policy.checkInvariants();
        // A ghost's return goes to main; a forgotten key's return goes to small.
        policy.onInsert(2, 1, 0);
        policy.onInsert(1, 1, 1);
        assertTrue(policy.isInMainQueue(2));
        assertTrue(policy.isInSmallQueue(1));
    }
}
