package tierlab.model.policy;

import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * What the policies built from {@link KeyList}s and one lookup table share: the resident-node lookup,
 * the victim scan, moving a key to a bounded ghost list, and the invariant checks.
 */
final class PolicyLists {

    private PolicyLists() {
    }

    /**
     * Checks every list's links, that the lookup table points at exactly the nodes on the lists
     * (resident or ghost), and nothing else.
     */
    static void checkLookup(String policyName, OffsetTable<KeyNode> nodesByKey, KeyList... lists) {
        long listed = 0;
        for (KeyList list : lists) {
            list.checkInvariants();
            for (KeyNode node = list.oldest(); node != null; node = list.newerThan(node)) {
                if (nodesByKey.get(node.key) != node) {
                    throw new IllegalStateException(policyName + ": key " + node.key
                            + " is on a list but the lookup table points elsewhere");
                }
            }
            listed += list.size();
        }
        if (nodesByKey.size() != listed) {
            throw new IllegalStateException(policyName + ": lookup table holds " + nodesByKey.size()
                    + " keys but the lists hold " + listed);
        }
    }

    /** The node of a resident key; an absent key is the caller's error, named by operation. */
    static KeyNode resident(String policyName, OffsetTable<KeyNode> nodesByKey, long key, String operation) {
        return resident(policyName, nodesByKey, key, operation, null, null);
    }

    /**
     * The node of a resident key: present in the table and on neither ghost list (ghosts remember
     * evicted keys; {@code null} for none). Anything else is the caller's error, named by operation.
     */
    static KeyNode resident(String policyName, OffsetTable<KeyNode> nodesByKey, long key, String operation,
                            KeyList ghost, KeyList otherGhost) {
        KeyNode node = nodesByKey.get(key);
        if (node == null || (ghost != null && node.list == ghost) || (otherGhost != null && node.list == otherGhost)) {
            throw PolicyPreconditions.notResident(policyName, operation, key);
        }
        return node;
    }

    /** The least recent key of {@code list} that passes {@code evictable}, or {@link ReplacementPolicy#NO_VICTIM}. */
    static long oldestEvictable(KeyList list, LongPredicate evictable) {
        for (KeyNode node = list.oldest(); node != null; node = list.newerThan(node)) {
            if (evictable.test(node.key)) {
                return node.key;
            }
        }
        return ReplacementPolicy.NO_VICTIM;
    }

    /** The least recent evictable key of {@code first}, else of {@code then}, else NO_VICTIM. */
    static long oldestEvictable(KeyList first, KeyList then, LongPredicate evictable) {
        long victim = oldestEvictable(first, evictable);
        return victim != ReplacementPolicy.NO_VICTIM ? victim : oldestEvictable(then, evictable);
    }

    /**
     * Remembers an evicted key: {@code node} (already off its resident list) becomes the newest entry
     * of {@code ghost}, and the oldest ghosts beyond {@code capacity} are forgotten entirely.
     */
    static void toGhost(KeyNode node, KeyList ghost, long capacity, OffsetTable<KeyNode> nodesByKey) {
        ghost.addNewest(node);
        while (ghost.size() > capacity) {
            KeyNode forgotten = ghost.oldest();
            ghost.remove(forgotten);
            nodesByKey.remove(forgotten.key);
        }
    }

    /**
     * A hit in a segmented-LRU space (slru, and w-tinylfu's main space): a protected key becomes the
     * newest protected key; a probation key is promoted to newest protected, and the oldest protected
     * keys beyond {@code protectedCapacity} go back to probation as its newest, keeping their second chance.
     */
    static void segmentedHit(KeyNode node, KeyList probation, KeyList protectedSegment, long protectedCapacity) {
        if (node.list == protectedSegment) {
            protectedSegment.moveToNewest(node);
            return;
        }
        probation.remove(node);
        protectedSegment.addNewest(node);
        while (protectedSegment.size() > protectedCapacity) {
            KeyNode demoted = protectedSegment.oldest();
            protectedSegment.remove(demoted);
            probation.addNewest(demoted);
        }
    }

    /**
     * The insert step shared by the ghost-queue policies (2q, arc, s3-fifo): an unknown key gets a node,
     * newest in {@code newKeys}, and null comes back; a known key's node comes back untouched, for the
     * caller's own rule (a ghost hit, or refusing a resident key).
     */
    static KeyNode addIfUnknown(OffsetTable<KeyNode> nodesByKey, long key, KeyList newKeys) {
        KeyNode known = nodesByKey.get(key);
        if (known != null) {
            return known;
        }
        KeyNode node = new KeyNode(key);
        nodesByKey.putIfAbsent(key, node);
        newKeys.addNewest(node);
        return null;
    }

    /**
     * The insert step of the policies without ghost lists (slru, w-tinylfu): the key must not be
     * known yet; its new node goes newest into {@code newKeys}.
     */
    static void addNew(String policyName, OffsetTable<KeyNode> nodesByKey, long key, KeyList newKeys) {
        if (nodesByKey.get(key) != null) {
            throw PolicyPreconditions.alreadyResident(policyName, key);
        }
        KeyNode node = new KeyNode(key);
        nodesByKey.putIfAbsent(key, node);
        newKeys.addNewest(node);
    }

    /** The remove step of the policies without ghost lists: a resident key leaves its list and the table. */
    static void removeResident(String policyName, OffsetTable<KeyNode> nodesByKey, long key) {
        KeyNode node = resident(policyName, nodesByKey, key, "onRemove");
        node.list.remove(node);
        nodesByKey.remove(key);
    }
}
