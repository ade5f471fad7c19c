package tierlab.model.policy;

import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * SIEVE (Zhang et al., NSDI'24): one FIFO queue, a visited bit per key, and a hand that sweeps from
 * the tail (oldest) toward the head (newest) and wraps back to the tail.
 *
 * <p>New keys enter at the head unvisited; an access only sets the visited bit (keys never move,
 * which is what makes SIEVE cheap). {@link #selectVictim} starts at the hand, clears the visited bit
 * of each evictable key it passes, and stops at the first evictable key that was not visited; the
 * hand stays on that key, and when the store removes it the hand moves to its newer neighbour, so
 * the sweep continues where it stopped. Keys the store cannot evict are passed without clearing
 * their bit: they were not given a chance to be evicted, so they keep their second chance.
 *
 * <p>The search is bounded by two sweeps: the first clears every evictable key's bit, so the second
 * must find a victim if any evictable key exists. A first sweep that meets no evictable key at all
 * ends the search at once, and then nothing has changed.
 */
public final class SievePolicy extends NamedPolicy {

    public static final String NAME = "sieve";

    private final OffsetTable<KeyNode> nodesByKey = new OffsetTable<>(1);
    private final KeyList queue = new KeyList("sieve queue");
    /** Where the next search starts; {@code null} means at the tail. */
    private KeyNode hand;

    public SievePolicy() {
        super(NAME);
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        KeyNode node = new KeyNode(key);
        if (nodesByKey.putIfAbsent(key, node) != null) {
            throw PolicyPreconditions.alreadyResident(NAME, key);
        }
        queue.addNewest(node);
    }

    @Override
    public void onAccess(long key) {
        KeyNode node = nodesByKey.get(key);
        if (node == null) {
            throw PolicyPreconditions.notResident(NAME, "onAccess", key);
        }
        node.visited = true;
    }

    @Override
    public void onRemove(long key) {
        KeyNode node = nodesByKey.remove(key);
        if (node == null) {
            throw PolicyPreconditions.notResident(NAME, "onRemove", key);
        }
        if (node == hand) {
            hand = queue.newerThan(node);
        }
        queue.remove(node);
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        int size = queue.size();
        if (size == 0) {
            return NO_VICTIM;
        }
        KeyNode node = hand != null ? hand : queue.oldest();
        boolean sawEvictable = false;
        long maxSteps = 2L * size;
        for (long step = 0; step < maxSteps; step++) {
            if (step == size && !sawEvictable) {
                break;
            }
            if (evictable.test(node.key)) {
                sawEvictable = true;
                if (!node.visited) {
                    hand = node;
                    return node.key;
                }
                node.visited = false;
            }
            KeyNode newer = queue.newerThan(node);
            node = newer != null ? newer : queue.oldest();
        }
        return NO_VICTIM;
    }

    @Override
    public boolean contains(long key) {
        return nodesByKey.get(key) != null;
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public void checkInvariants() {
        queue.checkInvariants();
        if (nodesByKey.size() != queue.size()) {
            throw new IllegalStateException(NAME + ": lookup map holds " + nodesByKey.size()
                    + " keys but the queue holds " + queue.size());
        }
        for (KeyNode node = queue.oldest(); node != null; node = queue.newerThan(node)) {
            if (nodesByKey.get(node.key) != node) {
                throw new IllegalStateException(NAME + ": key " + node.key
                        + " is on the queue but the lookup map points elsewhere");
            }
        }
        if (hand != null && (hand.list != queue || nodesByKey.get(hand.key) != hand)) {
            throw new IllegalStateException(NAME + ": the hand points at key " + hand.key
                    + " which is not on the queue");
        }
    }
}
