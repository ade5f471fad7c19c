package tierlab.model.serving;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tierlab.model.geometry.BlockKey;

/**
 * An engine's GPU KV blocks: the free ones in the order they were freed (handed out oldest freed
 * first, so block numbers are deterministic), and those of preempted requests that a staging copy
 * still reads, freed when the copy lands (R10). The map of held blocks is never iterated for a
 * decision, so its hash order decides nothing.
 *
 * <p>This plain pool keeps no prefix cache: a freed block forgets its KV. {@link PrefixCachingBlockPool}
 * (engine {@code vllm-v1}) overrides the hooks below that a GPU prefix cache needs; here they are the
 * identity, so {@link EngineScheduler} over this pool decides as it always did.
 */
class GpuBlockPool {
    private final long totalBlocks;
    private final ArrayDeque<Long> free = new ArrayDeque<>();
    private final Map<Long, List<Long>> heldForStaging = new HashMap<>();

    GpuBlockPool(long totalBlocks) {
        this.totalBlocks = totalBlocks;
        for (long block = 0; block < totalBlocks; block++) {
            free.addLast(block);
        }
    }

    int freeCount() {
        return free.size();
    }

    boolean noneFree() {
        return free.isEmpty();
    }

    /** Adds free blocks to {@code blocks} until it holds {@code count}; the caller checked there are enough. */
    void fillTo(List<Long> blocks, long count) {
        while (blocks.size() < count) {
            blocks.add(free.pollFirst());
        }
    }

    /** Gives {@code blocks} back (the caller clears its list). */
    void release(List<Long> blocks) {
        free.addAll(blocks);
    }

    /** Whether freed blocks keep their KV for later requests (automatic prefix caching). */
    boolean cachesPrefixes() {
        return false;
    }

    /**
     * Prompt tokens of {@code request} whose KV this pool holds in full blocks from the start of its
     * prompt, remembered on the request for {@link #fillTo(EngineRequest, long)}: none without a prefix cache.
     */
    long cachedPrefixTokens(EngineRequest request, int blockTokens) {
        return 0;
    }

    /** Leading blocks of {@code chain} cached here now, without remembering anything: none without a prefix cache. */
    int cachedPrefixBlocks(List<BlockKey> chain) {
        return 0;
    }

    /** Free blocks that admitting {@code request} with {@code needBlocks} blocks takes out of the free queue. */
    long blocksToTake(EngineRequest request, long needBlocks) {
        return needBlocks;
    }

    /** Fills the request's block list to {@code count} blocks (its cached prefix first, where there is one). */
    void fillTo(EngineRequest request, long count) {
        fillTo(request.gpuBlocks, count);
    }

    /** The request's KV now covers {@code request.computedTokens}: its full blocks may be cached (no-op here). */
    void cacheFullBlocks(EngineRequest request, int blockTokens) {
    }

    /**
     * Whether the pool changed (a block taken, freed or cached) since the last call: parked requests' GPU
     * prefixes and block needs may then differ. Never for this plain pool, whose answers depend on the free
     * count alone.
     */
    boolean changedSinceLastAsked() {
        return false;
    }

    /** Cumulative: cached blocks whose KV was dropped to hand the block to another use. */
    long evictions() {
        return 0;
    }

    /** A preempted request's blocks that an in-flight staging copy still reads: not free until it lands. */
    void holdForStaging(long requestId, List<Long> blocks) {
        heldForStaging.computeIfAbsent(requestId, r -> new ArrayList<>()).addAll(blocks);
    }

    /** The last cancelled staging copy of {@code requestId} landed: its held blocks are free. */
    void releaseHeld(long requestId) {
        List<Long> held = heldForStaging.remove(requestId);
        if (held != null) {
            release(held);
        }
    }

    /** Requests whose blocks are held for a staging copy. */
    int requestsHoldingForStaging() {
        return heldForStaging.size();
    }

    /** Blocks held for staging copies, counted with repetition. */
    long heldForStagingBlocks() {
        long heldBlocks = 0;
        for (List<Long> held : heldForStaging.values()) {
            heldBlocks += held.size();
        }
        return heldBlocks;
    }

    /** Every block is free, held by a request ({@code inRequests} of them) or held for staging. */
    void checkInvariants(long inRequests) {
        long heldBlocks = inRequests + heldForStagingBlocks();
        if (heldBlocks + free.size() != totalBlocks) {
            throw new IllegalStateException("GPU blocks: " + heldBlocks + " held + " + free.size()
                    + " free != gpuKvBlocks " + totalBlocks);
        }
    }
}
