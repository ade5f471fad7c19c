package tierlab.model.policy;

import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * The shared machinery of {@code lru}, {@code bip} and {@code fifo}: one node per resident key in a
 * {@link OffsetTable} for lookup, and one {@link KeyList} from least recent (tail) to most recent
 * (head) for every decision. The policies differ only in where a new key enters the list and
 * whether an access moves it.
 */
final class RecencyList {

    private final String policyName;
    private final OffsetTable<KeyNode> nodesByKey = new OffsetTable<>(1);
    private final KeyList recency;

    RecencyList(String policyName) {
        this.policyName = policyName;
        this.recency = new KeyList(policyName + " recency list");
    }

    /** Adds a new key at the most-recent end, or at the least-recent end when {@code atMostRecent} is false. */
    void insert(long key, boolean atMostRecent) {
        PolicyPreconditions.checkInsertableKey(policyName, key);
        KeyNode node = new KeyNode(key);
        if (nodesByKey.putIfAbsent(key, node) != null) {
            throw PolicyPreconditions.alreadyResident(policyName, key);
        }
        if (atMostRecent) {
            recency.addNewest(node);
        } else {
            recency.addOldest(node);
        }
    }

    void access(long key) {
        KeyNode node = nodesByKey.get(key);
        if (node == null) {
            throw PolicyPreconditions.notResident(policyName, "onAccess", key);
        }
        recency.moveToNewest(node);
    }

    /** Fails unless {@code key} is resident; a hit that must not reorder still has to be a hit. */
    void requireResident(long key, String operation) {
        if (nodesByKey.get(key) == null) {
            throw PolicyPreconditions.notResident(policyName, operation, key);
        }
    }

    void remove(long key) {
        KeyNode node = nodesByKey.remove(key);
        if (node == null) {
            throw PolicyPreconditions.notResident(policyName, "onRemove", key);
        }
        recency.remove(node);
    }

    /** The least recent key that passes {@code evictable}, scanning toward the most recent. */
    long leastRecent(LongPredicate evictable) {
        for (KeyNode node = recency.oldest(); node != null; node = recency.newerThan(node)) {
            if (evictable.test(node.key)) {
                return node.key;
            }
        }
        return ReplacementPolicy.NO_VICTIM;
    }

    boolean contains(long key) {
        return nodesByKey.get(key) != null;
    }

    int size() {
        return recency.size();
    }

    void checkInvariants() {
        recency.checkInvariants();
        if (nodesByKey.size() != recency.size()) {
            throw new IllegalStateException(policyName + ": lookup map holds " + nodesByKey.size()
                    + " keys but the recency list holds " + recency.size());
        }
        for (KeyNode node = recency.oldest(); node != null; node = recency.newerThan(node)) {
            if (nodesByKey.get(node.key) != node) {
                throw new IllegalStateException(policyName + ": key " + node.key
                        + " is on the recency list but the lookup map points elsewhere");
            }
        }
    }
}
