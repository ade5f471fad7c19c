package tierlab.model.policy;

/**
 * One key on an intrusive doubly linked {@link KeyList}. The node carries the small per-key state
 * the list-based policies need, so a policy keeps exactly one object per key and moving a key
 * between queues never allocates.
 *
 * <p>{@code newer} points toward the head (the most recently inserted or used end) and
 * {@code older} toward the tail (the eviction end); the names say the direction so that scans
 * read as "walk from the oldest key toward newer ones".
 */
final class KeyNode {

    final long key;

    /** The neighbour closer to the head of {@link #list}; the list's sentinel at the head end. */
    KeyNode newer;

    /** The neighbour closer to the tail of {@link #list}; the list's sentinel at the tail end. */
    KeyNode older;

    /** The list this node is on, or {@code null} while detached; policies use it as "which queue". */
    KeyList list;

    /** S3-FIFO's saturating access counter (0 to {@link S3FifoPolicy#MAX_FREQUENCY}); CLOCK's n-bit counter. */
    int frequency;

    /** SIEVE's visited bit: set by an access, cleared when the hand passes the key. */
    boolean visited;

    /** LIRS: on stack S, whether the key has LIR status (low inter-reference recency). */
    boolean lir;

    KeyNode(long key) {
        this.key = key;
    }
}
