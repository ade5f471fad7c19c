package tierlab.model.store;

import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.l2.L2Index;
import tierlab.model.store.L1Space.Slice;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.TieredStore.MixedOrL2Witness;

/**
 * The read-only walks the scheduler asks for about requests it parks: the class a lookup would
 * return, and a witness that keeps a MIXED or L2 answer valid. The same walk and cap as the lookup
 * ({@link Leases}), with no result built, no lease taken and nothing recorded.
 */
final class HitClasses extends StorePart {

    HitClasses(StoreContext ctx) {
        super(ctx);
    }

    /** See {@link TieredStore#storedPrefix}: the same visibility as a lookup, from block 0, uncapped. */
    StoredPrefix storedPrefix(List<BlockKey> chain) {
        int stored = 0;
        int l1 = 0;
        boolean allInL1 = true;
        while (stored < chain.size()) {
            L2Index.Entry entry = ctx.visible(chain.get(stored));
            if (entry == null) {
                break;
            }
            stored++;
            for (int lane = 0; lane < tp && allInL1; lane++) {
                Slice slice = ctx.space.residentAt(lane * slotCount + entry.slot());
                allInL1 = slice != null && slice.content != null && slice.content.lane() == lane
                        && slice.content.key().equals(entry.key());
            }
            if (allInL1) {
                l1 = stored;
            }
        }
        return new StoredPrefix(l1, stored);
    }

    /**
     * The class a lookup would return now, without building its result or taking a lease: the
     * scheduler asks this for requests the prefetch bound would park anyway, so a long queue of
     * parked requests is not fully looked up on every pass. Same walk and cap as {@link Leases#lookup}.
     */
    HitClass classify(List<BlockKey> chain, long computedTokens, long promptTokens) {
        int blockTokens = geometry.blockTokens();
        if (computedTokens % blockTokens != 0 || promptTokens <= 0) {
            return HitClass.MISS;
        }
        int startBlock = (int) (computedTokens / blockTokens);
        long maxLeaseBlocks = settings.l1CapacityBytes() / laneBytes / tp;
        int found = 0;
        int resident = 0;
        while (startBlock + found < chain.size() && found < maxLeaseBlocks) {
            L2Index.Entry entry = ctx.visible(chain.get(startBlock + found));
            if (entry == null) {
                break;
            }
            // Only blocks inside the capped hit count; the cap is applied below, so count lazily.
            long blocksIfThisCounts = found + 1;
            long hitEnd = Math.min((startBlock + blocksIfThisCounts) * blockTokens, promptTokens - 1);
            if (hitEnd - computedTokens <= (long) found * blockTokens) {
                break;
            }
            found++;
            for (int lane = 0; lane < tp; lane++) {
                Slice slice = ctx.space.residentAt(lane * slotCount + entry.slot());
                if (slice != null && slice.content != null && slice.content.lane() == lane
                        && slice.content.key().equals(entry.key())) {
                    resident++;
                }
            }
        }
        if (found == 0) {
            return HitClass.MISS;
        }
        int units = found * tp;
        return resident == units ? HitClass.L1 : resident > 0 ? HitClass.MIXED : HitClass.L2;
    }

    /**
     * A witness that {@code classify(chain, computedTokens, promptTokens)} is MIXED or L2, or null
     * when it is L1 or MISS. The same walk and cap as {@link #classify}, stopping at the first
     * counted block with a lane missing from L1.
     */
    MixedOrL2Witness mixedOrL2Witness(List<BlockKey> chain, long computedTokens, long promptTokens) {
        int blockTokens = geometry.blockTokens();
        if (computedTokens % blockTokens != 0 || promptTokens <= 0) {
            return null;
        }
        int startBlock = (int) (computedTokens / blockTokens);
        long maxLeaseBlocks = settings.l1CapacityBytes() / laneBytes / tp;
        int found = 0;
        while (startBlock + found < chain.size() && found < maxLeaseBlocks) {
            L2Index.Entry entry = ctx.visible(chain.get(startBlock + found));
            if (entry == null) {
                return null;
            }
            long blocksIfThisCounts = found + 1;
            long hitEnd = Math.min((startBlock + blocksIfThisCounts) * blockTokens, promptTokens - 1);
            if (hitEnd - computedTokens <= (long) found * blockTokens) {
                return null;
            }
            found++;
            for (int lane = 0; lane < tp; lane++) {
                int unit = lane * slotCount + entry.slot();
                Slice slice = ctx.space.residentAt(unit);
                if (slice == null || slice.content == null || slice.content.lane() != lane
                        || !slice.content.key().equals(entry.key())) {
                    return new MixedOrL2Witness(computedTokens, unit, ctx.space.residencyGains(), index.removals());
                }
            }
        }
        return null;
    }
}
