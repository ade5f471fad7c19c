package tierlab.model.policy;

import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * W-TinyLFU, Caffeine's eviction policy (Einziger, Friedman and Manes, "TinyLFU: A Highly Efficient
 * Cache Admission Policy", ACM TOS 2017; Caffeine's {@code BoundedLocalCache} and
 * {@code FrequencySketch}, see docs/policies.md): a small LRU window in front of a segmented-LRU
 * main space, with a frequency filter deciding who may enter main.
 *
 * <ul>
 *   <li><b>window</b>: an LRU of {@code capacity − ⌊(1 − windowRatio) × capacity⌋} keys (Caffeine's
 *       split: 1% of the capacity, at least one key). Every new key enters it; a hit moves the key to
 *       its most-recent end. A key pushed out of a full window moves to main's probation segment.</li>
 *   <li><b>main</b>: the rest of the capacity, an SLRU exactly as {@link SlruPolicy} (probation, and
 *       protected of at most ⌊protectedRatio [0.8] × main⌋ keys; a hit in probation promotes, an
 *       overfull protected segment demotes its least recent key to probation).</li>
 *   <li><b>filter</b>: a {@link FrequencySketch} that counts every insert and hit, halves its counters
 *       every agingFactor [10] × capacity references, and optionally has a doorkeeper [off].</li>
 * </ul>
 *
 * <p><b>Eviction.</b> In Caffeine a new key enters the window first, the window's least recent key
 * (the candidate) moves to probation, and if the cache is then over its size the candidate duels
 * main's victim (probation's least recent key, else protected's): the candidate is admitted only if
 * the sketch estimates it more frequent than the victim, otherwise the candidate itself leaves.
 * The store asks for the victim before it inserts, so {@link #selectVictim} runs the same duel one
 * step early: when the window is full (the next insert pushes its least recent key out), the
 * candidate is the window's least recent evictable key and the victim main's least recent evictable
 * key; it returns the victim if the candidate wins and the candidate otherwise. When the window is
 * not full, or main has nothing evictable, the victim is taken from main, then the window.
 *
 * <p>Left out of Caffeine's design, and why: the hill climber that resizes the window at run time
 * (the window stays at windowRatio, as in the TinyLFU paper's W-TinyLFU); the random admission of
 * a warm candidate against hash flooding (decisions here are deterministic); and the incoming key's
 * own sketch increment before the duel (here it comes after, so an estimate can differ by one
 * colliding increment).
 */
public final class WTinyLfuPolicy extends NamedPolicy {

    public static final String NAME = "w-tinylfu";

    /** The window's share of the capacity [0.01, Caffeine's initial split]. */
    public static final PolicyParameter<Double> WINDOW_RATIO = PolicyParameter.between("windowRatio", 0.01, 0.0, 1.0,
            "w-tinylfu: the LRU window's share of the capacity (at least 1 key; Caffeine starts at 0.01)");
    /** Whether a doorkeeper Bloom filter keeps first occurrences out of the sketch [false, as Caffeine]. */
    public static final PolicyParameter<Boolean> DOORKEEPER = PolicyParameter.flag("doorkeeper", false,
            "w-tinylfu: a Bloom filter in front of the frequency sketch absorbs each key's first reference");

    private final OffsetTable<KeyNode> nodesByKey = new OffsetTable<>(1);
    private final KeyList window = new KeyList("w-tinylfu window (LRU)");
    private final KeyList probation = new KeyList("w-tinylfu probation segment");
    private final KeyList protectedSegment = new KeyList("w-tinylfu protected segment");
    private final long windowCapacity;
    private final long protectedCapacity;
    private final FrequencySketch sketch;

    public WTinyLfuPolicy(long capacityEntries, double windowRatio, double protectedRatio, double agingFactor,
                          boolean doorkeeper) {
        super(NAME);
        if (capacityEntries < 1) {
            throw new IllegalArgumentException("capacityEntries must be >= 1, was " + capacityEntries);
        }
        long mainCapacity = (long) Math.floor((1.0 - WINDOW_RATIO.checked(windowRatio)) * capacityEntries);
        this.windowCapacity = Math.max(1, capacityEntries - mainCapacity);
        this.protectedCapacity = (long) Math.floor(SlruPolicy.PROTECTED_RATIO.checked(protectedRatio)
                * (capacityEntries - windowCapacity));
        double factor = LfuPolicy.AGING_FACTOR.checked(agingFactor);
        long sampleSize = factor == 0.0 ? 0 : Math.max(1, (long) Math.ceil(factor * capacityEntries));
        this.sketch = new FrequencySketch(capacityEntries, sampleSize, doorkeeper);
    }

    public long windowCapacity() {
        return windowCapacity;
    }

    public long protectedCapacity() {
        return protectedCapacity;
    }

    /** The filter's estimate for {@code key} (for tests). */
    int frequency(long key) {
        return sketch.frequency(key);
    }

    /** "window", "probation", "protected" or null (for tests). */
    String segmentOf(long key) {
        KeyNode node = nodesByKey.get(key);
        if (node == null) {
            return null;
        }
        return node.list == window ? "window" : node.list == probation ? "probation" : "protected";
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        PolicyLists.addNew(NAME, nodesByKey, key, window);
        sketch.increment(key);
        while (window.size() > windowCapacity) {
            KeyNode candidate = window.oldest();
            window.remove(candidate);
            probation.addNewest(candidate);
        }
    }

    @Override
    public void onAccess(long key) {
        KeyNode node = PolicyLists.resident(NAME, nodesByKey, key, "onAccess");
        sketch.increment(key);
        if (node.list == window) {
            window.moveToNewest(node);
        } else {
            PolicyLists.segmentedHit(node, probation, protectedSegment, protectedCapacity);
        }
    }

    @Override
    public void onRemove(long key) {
        PolicyLists.removeResident(NAME, nodesByKey, key);
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        long mainVictim = PolicyLists.oldestEvictable(probation, protectedSegment, evictable);
        if (window.size() < windowCapacity || mainVictim == NO_VICTIM) {
            return mainVictim != NO_VICTIM ? mainVictim : PolicyLists.oldestEvictable(window, evictable);
        }
        long candidate = PolicyLists.oldestEvictable(window, evictable);
        if (candidate == NO_VICTIM) {
            return mainVictim;
        }
        // TinyLFU's admission: the candidate enters main only if it is strictly more frequent.
        return sketch.frequency(candidate) > sketch.frequency(mainVictim) ? mainVictim : candidate;
    }

    @Override
    public boolean contains(long key) {
        return nodesByKey.get(key) != null;
    }

    @Override
    public int size() {
        return window.size() + probation.size() + protectedSegment.size();
    }

    @Override
    public void checkInvariants() {
        PolicyLists.checkLookup(NAME, nodesByKey, window, probation, protectedSegment);
        if (window.size() > windowCapacity) {
            throw new IllegalStateException(NAME + ": window holds " + window.size() + " keys, more than "
                    + windowCapacity);
        }
        if (protectedSegment.size() > protectedCapacity) {
            throw new IllegalStateException(NAME + ": protected segment holds " + protectedSegment.size()
                    + " keys, more than " + protectedCapacity);
        }
        sketch.checkInvariants(NAME);
    }
}
