package tierlab.model.policy;

import java.util.function.LongPredicate;

/**
 * An L1 replacement policy over entries named by a {@code long} key (the store uses the entry's
 * L2 byte offset, the cache replay uses the trace's block id).
 *
 * <p>The policy only orders keys; it never owns memory. The store tells it what happened
 * ({@link #onInsert}, {@link #onAccess}, {@link #onRemove}) and asks it for a victim with
 * {@link #selectVictim}; the store then removes the victim itself and reports that through
 * {@link #onRemove}. Keys the store cannot evict right now (a slice held by a lease, a borrow, a
 * pending write) are filtered out by the predicate passed to {@code selectVictim}, so a policy
 * never evicts a held slice.
 *
 * <p>Implementations are deterministic: no clock, no randomness, no hash iteration order.
 */
public interface ReplacementPolicy {

    /** Returned by {@link #selectVictim} when no key passes the predicate. */
    long NO_VICTIM = Long.MIN_VALUE;

    /** The stable name the policy is registered under ({@code lru}, {@code bip}, ...). */
    String name();

    /**
     * A new key becomes resident. {@code groupId} names the request (or store) that inserted it
     * and {@code positionInGroup} its block position within that request's prefix; policies
     * that do not care about prefixes ignore both. The key must not be present already.
     */
    void onInsert(long key, long groupId, int positionInGroup);

    /** A resident key was used again (a hit). The key must be present. */
    void onAccess(long key);

    /** The store removed a resident key (eviction, overwrite or drop). The key must be present. */
    void onRemove(long key);

    /**
     * Chooses the key to evict next among the resident keys for which {@code evictable} is true,
     * without removing it. Returns {@link #NO_VICTIM} when there is none. A policy may reorganise
     * its internal queues while searching (S3-FIFO promotes, SIEVE moves its hand), but it must
     * not drop a key; the caller follows up with {@link #onRemove} for the returned key.
     */
    long selectVictim(LongPredicate evictable);

    /** Whether the key is resident in this policy's view. */
    boolean contains(long key);

    /** Number of resident keys. */
    int size();

    /** Throws {@link IllegalStateException} naming the broken rule if internal state is inconsistent. */
    void checkInvariants();
}
