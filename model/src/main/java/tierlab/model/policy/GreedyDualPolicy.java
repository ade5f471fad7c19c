package tierlab.model.policy;

import java.util.Comparator;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * The greedy-dual frequency family: LFU with dynamic aging ({@code lfuda}) and greedy-dual size
 * frequency ({@code gdsf}), as defined by Arlitt, Cherkasova, Dilley, Friedrich and Jin,
 * "Evaluating Content Management Techniques for Web Proxy Caches", ACM SIGMETRICS Performance
 * Evaluation Review 27(4), 2000 (GDSF after Cherkasova, HP Labs HPL-98-69).
 *
 * <p>Every resident key has a priority {@code K = L + F × C / S}: {@code F} its use count (1 at
 * insert, one more per hit), {@code C} the cost of fetching it again, {@code S} its size, and
 * {@code L} the cache's age, the priority of the last key evicted (0 at start). {@code K} is
 * recomputed with the current {@code L} at insert and at every hit. The victim is the evictable key
 * with the smallest {@code K}; equal priorities go to the least recently used. Aging through
 * {@code L} lets keys that were popular long ago leave: a newcomer starts at the age the cache has
 * reached, not at 0.
 *
 * <p>A KV block is one unit of memory, so {@code S} = 1 always. {@code lfuda} is the paper's LFUDA:
 * {@code C} = 1 for every key. {@code gdsf} takes the cost of recomputing the block from what the
 * store tells the policy at insert, the block's position {@code p} in its request's prompt
 * ({@code positionInGroup}, 0 for the first block): {@code C = p + 1}, since recomputing block
 * {@code p} runs attention over the {@code p + 1} blocks up to it, and, with a prefix cache, a miss at
 * {@code p} means every block after it is computed too. A caller without positions (a replay of a
 * plain block stream, where every reference is its own group at position 0) gives {@code C} = 1,
 * which makes {@code gdsf} exactly {@code lfuda}. Priorities are whole numbers, kept exactly.
 *
 * <p>{@code L} is advanced only by an eviction: a removal of the key the last {@link #selectVictim}
 * named, with no insert or hit in between; any other removal (the store dropping a block) leaves it.
 * As a held key can make the victim other than the smallest key, {@code L} never goes down.
 */
public final class GreedyDualPolicy extends NamedPolicy {

    public static final String LFUDA = "lfuda";
    public static final String GDSF = "gdsf";

    private static final class Entry {
        final long key;
        final long cost;
        long uses;
        long priority;
        long lastUse;

        Entry(long key, long cost) {
            this.key = key;
            this.cost = cost;
        }
    }

    private static final Comparator<Entry> VICTIM_ORDER =
            Comparator.<Entry>comparingLong(entry -> entry.priority).thenComparingLong(entry -> entry.lastUse);

    private final boolean positionCost;
    private final OffsetTable<Entry> entriesByKey = new OffsetTable<>(1);
    private final TreeSet<Entry> byVictimOrder = new TreeSet<>(VICTIM_ORDER);
    private long age;
    private long useSequence;
    /** The key the last search named, until the next insert or hit; NO_VICTIM when none. */
    private long namedVictim = NO_VICTIM;

    /** {@code positionCost} false: every cost is 1 ({@code lfuda}); true: the block's position + 1 ({@code gdsf}). */
    public GreedyDualPolicy(boolean positionCost) {
        super(positionCost ? GDSF : LFUDA);
        this.positionCost = positionCost;
    }

    /** The cache's age {@code L}: the priority of the last key evicted. */
    public long age() {
        return age;
    }

    /** A resident key's priority {@code K} (for tests). */
    long priority(long key) {
        return resident(key, "priority").priority;
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        if (entriesByKey.get(key) != null) {
            throw PolicyPreconditions.alreadyResident(name(), key);
        }
        Entry entry = new Entry(key, positionCost ? Math.max(0, positionInGroup) + 1L : 1L);
        entriesByKey.putIfAbsent(key, entry);
        use(entry);
    }

    @Override
    public void onAccess(long key) {
        Entry entry = resident(key, "onAccess");
        byVictimOrder.remove(entry);
        use(entry);
    }

    /** An insert or a hit: one more use, the priority at the current age, the newest at its priority. */
    private void use(Entry entry) {
        entry.uses++;
        entry.priority = Math.addExact(age, Math.multiplyExact(entry.uses, entry.cost));
        entry.lastUse = useSequence++;
        byVictimOrder.add(entry);
        namedVictim = NO_VICTIM;
    }

    @Override
    public void onRemove(long key) {
        Entry entry = resident(key, "onRemove");
        byVictimOrder.remove(entry);
        entriesByKey.remove(key);
        if (key == namedVictim) {
            age = Math.max(age, entry.priority);
        }
        namedVictim = NO_VICTIM;
    }

    private Entry resident(long key, String operation) {
        Entry entry = entriesByKey.get(key);
        if (entry == null) {
            throw PolicyPreconditions.notResident(name(), operation, key);
        }
        return entry;
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        for (Entry entry : byVictimOrder) {
            if (evictable.test(entry.key)) {
                namedVictim = entry.key;
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
            throw new IllegalStateException(name() + ": lookup holds " + entriesByKey.size()
                    + " keys but the order holds " + byVictimOrder.size());
        }
        for (Entry entry : byVictimOrder) {
            if (entriesByKey.get(entry.key) != entry) {
                throw new IllegalStateException(name() + ": key " + entry.key + " is ordered but the lookup points elsewhere");
            }
            if (entry.uses < 1 || entry.cost < 1 || (!positionCost && entry.cost != 1)
                    || entry.priority < entry.uses * entry.cost || entry.lastUse >= useSequence) {
                throw new IllegalStateException(name() + ": key " + entry.key + " has " + entry.uses + " uses, cost "
                        + entry.cost + ", priority " + entry.priority + ", last use " + entry.lastUse);
            }
        }
    }
}
