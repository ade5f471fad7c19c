package tierlab.model.policy;

import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * Adaptive Replacement Cache (Megiddo and Modha, FAST'03) over a capacity of {@code c} entries.
 *
 * <p>Resident keys live in T1 (seen once recently) or T2 (seen at least twice); the ghost lists B1
 * and B2 remember keys recently evicted from T1 and T2 (keys only, no data). The target size
 * {@code p} of T1 adapts: a miss that hits B1 means T1 was too small, so p grows by
 * max(1, |B2| / |B1|); a miss that hits B2 means T2 was too small, so p shrinks by
 * max(1, |B1| / |B2|) (integer division, clamped to [0, c]).
 *
 * <p><b>Adaptation to a store-driven cache.</b> In the paper one routine both picks the victim and
 * admits the new key; here the store decides when to evict and reports each step separately, so
 * ARC's cases are split over the calls:
 * <ul>
 *   <li>{@link #onInsert}: a key found in B1 or B2 adapts p as above, leaves its ghost list and
 *       enters T2 (cases II and III); any other key enters T1 (case IV).</li>
 *   <li>{@link #onAccess}: a T1 or T2 key moves to the most-recent end of T2 (case I).</li>
 *   <li>{@link #selectVictim} is REPLACE: it prefers the least recent key of T1 when |T1| &gt; p and
 *       of T2 otherwise, skips keys the store cannot evict, and falls back to the other list.
 *       Because the store asks for a victim before it inserts, REPLACE does not know the incoming
 *       key, so the paper's tie rule "(x in B2 and |T1| = p)" is dropped, and a ghost hit adapts p
 *       one eviction later than in the paper.</li>
 *   <li>{@link #onRemove}: a resident key moves to the most-recent end of the matching ghost list
 *       (B1 from T1, B2 from T2), whether the store evicted it or dropped it.</li>
 *   <li>Ghost lists are trimmed after every insert and remove: first B1's oldest keys while
 *       |T1| + |B1| &gt; c (the paper's bound on L1), then B2's oldest (B1's when B2 is empty) while
 *       |B1| + |B2| &gt; c, so the directory never remembers more than c ghosts.</li>
 * </ul>
 * The store may hold more than c resident keys; ARC then still orders them, with B1 empty.
 */
public final class ArcPolicy extends NamedPolicy {

    public static final String NAME = "arc";

    private final long capacityEntries;
    /** Every key ARC knows, resident or ghost; {@link KeyNode#list} says which of the four lists. */
    private final OffsetTable<KeyNode> nodesByKey = new OffsetTable<>(1);
    private final KeyList t1 = new KeyList("arc T1 (resident, seen once)");
    private final KeyList t2 = new KeyList("arc T2 (resident, seen twice or more)");
    private final KeyList b1 = new KeyList("arc B1 (ghosts evicted from T1)");
    private final KeyList b2 = new KeyList("arc B2 (ghosts evicted from T2)");
    /** ARC's p: the size T1 should have; REPLACE evicts from T1 while T1 is larger. */
    private long targetT1Size;

    public ArcPolicy(long capacityEntries) {
        super(NAME);
        if (capacityEntries < 1) {
            throw new IllegalArgumentException("capacityEntries must be >= 1, was " + capacityEntries);
        }
        this.capacityEntries = capacityEntries;
    }

    /** ARC's adaptive target p for the size of T1, between 0 and the capacity. */
    public long targetT1Size() {
        return targetT1Size;
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        KeyNode node = PolicyLists.addIfUnknown(nodesByKey, key, t1);
        if (node == null) {
            // A new key, now the newest in T1; the ghost lists are trimmed below as after any insert.
        } else if (node.list == b1) {
            long delta = Math.max(1, b2.size() / b1.size());
            targetT1Size = Math.min(capacityEntries, targetT1Size + delta);
            b1.remove(node);
            t2.addNewest(node);
        } else if (node.list == b2) {
            long delta = Math.max(1, b1.size() / b2.size());
            targetT1Size = Math.max(0, targetT1Size - delta);
            b2.remove(node);
            t2.addNewest(node);
        } else {
            throw PolicyPreconditions.alreadyResident(NAME, key);
        }
        trimGhosts();
    }

    @Override
    public void onAccess(long key) {
        KeyNode node = residentNode(key, "onAccess");
        if (node.list == t1) {
            t1.remove(node);
            t2.addNewest(node);
        } else {
            t2.moveToNewest(node);
        }
    }

    @Override
    public void onRemove(long key) {
        KeyNode node = residentNode(key, "onRemove");
        if (node.list == t1) {
            t1.remove(node);
            b1.addNewest(node);
        } else {
            t2.remove(node);
            b2.addNewest(node);
        }
        trimGhosts();
    }

    private KeyNode residentNode(long key, String operation) {
        return PolicyLists.resident(NAME, nodesByKey, key, operation, b1, b2);
    }

    private void trimGhosts() {
        while (!b1.isEmpty() && (long) t1.size() + b1.size() > capacityEntries) {
            forget(b1);
        }
        while ((long) b1.size() + b2.size() > capacityEntries) {
            forget(b2.isEmpty() ? b1 : b2);
        }
    }

    private void forget(KeyList ghosts) {
        KeyNode oldest = ghosts.oldest();
        ghosts.remove(oldest);
        nodesByKey.remove(oldest.key);
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        boolean preferT1 = t1.size() > targetT1Size;
        KeyList preferred = preferT1 ? t1 : t2;
        KeyList fallback = preferT1 ? t2 : t1;
        return PolicyLists.oldestEvictable(preferred, fallback, evictable);
    }

    @Override
    public boolean contains(long key) {
        KeyNode node = nodesByKey.get(key);
        return node != null && (node.list == t1 || node.list == t2);
    }

    @Override
    public int size() {
        return t1.size() + t2.size();
    }

    @Override
    public void checkInvariants() {
        for (KeyList list : new KeyList[] {t1, t2, b1, b2}) {
            list.checkInvariants();
            for (KeyNode node = list.oldest(); node != null; node = list.newerThan(node)) {
                if (nodesByKey.get(node.key) != node) {
                    throw new IllegalStateException(NAME + ": key " + node.key
                            + " is on a list but the lookup map points elsewhere");
                }
            }
        }
        long listed = (long) t1.size() + t2.size() + b1.size() + b2.size();
        if (nodesByKey.size() != listed) {
            throw new IllegalStateException(NAME + ": lookup map holds " + nodesByKey.size()
                    + " keys but the four lists hold " + listed);
        }
        if (targetT1Size < 0 || targetT1Size > capacityEntries) {
            throw new IllegalStateException(NAME + ": target p = " + targetT1Size + " is outside [0, "
                    + capacityEntries + "]");
        }
        if ((long) b1.size() + b2.size() > capacityEntries) {
            throw new IllegalStateException(NAME + ": |B1| + |B2| = " + (b1.size() + b2.size())
                    + " exceeds the capacity " + capacityEntries);
        }
        if (!b1.isEmpty() && (long) t1.size() + b1.size() > capacityEntries) {
            throw new IllegalStateException(NAME + ": |T1| + |B1| = " + (t1.size() + b1.size())
                    + " exceeds the capacity " + capacityEntries);
        }
    }
}
