package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

final class WTinyLfuPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return WTinyLfuPolicy.NAME;
    }

    @Test
    void caffeinesSplitOfTheCapacity() {
        WTinyLfuPolicy defaults = new WTinyLfuPolicy(1000, 0.01, 0.8, 10.0, false);
        assertEquals(10, defaults.windowCapacity());
        assertEquals(792, defaults.protectedCapacity());  // 0.8 x 990
        assertEquals(1, new WTinyLfuPolicy(1, 0.01, 0.8, 10.0, false).windowCapacity());
        assertEquals(2, new WTinyLfuPolicy(150, 0.01, 0.8, 10.0, false).windowCapacity());
    }

    @Test
    void aCandidateEntersMainOnlyIfItIsMoreFrequentThanMainsVictim() {
        // Capacity 4, window 1 (0.25), main 3, protected 2; no aging, no doorkeeper.
        WTinyLfuPolicy policy = new WTinyLfuPolicy(4, 0.25, 0.8, 0.0, false);
        assertEquals(1, policy.windowCapacity());
        for (long key = 1; key <= 4; key++) {
            policy.onInsert(key, 0, 0);       // each insert pushes the window's previous key to probation
        }
        assertEquals("window", policy.segmentOf(4));
        assertEquals("probation", policy.segmentOf(1));
        policy.onAccess(2);
        policy.onAccess(2);                   // 2: frequency 3, promoted to protected
        assertEquals("protected", policy.segmentOf(2));
        // Candidate 4 (frequency 1) against main's victim 1 (frequency 1): not more frequent, so the
        // candidate itself leaves.
        assertEquals(1, policy.frequency(4));
        assertEquals(4, policy.selectVictim(key -> true));
        policy.onRemove(4);
        policy.onInsert(5, 1, 0);
        policy.onAccess(5);
        policy.onAccess(5);                   // 5: frequency 3, still in the window
        // Candidate 5 (3) beats victim 1 (1): 1 leaves, and the next insert moves 5 to probation.
        assertEquals(1, policy.selectVictim(key -> true));
        policy.onRemove(1);
        policy.onInsert(6, 2, 0);
        assertEquals("probation", policy.segmentOf(5));
        assertEquals("window", policy.segmentOf(6));
        policy.checkInvariants();
        // With main's victims held, the candidate goes whatever its frequency.
        assertEquals(6, policy.selectVictim(key -> key == 6));
    }

    @Test
    void theSketchCountsSaturatesAndHalvesOnReset() {
        FrequencySketch sketch = new FrequencySketch(64, 0, false);
        assertEquals(64, sketch.width());
        for (int i = 0; i < 20; i++) {
            sketch.increment(42);
        }
        assertEquals(FrequencySketch.MAX_COUNT, sketch.frequency(42));
        sketch.reset();
        assertEquals(7, sketch.frequency(42));
        assertTrue(sketch.frequency(43) <= 7, "an unseen key estimates at most a colliding (halved) count");

        // Sample size 8: the eighth increment halves everything.
        FrequencySketch aging = new FrequencySketch(64, 8, false);
        for (int i = 0; i < 7; i++) {
            aging.increment(7);
        }
        assertEquals(7, aging.frequency(7));
        aging.increment(7);
        assertEquals(1, aging.resets());
        assertEquals(4, aging.frequency(7));   // 8 halved
        aging.checkInvariants("test");
    }

    @Test
    void theDoorkeeperAbsorbsAKeysFirstReference() {
        FrequencySketch sketch = new FrequencySketch(64, 0, true);
        assertEquals(0, sketch.frequency(9));
        sketch.increment(9);                  // doorkeeper only
        assertEquals(1, sketch.frequency(9));
        sketch.increment(9);                  // now the sketch too
        assertEquals(2, sketch.frequency(9));
        sketch.reset();                       // clears the doorkeeper, halves the sketch (1 -> 0)
        assertEquals(0, sketch.frequency(9));
        WTinyLfuPolicy withDoorkeeper = (WTinyLfuPolicy) Policies.create(WTinyLfuPolicy.NAME,
                PolicyOptions.defaults(16).with("doorkeeper", true));
        withDoorkeeper.onInsert(3, 0, 0);
        assertEquals(1, withDoorkeeper.frequency(3), "the insert's reference sits in the doorkeeper");
    }

    @Test
    void aWindowOfTheWholeCapacityIsExactlyLru() {
        // windowRatio 1: no main space, so the window (an LRU) is the whole cache.
        long[] stream = new java.util.SplittableRandom(3).longs(20_000, 0, 300).toArray();
        for (int capacity : new int[] {1, 7, 64, 250}) {
            assertEquals(CacheReplay.run(new LruPolicy(), capacity, stream),
                    CacheReplay.run(new WTinyLfuPolicy(capacity, 1.0, 0.8, 10.0, false), capacity, stream, true),
                    "capacity " + capacity);
        }
    }
}
