package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

final class PrefixLruPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return PrefixLruPolicy.NAME;
    }

    private static PrefixLruPolicy twoGroups() {
        PrefixLruPolicy policy = new PrefixLruPolicy();
        // Group 100 (older request) stores blocks 10, 11, 12; group 200 (newer) stores 20, 21, 22.
        policy.onInsert(10, 100, 0);
        policy.onInsert(11, 100, 1);
        policy.onInsert(12, 100, 2);
        policy.onInsert(20, 200, 0);
        policy.onInsert(21, 200, 1);
        policy.onInsert(22, 200, 2);
        return policy;
    }

    @Test
    void evictsOlderGroupsFirstAndEachGroupsSuffixBeforeItsPrefix() {
        assertEquals(List.of(12L, 11L, 10L, 22L, 21L, 20L), drain(twoGroups(), key -> true));
    }

    @Test
    void suffixGoesBeforePrefixEvenWhenTheSuffixWasInsertedFirst() {
        // The order is by position, not by insertion: a group that publishes its blocks out of order
        // still loses its deepest block first.
        PrefixLruPolicy policy = new PrefixLruPolicy();
        policy.onInsert(3, 5, 3);
        policy.onInsert(1, 5, 1);
        policy.onInsert(0, 5, 0);
        policy.onInsert(2, 5, 2);
        assertEquals(List.of(3L, 2L, 1L, 0L), drain(policy, key -> true));
    }

    @Test
    void anAccessRefreshesOnlyThatKey() {
        PrefixLruPolicy policy = twoGroups();
        policy.onAccess(10);
        assertEquals(List.of(12L, 11L, 22L, 21L, 20L, 10L), drain(policy, key -> true));
    }

    @Test
    void groupedStoreOfFiveSlotsIntoFiveBlocksEvictsSlotFour() {
        // Spec section 6 test vector: L1 = 5 blocks, one grouped 5-slot store, headroom trimming
        // evicts one block, and it must be slot 4 (the suffix) so slots 0-3 stay resident.
        PrefixLruPolicy policy = new PrefixLruPolicy();
        for (int slot = 0; slot < 5; slot++) {
            policy.onInsert(1_000 + slot, 42, slot);
        }
        assertEquals(1_004, policy.selectVictim(key -> true));
    }

    @Test
    void heldSuffixIsSkippedInFavourOfTheNextDeepestBlock() {
        PrefixLruPolicy policy = twoGroups();
        assertEquals(11, policy.selectVictim(key -> key != 12));
    }

    @Test
    void aGroupForgottenAfterItsLastKeyLeavesStartsFresh() {
        // Once every key of group 100 is gone, a new insert under the same id is a new request and
        // must rank newer than group 200, not inherit the old, older epoch.
        PrefixLruPolicy policy = twoGroups();
        for (long key : new long[] {10, 11, 12}) {
            policy.onRemove(key);
        }
        policy.onInsert(13, 100, 0);
        policy.checkInvariants();
        assertEquals(List.of(22L, 21L, 20L, 13L), drain(policy, key -> true));
    }
}
