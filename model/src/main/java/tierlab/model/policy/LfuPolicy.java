package tierlab.model.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * Least frequently used, with aging. Each resident key has a use count: 1 when it is inserted, one
 * more on every hit. The victim is the evictable key with the smallest count; among equal counts,
 * the one used least recently (so on a stream without repeats lfu behaves like lru).
 *
 * <p><b>Aging rule.</b> A plain LFU never forgets: a key that was hot an hour ago keeps a count no
 * newcomer can reach. So every {@code ⌈agingFactor × capacity⌉} references (inserts plus hits, the
 * same clock Caffeine's frequency sketch uses for its reset, with the same default factor 10), every
 * resident count is halved, rounded down. Keys whose counts become equal are then ordered by recency
 * of use. {@code agingFactor} 0 turns aging off. Counts belong to resident keys only: a key that is
 * removed and inserted again starts from 1 (an "in-cache" LFU, no history of evicted keys).
 *
 * <p>Keys live in a tree ordered by (count, last use), so insert, hit and remove are O(log n) and a
 * halving is O(n log n) once per {@code agingFactor × capacity} references.
 */
public final class LfuPolicy extends NamedPolicy {

    public static final String NAME = "lfu";

    /** Counts are halved every agingFactor × capacity references [10; 0 = never]. */
    public static final PolicyParameter<Double> AGING_FACTOR = PolicyParameter.between("agingFactor", 10.0, 0.0, 1e6,
            "lfu, w-tinylfu: counts are halved every agingFactor x capacity references (0: never)");

    /** One resident key: its count and the sequence number of its last insert or hit. */
    private static final class Entry {
        final long key;
        int count;
        long lastUse;

        Entry(long key) {
            this.key = key;
        }
    }

    private static final Comparator<Entry> VICTIM_ORDER =
            Comparator.<Entry>comparingInt(entry -> entry.count).thenComparingLong(entry -> entry.lastUse);

    private final OffsetTable<Entry> entriesByKey = new OffsetTable<>(1);
    private final TreeSet<Entry> byVictimOrder = new TreeSet<>(VICTIM_ORDER);
    /** References between two halvings; 0 when aging is off. */
    private final long agingIntervalReferences;
    private long useSequence;
    private long referencesSinceHalving;
    private long halvings;

    public LfuPolicy(long capacityEntries, double agingFactor) {
        super(NAME);
        if (capacityEntries < 1) {
            throw new IllegalArgumentException("capacityEntries must be >= 1, was " + capacityEntries);
        }
        double factor = AGING_FACTOR.checked(agingFactor);
        this.agingIntervalReferences = factor == 0.0 ? 0 : Math.max(1, (long) Math.ceil(factor * capacityEntries));
    }

    /** References between two halvings of every count; 0 when aging is off. */
    public long agingIntervalReferences() {
        return agingIntervalReferences;
    }

    /** How many times the counts were halved so far. */
    public long halvings() {
        return halvings;
    }

    /** The use count of a resident key (for tests). */
    int count(long key) {
        return resident(key, "count").count;
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        if (entriesByKey.get(key) != null) {
            throw PolicyPreconditions.alreadyResident(NAME, key);
        }
        Entry entry = new Entry(key);
        entry.count = 1;
        entriesByKey.putIfAbsent(key, entry);
        markUsed(entry);
    }

    @Override
    public void onAccess(long key) {
        Entry entry = resident(key, "onAccess");
        byVictimOrder.remove(entry);
        if (entry.count < Integer.MAX_VALUE) {
            entry.count++;
        }
        markUsed(entry);
    }

    /** An insert or a hit: the entry (out of the victim order) is the newest use at its count, and the aging clock ticks. */
    private void markUsed(Entry entry) {
        entry.lastUse = useSequence++;
        byVictimOrder.add(entry);
        countReference();
    }

    @Override
    public void onRemove(long key) {
        Entry entry = resident(key, "onRemove");
        byVictimOrder.remove(entry);
        entriesByKey.remove(key);
    }

    private Entry resident(long key, String operation) {
        Entry entry = entriesByKey.get(key);
        if (entry == null) {
            throw PolicyPreconditions.notResident(NAME, operation, key);
        }
        return entry;
    }

    /** Advances the aging clock by one reference and halves every count when it comes round. */
    private void countReference() {
        if (agingIntervalReferences == 0 || ++referencesSinceHalving < agingIntervalReferences) {
            return;
        }
        referencesSinceHalving = 0;
        halvings++;
        // Halving can make unequal counts equal, which changes the order; rebuild the tree.
        List<Entry> entries = new ArrayList<>(byVictimOrder);
        byVictimOrder.clear();
        for (Entry entry : entries) {
            entry.count /= 2;
            byVictimOrder.add(entry);
        }
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        for (Entry entry : byVictimOrder) {
            if (evictable.test(entry.key)) {
                return entry.key;
            }
        }
        return NO_VICTIM;
    }

    @Override
    public boolean contains(long key) {
        return entriesByKey.get(key) != null;
    }

    @Override
    public int size() {
        return byVictimOrder.size();
    }

    @Override
    public void checkInvariants() {
        if (entriesByKey.size() != byVictimOrder.size()) {
            throw new IllegalStateException(NAME + ": lookup holds " + entriesByKey.size() + " keys but the order holds "
                    + byVictimOrder.size());
        }
        for (Entry entry : byVictimOrder) {
            if (entriesByKey.get(entry.key) != entry) {
                throw new IllegalStateException(NAME + ": key " + entry.key + " is ordered but the lookup points elsewhere");
            }
            if (entry.count < 0 || entry.lastUse >= useSequence) {
                throw new IllegalStateException(NAME + ": key " + entry.key + " has count " + entry.count
                        + " and last use " + entry.lastUse + " (sequence " + useSequence + ")");
            }
        }
        if (agingIntervalReferences > 0 && referencesSinceHalving >= agingIntervalReferences) {
            throw new IllegalStateException(NAME + ": " + referencesSinceHalving + " references since the last halving,"
                    + " the interval is " + agingIntervalReferences);
        }
    }
}
