package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

final class SievePolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return SievePolicy.NAME;
    }

    @Test
    void aVisitedKeySurvivesOnePassOfTheHand() {
        SievePolicy policy = new SievePolicy();
        for (long key = 1; key <= 4; key++) {
            policy.onInsert(key, 0, 0);
        }
        policy.onAccess(1);
        // The hand starts at the oldest key, 1, which was visited: its bit is cleared and it stays.
        assertEquals(2, policy.selectVictim(key -> true));
        policy.onRemove(2);
        policy.onInsert(5, 0, 0);
        // The hand continues from where it stopped (toward newer keys), not from the tail.
        assertEquals(3, policy.selectVictim(key -> true));
        policy.onRemove(3);
        assertEquals(4, policy.selectVictim(key -> true));
        policy.onRemove(4);
        // Then the hand reaches the newest key 5 and, unvisited, it goes before 1 comes round again.
        assertEquals(5, policy.selectVictim(key -> true));
        policy.onRemove(5);
        // Key 1 lost its visited bit on the first pass, so it is now the victim.
        assertEquals(1, policy.selectVictim(key -> true));
    }

    @Test
    void accessedKeysKeepTheirPlaceInTheQueue() {
        // Unlike LRU, an access does not move a key, so after the hand clears every bit the order of
        // eviction is still insertion order.
        SievePolicy policy = new SievePolicy();
        for (long key = 1; key <= 3; key++) {
            policy.onInsert(key, 0, 0);
            policy.onAccess(key);
        }
        assertEquals(List.of(1L, 2L, 3L), drain(policy, key -> true));
    }

    @Test
    void heldKeysKeepTheirVisitedBit() {
        SievePolicy policy = new SievePolicy();
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 0);
        policy.onAccess(1);
        // Key 1 is held while the hand passes it, so its second chance is not used up.
        assertEquals(2, policy.selectVictim(key -> key != 1));
        policy.onRemove(2);
        policy.onInsert(3, 0, 0);
        // Now the hand wraps to 1, still visited: cleared, and the unvisited 3 goes first.
        assertEquals(3, policy.selectVictim(key -> true));
    }
}
