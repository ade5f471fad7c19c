package tierlab.model.policy;

/**
 * Least recently used, the store's default: an insert or an access makes a key the most recent,
 * and the victim is the least recent key that may be evicted.
 *
 * <p>Every operation is O(1) (an open-addressing map plus an intrusive list) except
 * {@link #selectVictim}, which walks from the least recent end past keys the store holds and so
 * costs O(1 + number of held keys at that end).
 */
public final class LruPolicy extends RecencyListPolicy {

    public static final String NAME = "lru";

    public LruPolicy() {
        super(NAME);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void onInsert(long key, long groupId, int positionInGroup) {
        recency.insert(key, true);
    }
}
