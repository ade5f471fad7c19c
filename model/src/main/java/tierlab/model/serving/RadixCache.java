package tierlab.model.serving;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import tierlab.model.geometry.BlockKey;

/**
 * The GPU prefix cache of the {@code sglang} engine, after SGLang's {@code RadixCache} (docs/engines.md
 * names the release and files): a radix tree over pages, one page being one tierlab block of
 * {@code blockTokens} tokens named by its chained prefix key ({@link BlockKey}). A request's prompt is a
 * path from the root; requests sharing a prefix share its nodes. A node holds the GPU block with its
 * page's KV.
 *
 * <ul>
 *   <li><b>Lock references.</b> A running request locks the deepest node of its cached prefix, which
 *       counts one lock on every node up to the root ({@code inc_lock_ref}); a save copying a node's
 *       block locks it the same way. A locked node is never evicted.</li>
 *   <li><b>Leaves only, least recently used first.</b> Only a node without children and without locks
 *       is evictable; evicting it may make its parent a leaf, which then competes by its own last
 *       access. A match and an insert refresh the last access of every node on the path.</li>
 * </ul>
 *
 * <p>Because a key is chained (it names its whole prefix), the node of a key is found by one map
 * look-up and a node's children are counted, not listed; SGLang splits multi-page nodes where a match
 * ends, and a tree of one page per node is that tree fully split. The key map is only ever looked up,
 * never iterated, and the evictable leaves are ordered by last access then creation, so no hash order
 * decides anything. Time is the caller's {@code nowNs}.
 */
final class RadixCache {

    /** One page of KV in the GPU. */
    static final class Node {
        final long id;
        final BlockKey key;
        /** Null for a page at the root (the first page of a prompt). */
        final Node parent;
        /** Pages from the root to this node, this one included (its page index is depth - 1). */
        final int depth;
        /** A chain in which this node's key sits at {@code depth - 1}: what a save of the node names. */
        final List<BlockKey> chain;
        final long gpuBlock;
        int children;
        int lockRef;
        long lastAccessNs;
        /** GPU prefix hits of this node (SGLang's {@code hit_count}, for the selective write-through). */
        int hitCount;
        /** Its KV has been handed to the store (SGLang's {@code backuped}): a write policy saves it at most once. */
        boolean saved;
        boolean inTree = true;
        /** Whether it is in the evictable set (so that a look-up need not search the set). */
        boolean evictable;

        Node(long id, BlockKey key, Node parent, int depth, List<BlockKey> chain, long gpuBlock, long nowNs) {
            this.id = id;
            this.key = key;
            this.parent = parent;
            this.depth = depth;
            this.chain = chain;
            this.gpuBlock = gpuBlock;
            this.lastAccessNs = nowNs;
        }
    }

    private static final Comparator<Node> LEAST_RECENTLY_USED =
            Comparator.<Node>comparingLong(n -> n.lastAccessNs).thenComparingLong(n -> n.id);

    private final Map<BlockKey, Node> nodes = new HashMap<>();
    /** Exactly the nodes without children and without locks, least recently used first. */
    private final TreeSet<Node> evictable = new TreeSet<>(LEAST_RECENTLY_USED);
    private long nextNodeId;
    private long evictions;
    /** Pages inserted or evicted so far: a prefix match can change only when this does. */
    private long mutations;
    /** Nodes without locks: every one can be evicted, leaves first (a locked node's ancestors are locked too). */
    private int unlocked;

    private void joinEvictable(Node node) {
        if (!node.evictable) {
            node.evictable = true;
            evictable.add(node);
        }
    }

    private void leaveEvictable(Node node) {
        if (node.evictable) {
            node.evictable = false;
            evictable.remove(node);
        }
    }

    /** Pages inserted or evicted so far (matches of a prefix can differ only after this changed). */
    long mutations() {
        return mutations;
    }

    /** The node caching {@code key}, or null. */
    Node node(BlockKey key) {
        return nodes.get(key);
    }

    int size() {
        return nodes.size();
    }

    int evictableCount() {
        return evictable.size();
    }

    /** Pages eviction could give back now, leaves first and their parents after them (SGLang's {@code evictable_size}). */
    int unlockedCount() {
        return unlocked;
    }

    /** Cumulative: nodes evicted (their GPU blocks handed to another use). */
    long evictions() {
        return evictions;
    }

    /** Leading pages of {@code chain} the tree holds, at most {@code maxPages}; touches nothing. */
    int matchPages(List<BlockKey> chain, int maxPages) {
        int pages = 0;
        int limit = Math.min(maxPages, chain.size());
        while (pages < limit && nodes.containsKey(chain.get(pages))) {
            pages++;
        }
        return pages;
    }

    /** Refreshes the last access of the first {@code pages} nodes of {@code chain} (a match or an insert). */
    void touch(List<BlockKey> chain, int pages, long nowNs) {
        for (int p = 0; p < pages; p++) {
            Node node = nodes.get(chain.get(p));
            if (node.lastAccessNs != nowNs) {
                boolean wasEvictable = node.evictable;
                leaveEvictable(node);
                node.lastAccessNs = nowNs;
                if (wasEvictable) {
                    joinEvictable(node);
                }
            }
        }
    }

    /**
     * Adds the page {@code chain[depth - 1]} below {@code parent} (null: at the root) holding its KV in
     * {@code gpuBlock}; the caller checked the key is not cached yet.
     */
    Node insert(List<BlockKey> chain, int depth, Node parent, long gpuBlock, long nowNs) {
        BlockKey key = chain.get(depth - 1);
        if (nodes.containsKey(key)) {
            throw new IllegalStateException("radix: page " + key + " is cached already");
        }
        Node node = new Node(nextNodeId++, key, parent, depth, chain, gpuBlock, nowNs);
        nodes.put(key, node);
        if (parent != null) {
            leaveEvictable(parent);
            parent.children++;
        }
        joinEvictable(node);
        unlocked++;
        mutations++;
        return node;
    }

    /** One more lock on {@code node} and every node above it (null: the root, nothing to lock). */
    void lock(Node node) {
        for (Node n = node; n != null; n = n.parent) {
            if (n.lockRef++ == 0) {
                leaveEvictable(n);
                unlocked--;
            }
        }
    }

    /** Takes back one lock of {@link #lock}. */
    void unlock(Node node) {
        for (Node n = node; n != null; n = n.parent) {
            if (n.lockRef <= 0) {
                throw new IllegalStateException("radix: unlock of page " + n.key + " whose lock count is " + n.lockRef);
            }
            if (--n.lockRef == 0) {
                unlocked++;
                if (n.children == 0) {
                    joinEvictable(n);
                }
            }
        }
    }

    /** Whether a leaf can be evicted now. */
    boolean hasEvictable() {
        return !evictable.isEmpty();
    }

    /**
     * Evicts the least recently used unlocked leaf: it leaves the tree (the caller frees or saves its
     * block), and its parent becomes a leaf when it was the last child.
     */
    Node evictLeastRecentlyUsedLeaf() {
        Node victim = evictable.pollFirst();
        if (victim == null) {
            throw new IllegalStateException("radix: nothing to evict");
        }
        victim.evictable = false;
        mutations++;
        if (victim.lockRef != 0 || victim.children != 0) {
            throw new IllegalStateException("S3: page " + victim.key + " evicted with " + victim.lockRef + " locks and "
                    + victim.children + " children");
        }
        nodes.remove(victim.key);
        victim.inTree = false;
        unlocked--;
        evictions++;
        Node parent = victim.parent;
        if (parent != null && --parent.children == 0 && parent.lockRef == 0) {
            joinEvictable(parent);
        }
        return victim;
    }

    /** The nodes in the tree, for invariants and tests (order: by creation). */
    List<Node> nodesByCreation() {
        List<Node> all = new ArrayList<>(nodes.values());
        all.sort(Comparator.comparingLong(n -> n.id));
        return all;
    }

    /**
     * S3 (the tree's part of the engine's rule): every node's parent is in the tree and its child count is
     * right; every node's lock count is exactly the locks held at it or below it ({@code lockHolders}: one
     * entry per lock taken); the evictable set is exactly the unlocked leaves. Throws IllegalStateException.
     */
    void checkInvariants(List<Node> lockHolders) {
        Map<Node, Integer> childCount = new HashMap<>();
        Map<Node, Integer> expectedLocks = new HashMap<>();
        for (Node holder : lockHolders) {
            for (Node n = holder; n != null; n = n.parent) {
                if (!n.inTree || nodes.get(n.key) != n) {
                    throw new IllegalStateException("S3: a lock is held on page " + n.key + ", which is not in the tree");
                }
                expectedLocks.merge(n, 1, Integer::sum);
            }
        }
        int evictableNodes = 0;
        int unlockedNodes = 0;
        // In creation order, so that the first broken rule reported is the same in every run.
        List<Node> all = nodesByCreation();
        for (Node node : all) {
            unlockedNodes += node.lockRef == 0 ? 1 : 0;
            if (node.parent != null) {
                if (!node.parent.inTree || nodes.get(node.parent.key) != node.parent) {
                    throw new IllegalStateException("S3: page " + node.key + " has a parent outside the tree");
                }
                childCount.merge(node.parent, 1, Integer::sum);
            }
            int locks = expectedLocks.getOrDefault(node, 0);
            if (node.lockRef != locks) {
                throw new IllegalStateException("S3: page " + node.key + " counts " + node.lockRef + " locks but " + locks
                        + " are held at or below it");
            }
        }
        for (Node node : all) {
            int children = childCount.getOrDefault(node, 0);
            if (node.children != children) {
                throw new IllegalStateException("S3: page " + node.key + " counts " + node.children + " children but has "
                        + children);
            }
            boolean shouldBeEvictable = children == 0 && node.lockRef == 0;
            if (shouldBeEvictable != evictable.contains(node) || node.evictable != evictable.contains(node)) {
                throw new IllegalStateException("S3: page " + node.key + " (" + children + " children, " + node.lockRef
                        + " locks) is " + (shouldBeEvictable ? "not " : "") + "in the evictable set");
            }
            evictableNodes += shouldBeEvictable ? 1 : 0;
        }
        if (unlockedNodes != unlocked) {
            throw new IllegalStateException("S3: " + unlockedNodes + " pages are unlocked but the count says " + unlocked);
        }
        if (evictableNodes != evictable.size()) {
            throw new IllegalStateException("S3: the evictable set holds " + evictable.size() + " nodes but "
                    + evictableNodes + " unlocked leaves are in the tree");
        }
    }
}
