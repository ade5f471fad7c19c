package tierlab.model.policy;

import java.util.function.LongPredicate;

/**
 * What {@code lru} and {@code bip} share: one {@link RecencyList}, accesses move a key to the
 * most-recent end, the victim is the least recent evictable key. Subclasses decide only where a
 * new key enters.
 */
abstract class RecencyListPolicy implements ReplacementPolicy {

    final RecencyList recency;

    RecencyListPolicy(String name) {
        this.recency = new RecencyList(name);
    }

    @Override
    public final void onAccess(long key) {
        recency.access(key);
    }

    @Override
    public final void onRemove(long key) {
        recency.remove(key);
    }

    @Override
    public final long selectVictim(LongPredicate evictable) {
        return recency.leastRecent(evictable);
    }

    @Override
    public final boolean contains(long key) {
        return recency.contains(key);
    }

    @Override
    public final int size() {
        return recency.size();
    }

    @Override
    public void checkInvariants() {
        recency.checkInvariants();
    }
}
