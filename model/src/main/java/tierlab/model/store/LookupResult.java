package tierlab.model.store;

import java.util.List;
import tierlab.model.io.IoOp.Content;

/**
 * The answer to a lookup: how many prompt tokens are already stored, where they are, and, for an
 * {@code L1} hit, whether the lease was taken in the same step.
 *
 * @param hitTokens   tokens the request need not compute (capped one short of the prompt)
 * @param startBlock  first block of the hit (the request's first uncomputed block)
 * @param hitBlocks   blocks to load; the last may be partly recomputed because of the cap
 * @param units       L2 unit offsets to load, block by block and lane by lane within a block
 * @param expected    payload each unit must deliver
 * @param residentUnits how many of the units are resident in L1 now
 * @param storeEpoch  the store epoch the lookup saw: a promotion made from this result is stale if
 *                    a newer store overlapped its range, however late the caller acquires
 */
public record LookupResult(long requestId, HitClass hitClass, long computedTokens, long hitTokens, int startBlock,
                           int hitBlocks, List<Long> units, List<Content> expected, int residentUnits,
                           LeaseStatus leaseStatus, long storeEpoch) {

    /** Where the hit's bytes are. */
    public enum HitClass { L1, MIXED, L2, MISS }

    /** What happened to the lease during the lookup. */
    public enum LeaseStatus {
        /** An L1 hit whose lease was taken atomically (or the request's existing lease). */
        LEASED,
        /** An L1 hit whose lease must wait for the admission bound; look up again later. */
        ADMISSION_WAIT,
        /** No lease is taken for mixed, L2 and miss results. */
        NONE
    }

    public LookupResult {
        // The store passes read-only views (HitRanges); anything else is copied so the result stays immutable.
        if (!(units instanceof HitRanges.Units)) {
            units = List.copyOf(units);
        }
        if (!(expected instanceof HitRanges.Expected)) {
            expected = List.copyOf(expected);
        }
    }

    public boolean isHit() {
        return hitClass != HitClass.MISS;
    }
}
