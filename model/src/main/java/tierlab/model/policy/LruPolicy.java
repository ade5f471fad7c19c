package tierlab.model.policy;

import java.util.function.LongPredicate;

/**
 * Least recently used, the store's default: an insert or an access makes a key the most recent,
 * and the victim is the least recent key that may be evicted.
 *
 * <p>Every operation is O(1) (an open-addressing map plus an intrusive list) except
 * {@link #selectVictim}, which walks from the least recent end past keys the store holds and so
 * costs O(1 + number of held keys at that end).
 */
public final class LruPolicy implements ReplacementPolicy {

    public static final String NAME = "lru";

    private final RecencyList recency = new RecencyList(NAME);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void onInsert(long key, long groupId, int positionInGroup) {
        recency.insert(key, true);
    }

    @Override
    public void onAccess(long key) {
        recency.access(key);
    }

    @Override
    public void onRemove(long key) {
        recency.remove(key);
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        return recency.leastRecent(evictable);
    }

    @Override
    public boolean contains(long key) {
        return recency.contains(key);
    }

    @Override
    public int size() {
        return recency.size();
    }

    @Override
    public void checkInvariants() {
        recency.checkInvariants();
    }
}
