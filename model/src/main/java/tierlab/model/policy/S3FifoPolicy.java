package tierlab.model.policy;

import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * S3-FIFO (Yang et al., SOSP'23): three FIFO queues, which filter out keys that are used only once
 * ("one-hit wonders") before they can push frequently used keys out.
 *
 * <ul>
 *   <li><b>small</b>: every new key enters here. Its target size is {@code smallRatio} [0.1] of the
 *       capacity, rounded down, at least one entry.</li>
 *   <li><b>main</b>: keys that were used again while in small, and keys the ghost queue remembers.</li>
 *   <li><b>ghost</b>: the keys (no data) most recently removed from small, at most
 *       {@code ghostRatio} [1.0] × capacity of them (rounded down), oldest forgotten first. A new
 *       insert of a ghost key goes straight to main.</li>
 * </ul>
 * Each resident key has a 2-bit frequency (0 to 3) that an access increments.
 *
 * <p>The defaults are tierlab's original, fixed behaviour. The paper's defaults differ in one knob:
 * its ghost queue holds as many entries as main (ghostRatio = 1 − smallRatio = 0.9); its small
 * queue is 10% of the cache and a key accessed at least once in small moves to main
 * (moveToMainThreshold = 1), as here.
 *
 * <p>{@link #selectVictim} evicts from small when small holds at least its target size (or main is
 * empty), otherwise from main:
 * <ul>
 *   <li>small, from its oldest key: a key with frequency &gt;= {@code moveToMainThreshold} [1] moves
 *       to main (keeping its frequency) instead of being evicted; the first key below it is the
 *       victim.</li>
 *   <li>main, from its oldest key, like CLOCK: a key with frequency &gt; 0 is decremented and
 *       reinserted at the head; the first key with frequency 0 is the victim.</li>
 * </ul>
 * Keys the store cannot evict are skipped by reinserting them at the head of their queue (without
 * touching their frequency). Both scans are bounded, so a search always terminates: small is walked
 * once (|small| steps); main at most four times (|main| × (MAX_FREQUENCY + 1) steps, enough for the
 * frequency of every evictable key to reach 0), stopping after the first pass if that pass saw no
 * evictable key at all. If the preferred queue has no victim the other is searched, and main once
 * more after a search of small that promoted keys, so {@link #NO_VICTIM} means nothing is
 * evictable. A search that finds nothing rotates each queue by exactly one full turn, which leaves
 * its order as it was.
 *
 * <p>The victim is not removed here: when the store reports {@link #onRemove}, a key from small
 * enters the ghost queue and a key from main is forgotten.
 */
public final class S3FifoPolicy extends NamedPolicy {

    public static final String NAME = "s3-fifo";

    /** The largest value of the 2-bit frequency counter. */
    static final int MAX_FREQUENCY = 3;

    /** The small queue's target share of the capacity [0.1, the paper's]. */
    public static final PolicyParameter<Double> SMALL_RATIO = PolicyParameter.between("smallRatio", 0.1, 0.0, 1.0,
            "s3-fifo: the small queue's target share of the capacity (rounded down, at least 1 entry)");
    /** The ghost queue's size as a share of the capacity [1.0; the paper's is 0.9, the main queue's size]. */
    public static final PolicyParameter<Double> GHOST_RATIO = PolicyParameter.between("ghostRatio", 1.0, 0.0, 16.0,
            "s3-fifo: ghost entries remembered, as a share of the capacity (the paper: 0.9, main's size)");
    /** Accesses a key needs while in small to move to main instead of being evicted [1, the paper's]. */
    public static final PolicyParameter<Integer> MOVE_TO_MAIN_THRESHOLD = new PolicyParameter<>("moveToMainThreshold",
            Integer.class, 1, "s3-fifo: accesses in the small queue that move a key to main instead of out",
            "must be between 1 and " + MAX_FREQUENCY, v -> v >= 1 && v <= MAX_FREQUENCY);

    private final long smallTargetSize;
    private final long ghostCapacity;
    private final int moveToMainThreshold;
    /** Every key the policy knows, resident or ghost; {@link KeyNode#list} says which queue. */
    private final OffsetTable<KeyNode> nodesByKey = new OffsetTable<>(1);
    private final KeyList small = new KeyList("s3-fifo small queue");
    private final KeyList main = new KeyList("s3-fifo main queue");
    private final KeyList ghost = new KeyList("s3-fifo ghost queue");

    /** S3-FIFO at the default knobs (tierlab's original behaviour). */
    public S3FifoPolicy(long capacityEntries) {
        this(capacityEntries, SMALL_RATIO.defaultValue(), GHOST_RATIO.defaultValue(),
                MOVE_TO_MAIN_THRESHOLD.defaultValue());
    }

    public S3FifoPolicy(long capacityEntries, double smallRatio, double ghostRatio, int moveToMainThreshold) {
        super(NAME);
        if (capacityEntries < 1) {
            throw new IllegalArgumentException("capacityEntries must be >= 1, was " + capacityEntries);
        }
        this.smallTargetSize = Math.max(1, shareOf(SMALL_RATIO.checked(smallRatio), capacityEntries));
        this.ghostCapacity = shareOf(GHOST_RATIO.checked(ghostRatio), capacityEntries);
        this.moveToMainThreshold = MOVE_TO_MAIN_THRESHOLD.checked(moveToMainThreshold);
    }

    /**
     * ⌊share × entries⌋. For the default 0.1 this equals the integer division entries / 10 that
     * tierlab used before the knob existed: the double 0.1 is slightly above one tenth, so the
     * product never rounds below a whole tenth (S3FifoPolicyTest checks it over a range).
     */
    static long shareOf(double share, long entries) {
        return (long) Math.floor(share * entries);
    }

    /** The ghost queue's capacity in entries. */
    public long ghostCapacity() {
        return ghostCapacity;
    }

    /** The small queue's target size: smallRatio of the capacity, rounded down, at least 1. */
    public long smallTargetSize() {
        return smallTargetSize;
    }

    /** Whether the key is resident in the small queue (for tests and traces). */
    boolean isInSmallQueue(long key) {
        KeyNode node = nodesByKey.get(key);
        return node != null && node.list == small;
    }

    /** Whether the key is resident in the main queue (for tests and traces). */
    boolean isInMainQueue(long key) {
        KeyNode node = nodesByKey.get(key);
        return node != null && node.list == main;
    }

    /** Whether the key is remembered by the ghost queue (for tests and traces). */
    boolean isGhost(long key) {
        KeyNode node = nodesByKey.get(key);
        return node != null && node.list == ghost;
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        KeyNode node = PolicyLists.addIfUnknown(nodesByKey, key, small);
        if (node == null) {
            return;
        }
        if (node.list == ghost) {
            ghost.remove(node);
            node.frequency = 0;
            main.addNewest(node);
        } else {
            throw PolicyPreconditions.alreadyResident(NAME, key);
        }
    }

    @Override
    public void onAccess(long key) {
        KeyNode node = residentNode(key, "onAccess");
        if (node.frequency < MAX_FREQUENCY) {
            node.frequency++;
        }
    }

    @Override
    public void onRemove(long key) {
        KeyNode node = residentNode(key, "onRemove");
        if (node.list == small) {
            small.remove(node);
            node.frequency = 0;
            PolicyLists.toGhost(node, ghost, ghostCapacity, nodesByKey);
        } else {
            main.remove(node);
            nodesByKey.remove(key);
        }
    }

    private KeyNode residentNode(long key, String operation) {
        return PolicyLists.resident(NAME, nodesByKey, key, operation, ghost, null);
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        if (small.size() >= smallTargetSize || main.isEmpty()) {
            long victim = searchSmall(evictable);
            return victim != NO_VICTIM ? victim : searchMain(evictable);
        }
        long victim = searchMain(evictable);
        if (victim != NO_VICTIM) {
            return victim;
        }
        victim = searchSmall(evictable);
        // Keys that searchSmall promoted are evictable and now in main, so main gets one more look.
        return victim != NO_VICTIM ? victim : searchMain(evictable);
    }

    /** One pass over small from its oldest key: promote used keys, skip held keys, stop at the victim. */
    private long searchSmall(LongPredicate evictable) {
        int steps = small.size();
        for (int step = 0; step < steps; step++) {
            KeyNode node = small.oldest();
            if (!evictable.test(node.key)) {
                small.moveToNewest(node);
            } else if (node.frequency >= moveToMainThreshold) {
                small.remove(node);
                main.addNewest(node);
            } else {
                return node.key;
            }
        }
        return NO_VICTIM;
    }

    /** CLOCK over main from its oldest key, bounded as described in the class comment. */
    private long searchMain(LongPredicate evictable) {
        int passSteps = main.size();
        long maxSteps = (long) passSteps * (MAX_FREQUENCY + 1);
        boolean sawEvictable = false;
        for (long step = 0; step < maxSteps; step++) {
            if (step == passSteps && !sawEvictable) {
                break;
            }
            KeyNode node = main.oldest();
            if (!evictable.test(node.key)) {
                main.moveToNewest(node);
                continue;
            }
            sawEvictable = true;
            if (node.frequency > 0) {
                node.frequency--;
                main.moveToNewest(node);
            } else {
                return node.key;
            }
        }
        return NO_VICTIM;
    }

    @Override
    public boolean contains(long key) {
        KeyNode node = nodesByKey.get(key);
        return node != null && node.list != ghost;
    }

    @Override
    public int size() {
        return small.size() + main.size();
    }

    @Override
    public void checkInvariants() {
        for (KeyList list : new KeyList[] {small, main, ghost}) {
            list.checkInvariants();
            for (KeyNode node = list.oldest(); node != null; node = list.newerThan(node)) {
                if (nodesByKey.get(node.key) != node) {
                    throw new IllegalStateException(NAME + ": key " + node.key
                            + " is on a queue but the lookup map points elsewhere");
                }
                if (node.frequency < 0 || node.frequency > MAX_FREQUENCY) {
                    throw new IllegalStateException(NAME + ": key " + node.key + " has frequency "
                            + node.frequency + ", outside [0, " + MAX_FREQUENCY + "]");
                }
            }
        }
        long listed = (long) small.size() + main.size() + ghost.size();
        if (nodesByKey.size() != listed) {
            throw new IllegalStateException(NAME + ": lookup map holds " + nodesByKey.size()
                    + " keys but the three queues hold " + listed);
        }
        if (ghost.size() > ghostCapacity) {
            throw new IllegalStateException(NAME + ": ghost queue holds " + ghost.size()
                    + " keys, more than its capacity " + ghostCapacity);
        }
    }
}
