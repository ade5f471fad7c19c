package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

final class ClockPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return ClockPolicy.NAME;
    }

    /** Stream 1 1 1 2 3 2 4 5 1 at capacity 3, worked out by hand below for 2-bit and 1-bit counters. */
    private static final long[] STREAM = {1, 1, 1, 2, 3, 2, 4, 5, 1};

    @Test
    void twoBitCountersOnAHandComputedStream() {
        // Ring written oldest (the hand) first, counter in brackets; 2 bits: counters saturate at 3.
        //   1 miss [1(0)]; 1 hit [1(1)]; 1 hit [1(2)]; 2 miss, 3 miss [1(2) 2(0) 3(0)]; 2 hit [1(2) 2(1) 3(0)];
        //   4 miss: 1(2) -> 1 passed, 2(1) -> 0 passed, 3(0) evicted: [1(1) 2(0) 4(0)];
        //   5 miss: 1(1) -> 0 passed, 2(0) evicted: [4(0) 1(0) 5(0)]; 1 hit.
        // Hits 4 (the 2nd, 3rd and last references of 1, the 2nd of 2), misses 5; victims 3 then 2.
        ClockPolicy policy = new ClockPolicy(2);
        assertEquals(3, policy.maxCounter());
        for (long key : new long[] {1, 2, 3}) {
            policy.onInsert(key, 0, 0);
        }
        policy.onAccess(1);
        policy.onAccess(1);
        policy.onAccess(2);
        assertEquals(2, policy.counter(1));
        assertEquals(3, policy.selectVictim(key -> true));
        assertEquals(1, policy.counter(1), "the hand lowered 1's counter once");
        assertEquals(0, policy.counter(2));
        policy.onRemove(3);
        policy.onInsert(4, 0, 0);
        assertEquals(2, policy.selectVictim(key -> true));
        assertEquals(0, policy.counter(1));
        policy.checkInvariants();

        assertEquals(new ReplayResult(4, 5), CacheReplay.run(new ClockPolicy(2), 3, STREAM, true));
    }

    @Test
    void oneBitIsSecondChanceOnTheSameStream() {
        // 1 bit: counters saturate at 1. 1 miss, 1 hit [1(1)], 1 hit (stays 1); 2, 3 miss; 2 hit [1(1) 2(1) 3(0)];
        //   4 miss: 1 and 2 lose their bit and are passed, 3 evicted: [1(0) 2(0) 4(0)];
        //   5 miss: 1(0) evicted (a 2-bit counter kept it): [2(0) 4(0) 5(0)]; 1 miss.
        // Hits 3, misses 6.
        assertEquals(new ReplayResult(3, 6), CacheReplay.run(new ClockPolicy(1), 3, STREAM, true));
        assertEquals(1, ((ClockPolicy) Policies.create(ClockPolicy.NAME, PolicyOptions.defaults(3))).maxCounter());
    }

    @Test
    void aHeldKeyIsPassedWithItsCounterKept() {
        ClockPolicy policy = new ClockPolicy(1);
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 0);
        policy.onAccess(1);
        policy.onAccess(2);
        // 1 is held: the hand passes it untouched, lowers 2 (passed), comes round, 2 is now at 0.
        assertEquals(2, policy.selectVictim(key -> key != 1));
        assertEquals(1, policy.counter(1));
        assertEquals(0, policy.counter(2));
        policy.checkInvariants();
    }

    @Test
    void badBitsAreNamed() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> PolicyOptions.defaults(8).with("bits", 0));
        assertEquals("bits must be between 1 and 16, was 0", error.getMessage());
    }
}
