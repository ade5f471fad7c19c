package tierlab.model.policy;

import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * LIRS (Jiang and Zhang, "LIRS: An Efficient Low Inter-reference Recency Set Replacement Policy to
 * Improve Buffer Cache Performance", SIGMETRICS'02), section 3.
 *
 * <p>Keys with a short distance between their last two uses (low inter-reference recency, LIR)
 * hold {@code Llirs} = capacity − {@code Lhirs} entries and are never evicted; the other resident
 * keys (HIR) share the remaining {@code Lhirs} = max(1, ⌊{@code hirRatio} × capacity⌋) entries.
 * <ul>
 *   <li><b>Stack S</b>: an LRU of LIR keys, resident HIR keys and non-resident HIR keys (evicted,
 *       metadata only) in recency order. Its bottom is always a LIR key: "stack pruning" removes the
 *       HIR entries below the bottom-most LIR key (a non-resident one is forgotten).</li>
 *   <li><b>Queue Q</b>: the resident HIR keys in FIFO order; its front is the victim.</li>
 * </ul>
 * A hit on a LIR key moves it to the top of S (pruning if it was the bottom). A hit on a resident
 * HIR key that is in S makes it LIR (out of Q) and the bottom LIR key HIR (to the end of Q), then
 * prunes; one not in S goes on top of S and to the end of Q. A miss evicts Q's front (it stays in S
 * as non-resident if it is there); a missed key found in S as non-resident becomes LIR and the
 * bottom LIR key moves to Q as above; any other missed key becomes a resident HIR key (top of S, end
 * of Q), except while fewer than {@code Llirs} keys are LIR, when it is LIR.
 *
 * <p>Non-resident entries are bounded as libCacheSim bounds them: S holds at most
 * ⌊{@code stackRatio} × capacity⌋ entries; beyond that, the non-resident entries are forgotten in
 * the order they lost residency. When no key of Q may be evicted (the store holds them all) the
 * victim is the bottom-most evictable LIR key; the paper has no such case.
 */
public final class LirsPolicy extends NamedPolicy {

    public static final String NAME = "lirs";

    /** Lhirs, the resident HIR keys' share of the capacity [0.01, the paper's 1%]. */
    public static final PolicyParameter<Double> HIR_RATIO = PolicyParameter.between("hirRatio", 0.01, 0.0, 1.0,
            "lirs: Lhirs, the resident HIR keys' share of the capacity (rounded down, at least 1; the paper: 0.01)");
    /** Stack S's bound as a share of the capacity [2.0, libCacheSim's]. */
    public static final PolicyParameter<Double> STACK_RATIO = PolicyParameter.between("stackRatio", 2.0, 1.0, 1e3,
            "lirs: stack S holds at most stackRatio x capacity entries; beyond, non-resident entries are forgotten");

    /** Each key's entry on S (LIR, resident HIR or non-resident HIR). */
    private final OffsetTable<KeyNode> stackNodes = new OffsetTable<>(1);
    /** Each HIR key's second entry: on Q when resident, on the non-resident list when not. */
    private final OffsetTable<KeyNode> hirNodes = new OffsetTable<>(1);
    private final KeyList stack = new KeyList("lirs stack S (oldest = bottom)");
    private final KeyList queue = new KeyList("lirs queue Q (resident HIR keys)");
    private final KeyList nonResident = new KeyList("lirs non-resident HIR keys (in the order they were evicted)");
    private final long lirLimit;
    private final long hirLimit;
    private final long stackLimit;
    private long lirCount;

    public LirsPolicy(long capacityEntries, double hirRatio, double stackRatio) {
        super(NAME);
        if (capacityEntries < 1) {
            throw new IllegalArgumentException("capacityEntries must be >= 1, was " + capacityEntries);
        }
        this.hirLimit = Math.min(capacityEntries,
                Math.max(1, (long) Math.floor(HIR_RATIO.checked(hirRatio) * capacityEntries)));
        this.lirLimit = capacityEntries - hirLimit;
        this.stackLimit = (long) Math.floor(STACK_RATIO.checked(stackRatio) * capacityEntries);
    }

    public long lirLimit() {
        return lirLimit;
    }

    public long hirLimit() {
        return hirLimit;
    }

    /** "LIR", "HIR" (resident), "non-resident" (in S only) or null (for tests). */
    String statusOf(long key) {
        KeyNode hir = hirNodes.get(key);
        if (hir != null) {
            return hir.list == queue ? "HIR" : "non-resident";
        }
        return stackNodes.get(key) != null ? "LIR" : null;
    }

    /** Whether the key has an entry on S (for tests). */
    boolean inStack(long key) {
        return stackNodes.get(key) != null;
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        KeyNode hir = hirNodes.get(key);
        if (hir != null && hir.list == queue || hir == null && stackNodes.get(key) != null) {
            throw PolicyPreconditions.alreadyResident(NAME, key);
        }
        if (hir != null) {
            // A non-resident key still on S came back within its recency: LIR.
            nonResident.remove(hir);
            hirNodes.remove(key);
            KeyNode stacked = stackNodes.get(key);
            stack.moveToNewest(stacked);
            makeLir(stacked);
        } else if (lirCount < lirLimit) {
            makeLir(push(key));
        } else {
            push(key);
            enqueue(key);
        }
        prune();
        limitStack();
    }

    @Override
    public void onAccess(long key) {
        KeyNode stacked = stackNodes.get(key);
        KeyNode hir = hirNodes.get(key);
        if (hir != null && hir.list != queue || hir == null && stacked == null) {
            throw PolicyPreconditions.notResident(NAME, "onAccess", key);
        }
        if (hir == null) {
            stack.moveToNewest(stacked);
        } else if (stacked != null) {
            queue.remove(hir);
            hirNodes.remove(key);
            stack.moveToNewest(stacked);
            makeLir(stacked);
        } else {
            push(key);
            queue.moveToNewest(hir);
        }
        prune();
        limitStack();
    }

    @Override
    public void onRemove(long key) {
        KeyNode stacked = stackNodes.get(key);
        KeyNode hir = hirNodes.get(key);
        if (hir != null && hir.list != queue || hir == null && stacked == null) {
            throw PolicyPreconditions.notResident(NAME, "onRemove", key);
        }
        if (hir == null) {
            stack.remove(stacked);
            stackNodes.remove(key);
            lirCount--;
            prune();
            return;
        }
        queue.remove(hir);
        if (stacked != null) {
            nonResident.addNewest(hir);
            limitStack();
        } else {
            hirNodes.remove(key);
        }
    }

    /** A new entry on top of S. */
    private KeyNode push(long key) {
        KeyNode node = new KeyNode(key);
        stackNodes.putIfAbsent(key, node);
        stack.addNewest(node);
        return node;
    }

    /** A resident HIR key at the end of Q. */
    private void enqueue(long key) {
        KeyNode node = new KeyNode(key);
        hirNodes.putIfAbsent(key, node);
        queue.addNewest(node);
    }

    /** Gives a stacked key LIR status; if that makes one LIR key too many, S's bottom LIR key becomes HIR. */
    private void makeLir(KeyNode stacked) {
        stacked.lir = true;
        lirCount++;
        while (lirCount > lirLimit) {
            KeyNode bottom = stack.oldest();
            stack.remove(bottom);
            stackNodes.remove(bottom.key);
            bottom.lir = false;
            lirCount--;
            enqueue(bottom.key);
            prune();
        }
    }

    /** Stack pruning: removes HIR entries from S's bottom until a LIR key is there. */
    private void prune() {
        for (KeyNode bottom = stack.oldest(); bottom != null && !bottom.lir; bottom = stack.oldest()) {
            stack.remove(bottom);
            stackNodes.remove(bottom.key);
            KeyNode hir = hirNodes.get(bottom.key);
            if (hir.list == nonResident) {
                nonResident.remove(hir);
                hirNodes.remove(bottom.key);
            }
        }
    }

    /** Forgets the oldest non-resident entries while S is over its bound. */
    private void limitStack() {
        while (stack.size() > stackLimit && !nonResident.isEmpty()) {
            KeyNode forgotten = nonResident.oldest();
            nonResident.remove(forgotten);
            hirNodes.remove(forgotten.key);
            KeyNode stacked = stackNodes.remove(forgotten.key);
            stack.remove(stacked);
        }
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        long victim = PolicyLists.oldestEvictable(queue, evictable);
        if (victim != NO_VICTIM) {
            return victim;
        }
        for (KeyNode node = stack.oldest(); node != null; node = stack.newerThan(node)) {
            if (node.lir && evictable.test(node.key)) {
                return node.key;
            }
        }
        return NO_VICTIM;
    }

    @Override
    public boolean contains(long key) {
        KeyNode hir = hirNodes.get(key);
        return hir != null ? hir.list == queue : stackNodes.get(key) != null;
    }

    @Override
    public int size() {
        return (int) lirCount + queue.size();
    }

    @Override
    public void checkInvariants() {
        PolicyLists.checkLookup(NAME, stackNodes, stack);
        PolicyLists.checkLookup(NAME, hirNodes, queue, nonResident);
        long lirs = 0;
        for (KeyNode node = stack.oldest(); node != null; node = stack.newerThan(node)) {
            boolean hir = hirNodes.get(node.key) != null;
            if (node.lir == hir) {
                throw new IllegalStateException(NAME + ": key " + node.key + " on S is " + (node.lir ? "LIR" : "HIR")
                        + " but " + (hir ? "has" : "lacks") + " an HIR entry");
            }
            lirs += node.lir ? 1 : 0;
        }
        for (KeyNode node = nonResident.oldest(); node != null; node = nonResident.newerThan(node)) {
            if (stackNodes.get(node.key) == null) {
                throw new IllegalStateException(NAME + ": non-resident key " + node.key + " is not on S");
            }
        }
        KeyNode bottom = stack.oldest();
        if (lirs != lirCount || lirCount > lirLimit || (bottom != null && !bottom.lir)
                || (stack.size() > stackLimit && !nonResident.isEmpty())) {
            throw new IllegalStateException(NAME + ": " + lirs + " LIR keys on S (count " + lirCount + ", limit "
                    + lirLimit + "), S holds " + stack.size() + " (bound " + stackLimit + "), bottom "
                    + (bottom == null ? "none" : bottom.key + (bottom.lir ? " LIR" : " HIR")));
        }
    }
}
