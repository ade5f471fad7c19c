package tierlab.model.policy;

import java.util.function.LongPredicate;

/**
 * First in, first out: keys are ordered by insertion alone and a hit does not move a key, so the
 * victim is the oldest inserted key that may be evicted. The plainest baseline there is; it shows
 * how much of another policy's result comes from reacting to hits at all.
 *
 * <p>Every operation is O(1) except {@link #selectVictim}, which walks from the oldest end past
 * keys the store holds.
 */
public final class FifoPolicy implements ReplacementPolicy {

    public static final String NAME = "fifo";

    // Oldest at the least-recent end; inserts go to the most-recent end and nothing ever moves a key.
    private final RecencyList insertionOrder = new RecencyList(NAME);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void onInsert(long key, long groupId, int positionInGroup) {
        insertionOrder.insert(key, true);
    }

    @Override
    public void onAccess(long key) {
        insertionOrder.requireResident(key, "onAccess");
    }

    @Override
    public void onRemove(long key) {
        insertionOrder.remove(key);
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        return insertionOrder.leastRecent(evictable);
    }

    @Override
    public boolean contains(long key) {
        return insertionOrder.contains(key);
    }

    @Override
    public int size() {
        return insertionOrder.size();
    }

    @Override
    public void checkInvariants() {
        insertionOrder.checkInvariants();
    }
}
