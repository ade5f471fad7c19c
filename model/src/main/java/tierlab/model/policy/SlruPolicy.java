package tierlab.model.policy;

import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * Segmented LRU (Karedla, Love and Wherry, IEEE Computer 1994): two LRU segments.
 *
 * <ul>
 *   <li><b>probation</b>: every new key enters at its most-recent end.</li>
 *   <li><b>protected</b>: a hit on a probation key moves it to the most-recent end of protected; a hit
 *       on a protected key moves it to the most-recent end there. Protected holds at most
 *       ⌊{@code protectedRatio} [0.8] × capacity⌋ keys: when a promotion makes it larger, its least
 *       recent key is demoted to the most-recent end of probation (it gets a second chance there
 *       instead of leaving the cache).</li>
 * </ul>
 * The victim is probation's least recent evictable key; only when probation has none is protected's
 * least recent evictable key taken. So a key used once can never push out a key used twice while
 * probation holds anything, which is what makes SLRU resist scans.
 */
public final class SlruPolicy extends NamedPolicy {

    public static final String NAME = "slru";

    /** Protected segment's share of the capacity [0.8, Caffeine's main-space split]. */
    public static final PolicyParameter<Double> PROTECTED_RATIO = PolicyParameter.between("protectedRatio", 0.8, 0.0,
            1.0, "slru, w-tinylfu: the protected segment's share of the (main) capacity, rounded down");

    private final OffsetTable<KeyNode> nodesByKey = new OffsetTable<>(1);
    private final KeyList probation = new KeyList("slru probation segment");
    private final KeyList protectedSegment = new KeyList("slru protected segment");
    private final long protectedCapacity;

    public SlruPolicy(long capacityEntries, double protectedRatio) {
        super(NAME);
        if (capacityEntries < 1) {
            throw new IllegalArgumentException("capacityEntries must be >= 1, was " + capacityEntries);
        }
        this.protectedCapacity = (long) Math.floor(PROTECTED_RATIO.checked(protectedRatio) * capacityEntries);
    }

    /** The most keys the protected segment holds. */
    public long protectedCapacity() {
        return protectedCapacity;
    }

    /** Whether the key is resident in the protected segment (for tests). */
    boolean isProtected(long key) {
        KeyNode node = nodesByKey.get(key);
        return node != null && node.list == protectedSegment;
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        PolicyLists.addNew(NAME, nodesByKey, key, probation);
    }

    @Override
    public void onAccess(long key) {
        PolicyLists.segmentedHit(PolicyLists.resident(NAME, nodesByKey, key, "onAccess"),
                probation, protectedSegment, protectedCapacity);
    }

    @Override
    public void onRemove(long key) {
        PolicyLists.removeResident(NAME, nodesByKey, key);
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        return PolicyLists.oldestEvictable(probation, protectedSegment, evictable);
    }

    @Override
    public boolean contains(long key) {
        return nodesByKey.get(key) != null;
    }

    @Override
    public int size() {
        return probation.size() + protectedSegment.size();
    }

    @Override
    public void checkInvariants() {
        PolicyLists.checkLookup(NAME, nodesByKey, probation, protectedSegment);
        if (protectedSegment.size() > protectedCapacity) {
            throw new IllegalStateException(NAME + ": protected segment holds " + protectedSegment.size()
                    + " keys, more than its capacity " + protectedCapacity);
        }
    }
}
