package tierlab.model.policy;

/**
 * An intrusive, circular, doubly linked list of {@link KeyNode}s with a sentinel, ordered from the
 * oldest key (tail, the eviction end) to the newest key (head). Every operation is O(1) and none
 * allocates, which is what lets {@code lru} run at tens of millions of operations per second.
 *
 * <pre>
 *   sentinel.newer = oldest ... &lt;-&gt; ... newest = sentinel.older
 *   (ring: sentinel &lt;-&gt; oldest &lt;-&gt; ... &lt;-&gt; newest &lt;-&gt; sentinel)
 * </pre>
 */
final class KeyList {

    private final String name;
    private final KeyNode sentinel = new KeyNode(ReplacementPolicy.NO_VICTIM);
    private int size;

    /** {@code name} only appears in invariant messages, so a broken list says which queue it is. */
    KeyList(String name) {
        this.name = name;
        sentinel.newer = sentinel;
        sentinel.older = sentinel;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The tail (next eviction candidate), or {@code null} when the list is empty. */
    KeyNode oldest() {
        KeyNode node = sentinel.newer;
        return node == sentinel ? null : node;
    }

    /** The head (most recently added), or {@code null} when the list is empty. */
    KeyNode newest() {
        KeyNode node = sentinel.older;
        return node == sentinel ? null : node;
    }

    /** The neighbour one step toward the head, or {@code null} when {@code node} is the newest. */
    KeyNode newerThan(KeyNode node) {
        KeyNode next = node.newer;
        return next == sentinel ? null : next;
    }

    /** Links a detached node at the head. */
    void addNewest(KeyNode node) {
        linkBetween(node, sentinel.older, sentinel);
        node.list = this;
        size++;
    }

    /** Links a detached node at the tail, so it is the next eviction candidate. */
    void addOldest(KeyNode node) {
        linkBetween(node, sentinel, sentinel.newer);
        node.list = this;
        size++;
    }

    /** Puts an unlinked node between two neighbours ({@code older.newer == newer}); the sentinel may be either. */
    private static void linkBetween(KeyNode node, KeyNode older, KeyNode newer) {
        node.older = older;
        node.newer = newer;
        older.newer = node;
        newer.older = node;
    }

    /** Unlinks a node that is on this list and leaves it detached. */
    void remove(KeyNode node) {
        node.older.newer = node.newer;
        node.newer.older = node.older;
        node.newer = null;
        node.older = null;
        node.list = null;
        size--;
    }

    /** Moves a node that is on this list to the head. */
    void moveToNewest(KeyNode node) {
        if (sentinel.older == node) {
            return;
        }
        node.older.newer = node.newer;
        node.newer.older = node.older;
        linkBetween(node, sentinel.older, sentinel);
    }

    /**
     * Walks the whole ring and checks that links are mutual, every node names this list as its own,
     * and the walk length equals {@link #size()}. The walk is bounded so a corrupted ring cannot loop.
     */
    void checkInvariants() {
        int counted = 0;
        KeyNode node = sentinel.newer;
        while (node != sentinel) {
            if (counted > size) {
                throw new IllegalStateException(name + ": ring is longer than its size " + size);
            }
            if (node.list != this) {
                throw new IllegalStateException(name + ": key " + node.key + " is linked here but names another list");
            }
            if (node.newer == null || node.newer.older != node) {
                throw new IllegalStateException(name + ": key " + node.key + " has a broken newer link");
            }
            counted++;
            node = node.newer;
        }
        if (sentinel.older.newer != sentinel) {
            throw new IllegalStateException(name + ": newest node does not link back to the sentinel");
        }
        if (counted != size) {
            throw new IllegalStateException(name + ": walked " + counted + " nodes but size is " + size);
        }
    }
}
