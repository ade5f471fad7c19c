package tierlab.model.store;

import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;

/**
 * The narrow, read-only view of a {@link TieredStore}'s insides that tests, test harnesses and
 * the race hunt compare against their expectations: L1 pool occupancy and residency, promotions,
 * L2 index entries, the ring's runs and the unit layout. Nothing here changes the store, and no
 * run decides anything by it; production code uses the facade's queries instead.
 */
public final class StoreTestView {
    private final StoreContext ctx;

    StoreTestView(StoreContext ctx) {
        this.ctx = ctx;
    }

    /** Free bytes of the L1 pool (fragmented or not). */
    public long l1FreeBytes() {
        return ctx.space.l1FreeBytes();
    }

    /** Whether the unit (an L2 offset) has a resident slice in L1. */
    public boolean isResident(long unit) {
        return ctx.space.isResident(unit);
    }

    /** Whether the unit is a resident headroom entry (evicted before policy victims). */
    public boolean isHeadroom(long unit) {
        return ctx.space.isHeadroom(unit);
    }

    /** Whether the unit is an ordinary (policy-managed) resident entry, not a headroom one. */
    public boolean inPolicy(long unit) {
        return ctx.space.inPolicy(unit);
    }

    /** Promotions in flight or waiting, one per unit unless R6 is ablated. */
    public int activePromotions() {
        return ctx.promotions.activePromotions();
    }

    /** The L2 index entry of {@code key}, committed or only claimed; null if none. */
    public L2Index.Entry l2Entry(BlockKey key) {
        return ctx.index.entry(key);
    }

    /** The L2 index entry of {@code key} if a lookup can see it (every lane committed); else null. */
    public L2Index.Entry l2Visible(BlockKey key) {
        return ctx.index.visible(key);
    }

    /** How many L2 index entries a lookup can see. */
    public long l2VisibleCount() {
        return ctx.index.visibleCount();
    }

    /** The L2 ring's live runs, oldest first. */
    public List<L2Ring.Run> l2Runs() {
        return ctx.ring.runs();
    }

    /** The unit (L2 byte offset) of a slot's lane. */
    public long unitOffset(int slot, int lane) {
        return ctx.unitOffset(slot, lane);
    }
}
