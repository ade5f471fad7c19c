package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

final class FifoPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return FifoPolicy.NAME;
    }

    @Test
    void evictsInInsertionOrderAndHitsDoNotReorder() {
        FifoPolicy policy = new FifoPolicy();
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 1);
        policy.onInsert(3, 0, 2);
        // Under lru these hits would make 2 the victim; under fifo 1 stays the oldest.
        policy.onAccess(1);
        policy.onAccess(1);
        assertEquals(1, policy.selectVictim(key -> true));
        policy.checkInvariants();
        // A held oldest key is skipped, the next oldest goes.
        assertEquals(2, policy.selectVictim(key -> key != 1));
        assertEquals(List.of(1L, 2L, 3L), drain(policy, key -> true));
    }

    @Test
    void aRemovedAndReinsertedKeyIsTheNewest() {
        FifoPolicy policy = new FifoPolicy();
        policy.onInsert(10, 0, 0);
        policy.onInsert(20, 0, 1);
        policy.onRemove(10);
        policy.onInsert(10, 1, 0);
        assertEquals(List.of(20L, 10L), drain(policy, key -> true));
    }

    @Test
    void hitCountsOfAHandComputedStream() {
        // Capacity 3, stream 1 2 3 1 4 1 2 5 1 2:
        //   1 2 3 miss (queue 1 2 3); 1 hit (no reorder); 4 miss evicts 1 (queue 2 3 4);
        //   1 miss evicts 2 (3 4 1); 2 miss evicts 3 (4 1 2); 5 miss evicts 4 (1 2 5);
        //   1 hit; 2 hit. Hits: 3. Under lru the first hit on 1 keeps it resident when 4 arrives,
        //   so 1 hits again and lru scores 4.
        long[] stream = {1, 2, 3, 1, 4, 1, 2, 5, 1, 2};
        assertEquals(3, CacheReplay.run(new FifoPolicy(), 3, stream).hits());
        assertEquals(4, CacheReplay.run(new LruPolicy(), 3, stream).hits());
    }

    @Test
    void anAccessToAKeyThatIsNotResidentIsRefused() {
        FifoPolicy policy = new FifoPolicy();
        IllegalStateException error = assertThrows(IllegalStateException.class, () -> policy.onAccess(7));
        assertEquals("fifo: onAccess of key 7 which is not resident", error.getMessage());
    }
}
