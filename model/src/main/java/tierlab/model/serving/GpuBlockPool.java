package tierlab.model.serving;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An engine's GPU KV blocks: the free ones in the order they were freed (handed out oldest freed
 * first, so block numbers are deterministic), and those of preempted requests that a staging copy
 * still reads, freed when the copy lands (R10). The map of held blocks is never iterated for a
 * decision, so its hash order decides nothing.
 */
final class GpuBlockPool {
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

    /** A preempted request's blocks that an in-flight staging copy still reads: not free until it lands. */
    void holdForStaging(long requestId, List<Long> blocks) {
        heldForStaging.computeIfAbsent(requestId, r -> new ArrayList<>()).addAll(blocks);
    }

    /** The last cancelled staging copy of {@code requestId} landed: its held blocks are free. */
    void releaseHeld(long requestId) {
        List<Long> held = heldForStaging.remove(requestId);
        if (held != null) {
            free.addAll(held);
        }
    }

    /** Requests whose blocks are held for a staging copy. */
    int requestsHoldingForStaging() {
        return heldForStaging.size();
    }

    /** Every block is free, held by a request ({@code inRequests} of them) or held for staging. */
    void checkInvariants(long inRequests) {
        long heldBlocks = inRequests;
        for (List<Long> held : heldForStaging.values()) {
            heldBlocks += held.size();
        }
        if (heldBlocks + free.size() != totalBlocks) {
            throw new IllegalStateException("GPU blocks: " + heldBlocks + " held + " + free.size()
                    + " free != gpuKvBlocks " + totalBlocks);
        }
    }
}
