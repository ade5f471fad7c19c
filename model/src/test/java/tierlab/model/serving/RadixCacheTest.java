package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.testkit.BlockChains;

/**
 * The radix tree of {@code sglang}, rule by rule against hand-computed orders. The tree below is built
 * at times 1 to 5: {@code p0 ← p1 ← a2} and {@code p1 ← b2} (two prompts sharing p0 p1), and {@code q0}
 * at the root.
 */
class RadixCacheTest {

    private final List<BlockKey> p = BlockChains.named("p", 2);
    private final List<BlockKey> a = extend(p, "a");
    private final List<BlockKey> b = extend(p, "b");
    private final List<BlockKey> q = BlockChains.named("q", 1);

    private static List<BlockKey> extend(List<BlockKey> prefix, String tail) {
        List<BlockKey> keys = new ArrayList<>(prefix);
        keys.add(BlockKey.fromTraceId(prefix.getLast(), tail.hashCode(), prefix.size()));
        return keys;
    }

    private RadixCache tree() {
        RadixCache tree = new RadixCache();
        RadixCache.Node p0 = tree.insert(a, 1, null, 10, 1);
        RadixCache.Node p1 = tree.insert(a, 2, p0, 11, 2);
        tree.insert(a, 3, p1, 12, 3);
        tree.insert(b, 3, p1, 13, 4);
        tree.insert(q, 1, null, 14, 5);
        tree.checkInvariants(List.of());
        return tree;
    }

    private static List<Long> evictAll(RadixCache tree, List<RadixCache.Node> holders) {
        List<Long> blocks = new ArrayList<>();
        while (tree.hasEvictable()) {
            blocks.add(tree.evictLeastRecentlyUsedLeaf().gpuBlock);
            tree.checkInvariants(holders);
        }
        return blocks;
    }

    /**
     * Unlocked, the leaves go least recently used first: a2 (t3), b2 (t4), q0 (t5); p1 becomes a leaf only
     * when b2, its last child, is gone (its last access t2 then puts it first), then p0.
     */
    @Test
    void onlyLeavesAreEvictedLeastRecentlyUsedFirstAndAParentFollowsItsLastChild() {
        RadixCache tree = tree();
        assertEquals(3, tree.evictableCount(), "a2, b2 and q0 are the leaves");
        assertEquals(5, tree.unlockedCount());
        assertEquals(List.of(12L, 13L, 11L, 10L, 14L), evictAll(tree, List.of()));
        assertEquals(5, tree.evictions());
        assertEquals(0, tree.size());
    }

    /**
     * A request holding b2 locks b2, p1 and p0: only a2 and q0 can go. Once it lets go, b2 (t4), then p1
     * and p0 follow.
     */
    @Test
    void aLockedNodeAndItsAncestorsAreNeverEvicted() {
        RadixCache tree = tree();
        RadixCache.Node b2 = tree.node(b.get(2));
        tree.lock(b2);
        assertEquals(2, tree.unlockedCount(), "a2 and q0");
        assertEquals(List.of(12L, 14L), evictAll(tree, List.of(b2)));
        assertEquals(3, tree.size(), "the locked path stays");
        tree.unlock(b2);
        assertEquals(List.of(13L, 11L, 10L), evictAll(tree, List.of()));
    }

    /** A match refreshes its path: touching a's path at t6 makes b2 (t4) and q0 (t5) go before a2. */
    @Test
    void aMatchRefreshesTheLastAccessOfItsPath() {
        RadixCache tree = tree();
        assertEquals(3, tree.matchPages(a, 3));
        assertEquals(2, tree.matchPages(extend(p, "c"), 3), "c shares p0 p1 only");
        assertEquals(1, tree.matchPages(a, 1), "capped");
        tree.touch(a, 3, 6);
        assertEquals(List.of(13L, 14L, 12L, 11L, 10L), evictAll(tree, List.of()));
    }

    @Test
    void twoLocksOnOnePathCountTwiceAndAnUnlockTooManyIsRefused() {
        RadixCache tree = tree();
        RadixCache.Node a2 = tree.node(a.get(2));
        RadixCache.Node b2 = tree.node(b.get(2));
        tree.lock(a2);
        tree.lock(b2);
        assertEquals(2, tree.node(p.get(1)).lockRef, "p1 is under both");
        tree.checkInvariants(List.of(a2, b2));
        IllegalStateException wrong = assertThrows(IllegalStateException.class, () -> tree.checkInvariants(List.of(a2)));
        assertTrue(wrong.getMessage().startsWith("S3:"), wrong.getMessage());
        tree.unlock(a2);
        tree.unlock(b2);
        assertThrows(IllegalStateException.class, () -> tree.unlock(b2));
        assertEquals(0, tree.node(p.get(0)).lockRef);
    }
}
