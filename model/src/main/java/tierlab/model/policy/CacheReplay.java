package tierlab.model.policy;

import java.util.List;
import java.util.Objects;

/**
 * A plain block-level cache driven by a reference stream: the same policy code the store uses,
 * without bytes, leases or headroom, so hit counts can be compared one for one with other cache
 * simulators (libCacheSim, Caffeine's simulator) on the same trace.
 *
 * <p>For each reference: a resident block is a hit ({@link ReplacementPolicy#onAccess}); otherwise
 * it is a miss, and if the cache holds {@code capacityBlocks} blocks the policy's victim (every
 * block is evictable here) is removed first, then the block is inserted. The policy's
 * {@link ReplacementPolicy#checkInvariants()} runs at the end, and after every reference when
 * {@code checkEveryStep} is set.
 */
public final class CacheReplay {

    private CacheReplay() {
    }

    /** Replays single-block references; each reference is its own group (group id = its index). */
    public static ReplayResult run(ReplacementPolicy policy, long capacityBlocks, long[] blockIds) {
        return run(policy, capacityBlocks, blockIds, false);
    }

    public static ReplayResult run(ReplacementPolicy policy, long capacityBlocks, long[] blockIds,
                                   boolean checkEveryStep) {
        validate(policy, capacityBlocks);
        Objects.requireNonNull(blockIds, "cache replay: blockIds");
        long hits = 0;
        for (int index = 0; index < blockIds.length; index++) {
            if (reference(policy, capacityBlocks, blockIds[index], index, 0)) {
                hits++;
            }
            if (checkEveryStep) {
                policy.checkInvariants();
            }
        }
        policy.checkInvariants();
        return new ReplayResult(hits, blockIds.length - hits);
    }

    /**
     * Replays requests; each request is one group (group id = the request's index) and each block's
     * position is its index within the request, so prefix-aware policies see the prefix structure.
     */
    public static ReplayResult run(ReplacementPolicy policy, long capacityBlocks, List<long[]> requests) {
        return run(policy, capacityBlocks, requests, false);
    }

    public static ReplayResult run(ReplacementPolicy policy, long capacityBlocks, List<long[]> requests,
                                   boolean checkEveryStep) {
        validate(policy, capacityBlocks);
        Objects.requireNonNull(requests, "cache replay: requests");
        long hits = 0;
        long misses = 0;
        for (int requestIndex = 0; requestIndex < requests.size(); requestIndex++) {
            long[] blocks = requests.get(requestIndex);
            for (int position = 0; position < blocks.length; position++) {
                if (reference(policy, capacityBlocks, blocks[position], requestIndex, position)) {
                    hits++;
                } else {
                    misses++;
                }
                if (checkEveryStep) {
                    policy.checkInvariants();
                }
            }
        }
        policy.checkInvariants();
        return new ReplayResult(hits, misses);
    }

    private static void validate(ReplacementPolicy policy, long capacityBlocks) {
        Objects.requireNonNull(policy, "cache replay: policy");
        if (capacityBlocks < 1) {
            throw new IllegalArgumentException("cache replay: capacityBlocks must be >= 1, was " + capacityBlocks);
        }
    }

    /** One reference; returns whether it hit. */
    private static boolean reference(ReplacementPolicy policy, long capacityBlocks, long key,
                                     long groupId, int position) {
        if (policy.contains(key)) {
            policy.onAccess(key);
            return true;
        }
        if (policy.size() >= capacityBlocks) {
            long victim = policy.selectVictim(candidate -> true);
            // With every block evictable a policy must always name one; anything else is a policy bug.
            if (victim == ReplacementPolicy.NO_VICTIM || !policy.contains(victim)) {
                throw new IllegalStateException("cache replay: policy " + policy.name() + " returned victim "
                        + (victim == ReplacementPolicy.NO_VICTIM ? "NO_VICTIM" : Long.toString(victim))
                        + " from a full cache of " + policy.size() + " blocks, all evictable");
            }
            policy.onRemove(victim);
        }
        policy.onInsert(key, groupId, position);
        return false;
    }
}
