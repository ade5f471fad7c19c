package tierlab.model.policy;

import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * 2Q, the full version (Johnson and Shasha, VLDB'94, section 2.2): three queues.
 *
 * <ul>
 *   <li><b>A1in</b>: a FIFO of resident keys seen once; every new key enters it. A hit on an A1in key
 *       does not move it (correlated references right after a first use do not count as reuse).</li>
 *   <li><b>A1out</b>: a FIFO of keys (no data) recently removed from A1in, at most
 *       ⌊{@code kout} [0.5] × capacity⌋ of them. A miss on an A1out key inserts it into Am.</li>
 *   <li><b>Am</b>: an LRU of resident keys that came back after leaving A1in; a hit moves the key to
 *       the most-recent end.</li>
 * </ul>
 * The paper's "reclaimfor": when A1in holds more than Kin = ⌊{@code kin} [0.25] × capacity⌋ keys the
 * victim is A1in's oldest evictable key (it goes to A1out), otherwise Am's least recent (it is
 * forgotten). If the preferred queue has no evictable key the other one is searched. The paper's
 * tuning, Kin = 25% and Kout = 50% of the page slots, is the default. As with S3-FIFO, the store may
 * drop a key outside an eviction; an A1in key still goes to A1out then.
 */
public final class TwoQueuePolicy extends NamedPolicy {

    public static final String NAME = "2q";

    /** A1in's size Kin as a share of the capacity [0.25, the paper's]. */
    public static final PolicyParameter<Double> KIN = PolicyParameter.between("kin", 0.25, 0.0, 1.0,
            "2q: Kin, the A1in FIFO's share of the capacity above which it gives the victim (paper: 0.25)");
    /** A1out's size Kout as a share of the capacity [0.5, the paper's]. */
    public static final PolicyParameter<Double> KOUT = PolicyParameter.between("kout", 0.5, 0.0, 16.0,
            "2q: Kout, the A1out ghost FIFO's size as a share of the capacity (paper: 0.5)");

    private final OffsetTable<KeyNode> nodesByKey = new OffsetTable<>(1);
    private final KeyList a1in = new KeyList("2q A1in (resident, seen once)");
    private final KeyList a1out = new KeyList("2q A1out (ghosts removed from A1in)");
    private final KeyList am = new KeyList("2q Am (resident, reused)");
    private final long kinEntries;
    private final long koutEntries;

    public TwoQueuePolicy(long capacityEntries, double kin, double kout) {
        super(NAME);
        if (capacityEntries < 1) {
            throw new IllegalArgumentException("capacityEntries must be >= 1, was " + capacityEntries);
        }
        this.kinEntries = (long) Math.floor(KIN.checked(kin) * capacityEntries);
        this.koutEntries = (long) Math.floor(KOUT.checked(kout) * capacityEntries);
    }

    public long kinEntries() {
        return kinEntries;
    }

    public long koutEntries() {
        return koutEntries;
    }

    /** Which queue holds the key: "A1in", "A1out", "Am" or null (for tests). */
    String queueOf(long key) {
        KeyNode node = nodesByKey.get(key);
        if (node == null) {
            return null;
        }
        return node.list == a1in ? "A1in" : node.list == a1out ? "A1out" : "Am";
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        KeyNode node = PolicyLists.addIfUnknown(nodesByKey, key, a1in);
        if (node == null) {
            return;
        }
        if (node.list == a1out) {
            a1out.remove(node);
            am.addNewest(node);
        } else {
            throw PolicyPreconditions.alreadyResident(NAME, key);
        }
    }

    @Override
    public void onAccess(long key) {
        KeyNode node = resident(key, "onAccess");
        if (node.list == am) {
            am.moveToNewest(node);
        }
    }

    @Override
    public void onRemove(long key) {
        KeyNode node = resident(key, "onRemove");
        if (node.list == a1in) {
            a1in.remove(node);
            PolicyLists.toGhost(node, a1out, koutEntries, nodesByKey);
        } else {
            am.remove(node);
            nodesByKey.remove(key);
        }
    }

    private KeyNode resident(long key, String operation) {
        return PolicyLists.resident(NAME, nodesByKey, key, operation, a1out, null);
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        boolean fromA1in = a1in.size() > kinEntries || am.isEmpty();
        KeyList preferred = fromA1in ? a1in : am;
        KeyList fallback = fromA1in ? am : a1in;
        return PolicyLists.oldestEvictable(preferred, fallback, evictable);
    }

    @Override
    public boolean contains(long key) {
        KeyNode node = nodesByKey.get(key);
        return node != null && node.list != a1out;
    }

    @Override
    public int size() {
        return a1in.size() + am.size();
    }

    @Override
    public void checkInvariants() {
        PolicyLists.checkLookup(NAME, nodesByKey, a1in, a1out, am);
        if (a1out.size() > koutEntries) {
            throw new IllegalStateException(NAME + ": A1out holds " + a1out.size() + " keys, more than Kout "
                    + koutEntries);
        }
    }
}
