package tierlab.model.policy;

import java.util.Comparator;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * LeCaR (Vietri et al., "Driving Cache Replacement with ML-based LeCaR", HotStorage'18): two
 * experts, LRU and LFU, and a weight for each that regret lowers.
 *
 * <p>The resident keys are ordered both ways: by recency (LRU's victim is the least recently used)
 * and by use count, 1 at insert and one more per hit (LFU's victim has the smallest count, ties to
 * the least recently used). To evict, if both experts name the same key it goes; otherwise LRU's
 * candidate is chosen with probability {@code wLru} and LFU's with {@code wLfu = 1 − wLru}, drawn
 * from a SplitMix64 stream seeded by the knob {@code seed} (no shared or wall-clock randomness: the
 * same seed and operations give the same victims). The evicted key enters the history of the expert
 * that chose it (none when both agreed), each history a FIFO of at most ⌊capacity / 2⌋ keys.
 *
 * <p>Regret: a missed key found in an expert's history was that expert's mistake; its weight is
 * multiplied by {@code e^(−λ × d^t)}, {@code t} the references since the eviction,
 * {@code λ} = {@code learningRate} [0.45] and {@code d = 0.005^(1/capacity)} (the paper's
 * discount), and the weights are normalised to sum to 1. The key re-enters with count 1. Weights
 * start at 0.5 each. A removal the last search did not name (the store dropping a block) leaves no
 * history.
 */
public final class LecarPolicy extends NamedPolicy {

    public static final String NAME = "lecar";

    public static final PolicyParameter<Double> LEARNING_RATE = PolicyParameter.between("learningRate", 0.45, 0.0, 10.0,
            "lecar: lambda, how far one regret lowers an expert's weight (the paper: 0.45)");
    public static final PolicyParameter<Long> SEED = new PolicyParameter<>("seed", Long.class, 1L,
            "lecar: seed of the SplitMix64 stream that picks between the experts' candidates", "must be a whole number",
            value -> true);

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    private static final int LRU_EXPERT = 1;
    private static final int LFU_EXPERT = 2;
    private static final int BOTH_EXPERTS = 3;

    /** One key: resident (its node on the recency list) or a ghost (its node on an expert's history). */
    private static final class Entry {
        final KeyNode node;
        long uses;
        long lastUse;
        long evictedAt;

        Entry(long key) {
            node = new KeyNode(key);
        }
    }

    private static final Comparator<Entry> LFU_ORDER =
            Comparator.<Entry>comparingLong(entry -> entry.uses).thenComparingLong(entry -> entry.lastUse);

    private final OffsetTable<Entry> entriesByKey = new OffsetTable<>(1);
    private final KeyList recency = new KeyList("lecar resident keys by recency");
    private final TreeSet<Entry> byUses = new TreeSet<>(LFU_ORDER);
    private final KeyList lruHistory = new KeyList("lecar LRU expert's history");
    private final KeyList lfuHistory = new KeyList("lecar LFU expert's history");
    private final long historyLimit;
    private final double learningRate;
    private final double discount;
    private long randomState;
    private double lruWeight = 0.5;
    private long references;
    private long namedVictim = NO_VICTIM;
    private int namedExpert;

    public LecarPolicy(long capacityEntries, double learningRate, long seed) {
        super(NAME);
        if (capacityEntries < 1) {
            throw new IllegalArgumentException("capacityEntries must be >= 1, was " + capacityEntries);
        }
        this.historyLimit = capacityEntries / 2;
        this.learningRate = LEARNING_RATE.checked(learningRate);
        this.discount = Math.pow(0.005, 1.0 / capacityEntries);
        this.randomState = seed;
    }

    /** The LRU expert's weight (LFU's is 1 minus it). */
    public double lruWeight() {
        return lruWeight;
    }

    /** "resident", "LRU history", "LFU history" or null (for tests). */
    String placeOf(long key) {
        Entry entry = entriesByKey.get(key);
        if (entry == null) {
            return null;
        }
        return entry.node.list == recency ? "resident" : entry.node.list == lruHistory ? "LRU history" : "LFU history";
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        Entry entry = entriesByKey.get(key);
        if (entry != null && entry.node.list == recency) {
            throw PolicyPreconditions.alreadyResident(NAME, key);
        }
        if (entry != null) {
            regret(entry.node.list == lruHistory, references - entry.evictedAt);
            entry.node.list.remove(entry.node);
        } else {
            entry = new Entry(key);
            entriesByKey.putIfAbsent(key, entry);
        }
        entry.uses = 0;
        recency.addNewest(entry.node);
        use(entry);
    }

    /** A mistake of one expert: its weight times e^(-lambda d^t), then both normalised. */
    private void regret(boolean lrusMistake, long referencesSinceEviction) {
        double factor = Math.exp(-learningRate * Math.pow(discount, referencesSinceEviction));
        double lru = lrusMistake ? lruWeight * factor : lruWeight;
        double lfu = lrusMistake ? 1 - lruWeight : (1 - lruWeight) * factor;
        lruWeight = lru / (lru + lfu);
    }

    @Override
    public void onAccess(long key) {
        Entry entry = resident(key, "onAccess");
        byUses.remove(entry);
        recency.moveToNewest(entry.node);
        use(entry);
    }

    private void use(Entry entry) {
        entry.uses++;
        entry.lastUse = references++;
        byUses.add(entry);
        namedVictim = NO_VICTIM;
    }

    @Override
    public void onRemove(long key) {
        Entry entry = resident(key, "onRemove");
        byUses.remove(entry);
        recency.remove(entry.node);
        boolean evicted = key == namedVictim;
        namedVictim = NO_VICTIM;
        if (evicted && namedExpert != BOTH_EXPERTS) {
            entry.evictedAt = references;
            KeyList history = namedExpert == LRU_EXPERT ? lruHistory : lfuHistory;
            history.addNewest(entry.node);
            while (history.size() > historyLimit) {
                KeyNode forgotten = history.oldest();
                history.remove(forgotten);
                entriesByKey.remove(forgotten.key);
            }
            return;
        }
        entriesByKey.remove(key);
    }

    private Entry resident(long key, String operation) {
        Entry entry = entriesByKey.get(key);
        if (entry == null || entry.node.list != recency) {
            throw PolicyPreconditions.notResident(NAME, operation, key);
        }
        return entry;
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        long lruCandidate = PolicyLists.oldestEvictable(recency, evictable);
        if (lruCandidate == NO_VICTIM) {
            return NO_VICTIM;
        }
        long lfuCandidate = NO_VICTIM;
        for (Entry entry : byUses) {
            if (evictable.test(entry.node.key)) {
                lfuCandidate = entry.node.key;
                break;
            }
        }
        if (lruCandidate == lfuCandidate) {
            namedExpert = BOTH_EXPERTS;
        } else {
            namedExpert = nextUniform() < lruWeight ? LRU_EXPERT : LFU_EXPERT;
        }
        namedVictim = namedExpert == LFU_EXPERT ? lfuCandidate : lruCandidate;
        return namedVictim;
    }

    /** The next SplitMix64 draw as a double in [0, 1). */
    private double nextUniform() {
        randomState += GOLDEN_GAMMA;
        return (FrequencySketch.mix(randomState) >>> 11) * 0x1.0p-53;
    }

    @Override
    public boolean contains(long key) {
        Entry entry = entriesByKey.get(key);
        return entry != null && entry.node.list == recency;
    }

    @Override
    public int size() {
        return recency.size();
    }

    @Override
    public void checkInvariants() {
        recency.checkInvariants();
        lruHistory.checkInvariants();
        lfuHistory.checkInvariants();
        long listed = (long) recency.size() + lruHistory.size() + lfuHistory.size();
        if (entriesByKey.size() != listed || byUses.size() != recency.size()) {
            throw new IllegalStateException(NAME + ": lookup holds " + entriesByKey.size() + " keys, the lists "
                    + listed + ", the use order " + byUses.size() + " for " + recency.size() + " resident");
        }
        for (KeyList history : new KeyList[] {lruHistory, lfuHistory}) {
            for (KeyNode node = history.oldest(); node != null; node = history.newerThan(node)) {
                if (entriesByKey.get(node.key) == null || entriesByKey.get(node.key).node != node) {
                    throw new IllegalStateException(NAME + ": ghost " + node.key + " is not in the lookup");
                }
            }
        }
        for (Entry entry : byUses) {
            if (entriesByKey.get(entry.node.key) != entry || entry.node.list != recency || entry.uses < 1) {
                throw new IllegalStateException(NAME + ": resident key " + entry.node.key + " is out of place or has "
                        + entry.uses + " uses");
            }
        }
        if (lruHistory.size() > historyLimit || lfuHistory.size() > historyLimit
                || !(lruWeight >= 0 && lruWeight <= 1)) {
            throw new IllegalStateException(NAME + ": histories " + lruHistory.size() + " and " + lfuHistory.size()
                    + " (limit " + historyLimit + "), LRU weight " + lruWeight);
        }
    }
}
