package tierlab.model.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * Most recently used first: the victim is the evictable key used last. Registered only through
 * {@link TestPolicyProvider} (never on the ordinary test class path), so that a run by its name
 * shows a policy reached the registry through a provider; it counts its victim searches.
 */
public final class MruTestPolicy implements ReplacementPolicy {
    public static final String NAME = "test-mru";

    /** Victim searches by every instance in this class loader (the provider test runs in a loader of its own). */
    static long victimSearches;

    /** Least recent first. */
    private final List<Long> order = new ArrayList<>();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void onInsert(long key, long groupId, int positionInGroup) {
        if (order.contains(key)) {
            throw new IllegalStateException(NAME + ": key " + key + " inserted twice");
        }
        order.add(key);
    }

    @Override
    public void onAccess(long key) {
        if (!order.remove(Long.valueOf(key))) {
            throw new IllegalStateException(NAME + ": onAccess of absent key " + key);
        }
        order.add(key);
    }

    @Override
    public void onRemove(long key) {
        if (!order.remove(Long.valueOf(key))) {
            throw new IllegalStateException(NAME + ": onRemove of absent key " + key);
        }
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        victimSearches++;
        for (int i = order.size() - 1; i >= 0; i--) {
            if (evictable.test(order.get(i))) {
                return order.get(i);
            }
        }
        return NO_VICTIM;
    }

    @Override
    public boolean contains(long key) {
        return order.contains(key);
    }

    @Override
    public int size() {
        return order.size();
    }

    @Override
    public void checkInvariants() {
        if (order.stream().distinct().count() != order.size()) {
            throw new IllegalStateException(NAME + ": a key is listed twice in " + order);
        }
    }
}
