package tierlab.model.store;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.io.IoOp.Content;
import tierlab.model.l2.L2Index;

/**
 * The stores that serve from one {@link L2Pool}, and the rules between them when there are several
 * (a fleet's shared L2 on one host; docs/fleet.md). With one member every method here answers as if
 * the pool were part of that store, so a private pool decides exactly as before.
 *
 * <p>The rules, each a check in {@link #checkInvariants}:
 * <ul>
 *   <li><b>X1, visible after the write</b>: a key another store committed is visible to a store only
 *       once every lane's newest bytes landed on L2 (its committer serves it from its own L1 meanwhile,
 *       as a private store does);</li>
 *   <li><b>X2, a lease blocks reuse for all</b>: a store's write into a unit waits while any member
 *       holds a lease on it, so no L2 write newer than a lease is in flight on a leased unit;</li>
 *   <li><b>X3, reuse reaches every L1</b>: when the ring gives a slot to a new run, every member's L1
 *       copy of its units leaves L1, so a later key in that slot is never served from an old copy.</li>
 * </ul>
 * A member changed by another's action (an L1 copy dropped, a lease released) is marked woken: the
 * runtime that drives it resumes it, since the model never calls into another store's step.
 */
final class PoolMembers {

    private static final int NO_MEMBER = -1;

    private final int slotCount;
    private final int tp;
    private final List<StoreContext> members = new ArrayList<>();
    private final List<Boolean> woken = new ArrayList<>();
    /** Per unit, the member whose commit stamped its current epoch (NO_MEMBER: none, or a restored pool's). */
    private final int[] committerByUnit;
    /** Per unit, the epoch whose bytes the last successful L2 write of it carried. */
    private final long[] landedEpochByUnit;

    PoolMembers(int slotCount, int tp) {
        this.slotCount = slotCount;
        this.tp = tp;
        int units = Math.toIntExact((long) slotCount * tp);
        this.committerByUnit = new int[units];
        java.util.Arrays.fill(committerByUnit, NO_MEMBER);
        this.landedEpochByUnit = new long[units];
    }

    /** Adds a store; its index among the members is its name in the rules above. */
    int attach(StoreContext member) {
        members.add(member);
        woken.add(false);
        return members.size() - 1;
    }

    int size() {
        return members.size();
    }

    boolean shared() {
        return members.size() > 1;
    }

    void committed(int unitIndex, int member) {
        committerByUnit[unitIndex] = member;
    }

    void landed(int unitIndex, long epoch) {
        landedEpochByUnit[unitIndex] = Math.max(landedEpochByUnit[unitIndex], epoch);
    }

    /** X1: whether {@code member} may serve {@code entry} (always, in a private pool). */
    boolean readableBy(int member, L2Index.Entry entry, L2Pool pool) {
        if (!shared()) {
            return true;
        }
        for (int lane = 0; lane < tp; lane++) {
            int unit = lane * slotCount + entry.slot();
            if (committerByUnit[unit] != member && committerByUnit[unit] != NO_MEMBER
                    && landedEpochByUnit[unit] != pool.unitEpoch(unit)) {
                return false;
            }
        }
        return true;
    }

    /** X2: whether a member other than {@code member} holds a lease on the unit. */
    boolean leasedByAnother(int member, int unitIndex) {
        for (int other = 0; other < members.size(); other++) {
            if (other != member && members.get(other).leases.isLeased(unitIndex)) {
                return true;
            }
        }
        return false;
    }

    /** X3: the ring gave slots {@code [firstSlot, endSlot)} to a new run of {@code member}; the others' L1 copies go. */
    void slotsReused(int member, int firstSlot, int endSlot) {
        for (int other = 0; other < members.size(); other++) {
            if (other == member) {
                continue;
            }
            StoreContext ctx = members.get(other);
            boolean dropped = false;
            for (int slot = firstSlot; slot < endSlot; slot++) {
                for (int lane = 0; lane < tp; lane++) {
                    L1Space.Slice resident = ctx.space.resident(ctx.unitOffset(slot, lane));
                    if (resident != null) {
                        ctx.space.unpublish(resident);
                        dropped = true;
                    }
                }
            }
            if (dropped) {
                woken.set(other, true);
            }
        }
    }

    /** A member released lease units: every other member whose store waits for leases may move on. */
    void leaseReleased(int member) {
        for (int other = 0; other < members.size(); other++) {
            if (other != member && members.get(other).saves.waitsForLeases()) {
                woken.set(other, true);
            }
        }
    }

    /** Whether {@code member} was changed by another member since it was last asked; clears the mark. */
    boolean takeWoken(int member) {
        boolean was = woken.get(member);
        woken.set(member, false);
        return was;
    }

    /** X1–X3 over every unit and member (with one member there is nothing between stores to check). */
    void checkInvariants(L2Pool pool) {
        if (!shared()) {
            return;
        }
        for (int unit = 0; unit < committerByUnit.length; unit++) {
            int slot = unit % slotCount;
            int lane = unit / slotCount;
            L2Index.Entry entry = pool.index().atSlot(slot);
            for (int member = 0; member < members.size(); member++) {
                StoreContext ctx = members.get(member);
                L1Space.Slice resident = ctx.space.resident(ctx.unitOffset(slot, lane));
                if (resident == null || resident.content == null) {
                    continue;
                }
                Content content = resident.content;
                if (entry == null || !entry.key().equals(content.key())) {
                    continue;
                }
                if (committerByUnit[unit] != member && committerByUnit[unit] != NO_MEMBER
                        && landedEpochByUnit[unit] != pool.unitEpoch(unit)) {
                    throw new IllegalStateException("X1: member " + member + " holds " + entry.key() + " lane " + lane
                            + " committed by member " + committerByUnit[unit] + " before its write landed");
                }
            }
        }
        for (int member = 0; member < members.size(); member++) {
            members.get(member).leases.forEachHeldUnit((unitIndex, epochAtLookup, requestId) ->
                    checkNoNewerWrite(unitIndex, epochAtLookup, requestId));
        }
    }

    private void checkNoNewerWrite(int unitIndex, long epochAtLookup, long requestId) {
        for (int writer = 0; writer < members.size(); writer++) {
            StoreContext ctx = members.get(writer);
            long newest = ctx.writes.newestPendingEpoch(ctx.unitOffset(unitIndex % slotCount, unitIndex / slotCount));
            if (newest > epochAtLookup) {
                throw new IllegalStateException("X2: member " + writer + " writes unit " + unitIndex + " at epoch " + newest
                        + " while request " + requestId + " leases it from epoch " + epochAtLookup);
            }
        }
    }
}
