package tierlab.model.policy;

import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * CLOCK with n-bit counters (Corbató's second-chance CLOCK, 1968; the n-bit generalisation as in
 * libCacheSim's {@code Clock.c}). Keys sit on a ring in insertion order; each has a saturating
 * counter of {@code bits} bits.
 *
 * <ul>
 *   <li>A new key enters with counter 0 at the newest end (just behind the hand).</li>
 *   <li>A hit raises the counter by one, up to {@code 2^bits − 1}; the key does not move.</li>
 *   <li>The hand starts at the oldest key: a key with a counter above 0 has it lowered by one and is
 *       passed (moved to the newest end, which on a ring is the hand moving on); the first key with
 *       counter 0 is the victim.</li>
 * </ul>
 * {@code bits} 1 is classic CLOCK (second chance). Keys the store cannot evict are passed without
 * lowering their counter, as SIEVE passes them: they were not offered for eviction. A search that
 * meets no evictable key at all ends after one lap and changes nothing; otherwise it ends within
 * {@code 2^bits} laps, since every lap lowers every evictable counter.
 */
public final class ClockPolicy extends NamedPolicy {

    public static final String NAME = "clock";

    /** Counter width [1: classic CLOCK]. */
    public static final PolicyParameter<Integer> BITS = new PolicyParameter<>("bits", Integer.class, 1,
            "clock: bits per key's reference counter (1: classic second chance; a hit adds 1 up to 2^bits - 1)",
            "must be between 1 and 16", value -> value >= 1 && value <= 16);

    private final OffsetTable<KeyNode> nodesByKey = new OffsetTable<>(1);
    /** Oldest = where the hand stands; newest = just behind it. */
    private final KeyList ring = new KeyList("clock ring");
    private final int maxCounter;

    public ClockPolicy(int bits) {
        super(NAME);
        this.maxCounter = (1 << BITS.checked(bits)) - 1;
    }

    /** The largest counter value, {@code 2^bits − 1}. */
    public int maxCounter() {
        return maxCounter;
    }

    /** A resident key's counter (for tests). */
    int counter(long key) {
        return PolicyLists.resident(NAME, nodesByKey, key, "counter").frequency;
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        PolicyLists.addNew(NAME, nodesByKey, key, ring);
    }

    @Override
    public void onAccess(long key) {
        KeyNode node = PolicyLists.resident(NAME, nodesByKey, key, "onAccess");
        if (node.frequency < maxCounter) {
            node.frequency++;
        }
    }

    @Override
    public void onRemove(long key) {
        PolicyLists.removeResident(NAME, nodesByKey, key);
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        int size = ring.size();
        if (size == 0) {
            return NO_VICTIM;
        }
        KeyNode node = ring.oldest();
        boolean sawEvictable = false;
        long maxSteps = (long) (maxCounter + 2) * size;
        for (long step = 0; step < maxSteps; step++) {
            if (step == size && !sawEvictable) {
                break;
            }
            KeyNode newer = ring.newerThan(node);
            if (evictable.test(node.key)) {
                sawEvictable = true;
                if (node.frequency == 0) {
                    return node.key;
                }
                node.frequency--;
                ring.moveToNewest(node);
            }
            node = newer != null ? newer : ring.oldest();
        }
        return NO_VICTIM;
    }

    @Override
    public boolean contains(long key) {
        return nodesByKey.get(key) != null;
    }

    @Override
    public int size() {
        return ring.size();
    }

    @Override
    public void checkInvariants() {
        PolicyLists.checkLookup(NAME, nodesByKey, ring);
        for (KeyNode node = ring.oldest(); node != null; node = ring.newerThan(node)) {
            if (node.frequency < 0 || node.frequency > maxCounter) {
                throw new IllegalStateException(NAME + ": key " + node.key + " has counter " + node.frequency
                        + " outside 0.." + maxCounter);
            }
        }
    }
}
