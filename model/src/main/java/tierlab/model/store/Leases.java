package tierlab.model.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp.Content;
import tierlab.model.l2.L2Index;
import tierlab.model.store.L1Space.Slice;
import tierlab.model.store.Loads.Load;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.LookupResult.LeaseStatus;
import tierlab.model.store.Promotions.Promotion;
import tierlab.model.store.TieredStore.AcquireOutcome;
import tierlab.model.util.LongMap;

/**
 * Lookup and leases: the walk of a request's chain over committed keys (the cheaper
 * classification and witnesses the scheduler asks for parked requests are {@link HitClasses}'), lease admission, pinning
 * resident units and starting promotions for the others, and release, whole or by range.
 * Invariants: lease counts, R4 (no store published over a held range), I3 (held and borrowed
 * slices are live) and I4 (lease bytes).
 */
final class Leases extends StorePart {

    enum UnitState { HELD, PROMOTING, FAILED, RELEASED }

    static final class LeaseUnit {
        final Lease lease;
        final long unit;
        final Content expected;
        final int blockIndex;
        final long epochAtLookup;
        /** The store epoch when the lease was taken: a write of this unit stamped later is a reuse under the lease. */
        final long epochAtLease;
        /** The bytes came from L2 through a promotion (else they were resident in L1). */
        boolean viaPromotion;
        UnitState state;
        Slice slice;
        Promotion promotion;

        LeaseUnit(Lease lease, long unit, Content expected, int blockIndex, long epochAtLookup) {
            this.lease = lease;
            this.unit = unit;
            this.expected = expected;
            this.blockIndex = blockIndex;
            this.epochAtLookup = epochAtLookup;
            this.epochAtLease = lease.epochAtLease;
        }
    }

    static final class Lease {
        final long leaseId;
        final long requestId;
        final long epochAtLease;
        final List<LeaseUnit> units = new ArrayList<>();
        int promotingUnits;
        int failedUnits;
        boolean acquireReported;
        boolean releaseAll;
        Load activeLoad;

        Lease(long leaseId, long requestId, long epochAtLease) {
            this.leaseId = leaseId;
            this.requestId = requestId;
            this.epochAtLease = epochAtLease;
        }
    }

    private final TreeMap<Long, Lease> leasesById = new TreeMap<>();
    private final LongMap<Lease> leaseByRequest = new LongMap<>();

    /** How many unreleased lease ranges cover each unit: a store overlapping any of them waits. */
    private final int[] leasedUnitCounts;
    private long leasedRemainingBytes;

    Leases(StoreContext ctx) {
        super(ctx);
        this.leasedUnitCounts = new int[ctx.unitCount];
    }

    /**
     * Walks the request's chain from its first uncomputed block over committed keys, classifies
     * the hit and, for an L1 hit, takes the lease in the same step (section 4).
     *
     * @param chain          the prompt's full-block keys, block 0 first
     * @param computedTokens tokens the engine already has (the walk starts after them)
     * @param promptTokens   prompt length; a hit covering the whole prompt is capped one token short
     */
    LookupResult lookup(long requestId, List<BlockKey> chain, long computedTokens, long promptTokens, long nowNs) {
        count(StoreCounter.LOOKUPS, 1);
        int blockTokens = geometry.blockTokens();
        int startBlock = (int) (computedTokens / blockTokens);
        int hitBlocks = 0;
        long hitTokens = 0;
        // The walk keeps the entries it found so each key is hashed once.
        List<L2Index.Entry> found = new ArrayList<>(Math.max(0, chain.size() - startBlock));
        if (computedTokens % blockTokens == 0 && promptTokens > 0) {
            L2Index.Entry entry;
            while (startBlock + found.size() < chain.size()
                    && (entry = ctx.visible(chain.get(startBlock + found.size()))) != null) {
                found.add(entry);
            }
            // A lease pins every byte it loads from in L1, so a hit is capped to what L1 can hold at
            // once; without the cap a prefix longer than L1 could never pass lease admission.
            long maxLeaseBlocks = settings.l1CapacityBytes() / laneBytes / tp;
            long usableBlocks = Math.min(found.size(), maxLeaseBlocks);
            long hitEnd = Math.min((startBlock + usableBlocks) * blockTokens, promptTokens - 1);
            hitTokens = Math.max(0, hitEnd - computedTokens);
            hitBlocks = (int) Math.ceilDiv(hitTokens, blockTokens);
        }
        int[] slots = new int[hitBlocks];
        BlockKey[] keys = new BlockKey[hitBlocks];
        int resident = 0;
        for (int b = 0; b < hitBlocks; b++) {
            L2Index.Entry entry = found.get(b);
            slots[b] = entry.slot();
            keys[b] = entry.key();
            for (int lane = 0; lane < tp; lane++) {
                Slice slice = ctx.space.residentAt(lane * slotCount + entry.slot());
                if (slice != null && holds(slice, entry.key(), lane)) {
                    resident++;
                }
            }
        }
        List<Long> units = new HitRanges.Units(slots, tp, slotCount, laneBytes);
        List<Content> expected = new HitRanges.Expected(keys, tp);
        HitClass hitClass;
        if (hitBlocks == 0) {
            hitClass = HitClass.MISS;
            count(StoreCounter.LOOKUP_MISS, 1);
        } else if (resident == units.size()) {
            hitClass = HitClass.L1;
            count(StoreCounter.LOOKUP_L1, 1);
        } else if (resident > 0) {
            hitClass = HitClass.MIXED;
            count(StoreCounter.LOOKUP_MIXED, 1);
        } else {
            hitClass = HitClass.L2;
            count(StoreCounter.LOOKUP_L2, 1);
        }
        LeaseStatus status = LeaseStatus.NONE;
        Lease existing = leaseByRequest.get(requestId);
        if (existing != null && sameRemainingUnits(existing, units)) {
            status = LeaseStatus.LEASED;
        } else if (hitClass == HitClass.L1) {
            status = createLease(requestId, units, expected, startBlock, ctx.l2.storeEpoch(), nowNs) != null ? LeaseStatus.LEASED : LeaseStatus.ADMISSION_WAIT;
        }
        count(StoreCounter.HIT_TOKENS, hitTokens);
        trace.record("lookup", requestId, hitClass.ordinal(), startBlock, hitBlocks, status.ordinal());
        // No pump: a lookup frees nothing and starts no promotion (an L1 lease pins resident slices only).
        return new LookupResult(requestId, hitClass, computedTokens, hitTokens, startBlock, hitBlocks, units, expected,
                resident, status, ctx.l2.storeEpoch());
    }

    private static boolean holds(Slice slice, BlockKey key, int lane) {
        Content content = slice.content;
        return content != null && content.lane() == lane && content.key().equals(key);
    }

    private boolean sameRemainingUnits(Lease lease, List<Long> units) {
        List<Long> remaining = new ArrayList<>();
        for (LeaseUnit unit : lease.units) {
            if (unit.state != UnitState.RELEASED) {
                remaining.add(unit.unit);
            }
        }
        return remaining.equals(units);
    }

    /**
     * Takes a lease on every unit of a hit: resident units are pinned at once, missing ones are
     * promoted from L2 under the lease (a prefetch, or the synchronous path of a load when
     * prefetch is off). Completion is reported with {@link StoreEvent.AcquireDone}.
     */
    AcquireOutcome acquire(long requestId, LookupResult hit, long nowNs) {
        if (!hit.isHit()) {
            return AcquireOutcome.NOTHING_TO_ACQUIRE;
        }
        Lease existing = leaseByRequest.get(requestId);
        if (existing != null && sameRemainingUnits(existing, hit.units())) {
            return existing.promotingUnits == 0 && existing.failedUnits == 0 ? AcquireOutcome.READY : AcquireOutcome.PROMOTING;
        }
        if (existing != null) {
            releaseLease(requestId, nowNs);
        }
        Lease lease = createLease(requestId, hit.units(), hit.expected(), hit.startBlock(), hit.storeEpoch(), nowNs);
        AcquireOutcome outcome;
        if (lease == null) {
            outcome = AcquireOutcome.ADMISSION_WAIT;
        } else if (lease.promotingUnits == 0) {
            lease.acquireReported = true;
            outcome = AcquireOutcome.READY;
        } else {
            outcome = AcquireOutcome.PROMOTING;
        }
        trace.record("acquire", requestId, outcome.ordinal());
        pump();
        return outcome;
    }

    /** Lease admission, then pin resident units and start promotions for the others. Null when admission says wait. */
    private Lease createLease(long requestId, List<Long> units, List<Content> expected, int startBlock, long epochAtLookup,
                              long nowNs) {
        long bytes = units.size() * laneBytes;
        if (!races.r5NoLeaseAdmission && leasedRemainingBytes + bytes > settings.l1CapacityBytes()) {
            count(StoreCounter.LEASE_ADMISSION_WAITS, 1);
            trace.record("lease-wait", requestId, bytes, leasedRemainingBytes);
            return null;
        }
        Lease lease = new Lease(ctx.nextId(), requestId, ctx.l2.storeEpoch());
        leasesById.put(lease.leaseId, lease);
        leaseByRequest.put(requestId, lease);
        count(StoreCounter.LEASES_CREATED, 1);
        trace.record("lease", lease.leaseId, requestId, bytes);
        List<LeaseUnit> toTouch = new ArrayList<>();
        for (int i = 0; i < units.size(); i++) {
            long unit = units.get(i);
            LeaseUnit leaseUnit = new LeaseUnit(lease, unit, expected.get(i), startBlock + i / tp, epochAtLookup);
            lease.units.add(leaseUnit);
            leasedUnitCounts[unitIndex(unit)]++;
            leasedRemainingBytes += laneBytes;
            Slice slice = ctx.space.resident(unit);
            if (slice != null && leaseUnit.expected.equals(slice.content)) {
                attach(leaseUnit, slice);
                toTouch.add(leaseUnit);
            } else {
                leaseUnit.state = UnitState.PROMOTING;
                lease.promotingUnits++;
                ctx.promotions.startPromotion(leaseUnit);
            }
        }
        // Refresh recency from the suffix to the prefix, so the prefix ends up most recent and a
        // suffix (useless without its prefix) is evicted first among equally old blocks.
        for (int i = toTouch.size() - 1; i >= 0; i--) {
            ctx.space.touch(toTouch.get(i).unit, requestId, toTouch.get(i).blockIndex);
        }
        return lease;
    }

    void attach(LeaseUnit leaseUnit, Slice slice) {
        leaseUnit.slice = slice;
        leaseUnit.state = UnitState.HELD;
        leaseUnit.promotion = null;
        slice.leaseRefs++;
        ctx.space.rolesChanged(slice);
    }

    /**
     * Releases a request's lease (finish, preemption, abort, shutdown). While its load is copying,
     * the lease is only marked release-all and finishes when the copy ends, so borrowed slices
     * are never reused under a copy (R8).
     */
    void releaseLease(long requestId, long nowNs) {
        Lease lease = leaseByRequest.get(requestId);
        if (lease == null) {
            return;
        }
        if (lease.activeLoad != null) {
            if (!races.r8ReleaseBorrowOnCancel) {
                lease.releaseAll = true;
                trace.record("lease-release-all", lease.leaseId);
                return;
            }
            // The bug: give the borrowed slices back now, while the copy still reads them.
            ctx.loads.returnBorrows(lease.activeLoad);
        }
        finishRelease(lease);
        pump();
    }

    void finishRelease(Lease lease) {
        if (leaseByRequest.get(lease.requestId) == lease) {
            leaseByRequest.remove(lease.requestId);
        }
        leasesById.remove(lease.leaseId);
        for (LeaseUnit leaseUnit : lease.units) {
            releaseUnit(leaseUnit);
        }
        count(StoreCounter.LEASES_RELEASED, 1);
        trace.record("lease-release", lease.leaseId);
    }

    void releaseUnit(LeaseUnit leaseUnit) {
        if (leaseUnit.state == UnitState.RELEASED) {
            return;
        }
        if (leaseUnit.state == UnitState.HELD) {
            Slice slice = leaseUnit.slice;
            slice.leaseRefs--;
            ctx.space.rolesChanged(slice);
        } else if (leaseUnit.state == UnitState.PROMOTING) {
            Promotion promotion = leaseUnit.promotion;
            promotion.waiters.remove(leaseUnit);
            leaseUnit.lease.promotingUnits--;
            if (promotion.waiters.isEmpty()) {
                ctx.promotions.cancelPromotion(promotion);
            }
        }
        leaseUnit.state = UnitState.RELEASED;
        leaseUnit.slice = null;
        leaseUnit.promotion = null;
        leasedUnitCounts[unitIndex(leaseUnit.unit)]--;
        leasedRemainingBytes -= laneBytes;
        ctx.l2.members().leaseReleased(ctx.poolMember);
    }

    /**
     * Stops waiting for the rest of a lease that is still being acquired (a prefetch stop policy):
     * keeps the leading blocks whose every lane is held and releases every unit after them. A
     * promotion the lease waited for loses it as a waiter and is cancelled when nobody else waits
     * (a read in flight then lands into its reserved slice and is dropped, never published for
     * this lease); one shared with other leases goes on for them. The lease reports no
     * {@link StoreEvent.AcquireDone} afterwards; with no block kept it is released whole.
     */
    TieredStore.StoppedAcquire stopAcquire(long requestId, long nowNs) {
        Lease lease = leaseByRequest.get(requestId);
        if (lease == null || lease.acquireReported || lease.activeLoad != null) {
            return new TieredStore.StoppedAcquire(0, 0, false);
        }
        int heldPrefixUnits = 0;
        while (heldPrefixUnits < lease.units.size() && lease.units.get(heldPrefixUnits).state == UnitState.HELD) {
            heldPrefixUnits++;
        }
        int keptBlocks = heldPrefixUnits / tp;
        int keptUnits = keptBlocks * tp;
        int keptViaPromotion = 0;
        for (int i = 0; i < keptUnits; i++) {
            keptViaPromotion += lease.units.get(i).viaPromotion ? 1 : 0;
        }
        // The first unit not held says why the rest is not served: its read failed, or it had not arrived.
        boolean failedRead = heldPrefixUnits < lease.units.size()
                && lease.units.get(heldPrefixUnits).state == UnitState.FAILED;
        trace.record("acquire-stop", requestId, keptBlocks, lease.units.size() / tp);
        lease.acquireReported = true;
        for (int i = keptUnits; i < lease.units.size(); i++) {
            LeaseUnit leaseUnit = lease.units.get(i);
            if (leaseUnit.state == UnitState.FAILED) {
                lease.failedUnits--;
            } else if (leaseUnit.state == UnitState.PROMOTING && races.p1ServeReadAfterStop) {
                // The bug: the unit stops counting as leased but stays its promotion's waiter, so the
                // read, landing after the stop, is attached to a lease that no longer waits for it.
                leaseUnit.state = UnitState.RELEASED;
                lease.promotingUnits--;
                leasedUnitCounts[unitIndex(leaseUnit.unit)]--;
                leasedRemainingBytes -= laneBytes;
                continue;
            }
            releaseUnit(leaseUnit);
        }
        if (keptBlocks == 0) {
            finishRelease(lease);
        }
        pump();
        return new TieredStore.StoppedAcquire(keptBlocks, keptUnits - keptViaPromotion, failedRead);
    }

    void reportAcquireIfDone(Lease lease) {
        if (lease.promotingUnits == 0 && !lease.acquireReported && leasesById.containsKey(lease.leaseId)) {
            lease.acquireReported = true;
            boolean succeeded = lease.failedUnits == 0;
            events.add(new StoreEvent.AcquireDone(lease.requestId, succeeded));
            trace.record("acquire-done", lease.requestId, succeeded ? 1 : 0);
        }
    }

    /** The request's lease, or null. */
    Lease leaseOf(long requestId) {
        return leaseByRequest.get(requestId);
    }

    /** Whether the lease has not been released yet. */
    boolean isLive(Lease lease) {
        return leasesById.containsKey(lease.leaseId);
    }

    /** Whether an unreleased lease range covers the unit (by unit index): a store of it must wait. */
    boolean isLeased(int unitIndex) {
        return leasedUnitCounts[unitIndex] > 0;
    }

    /** Sees one unreleased lease unit: its unit index, the store epoch when it was leased, its request. */
    interface HeldUnitVisitor {
        void visit(int unitIndex, long epochAtLease, long requestId);
    }

    /** Every unreleased lease unit, leases in id order (for the pool's checks; decides nothing). */
    void forEachHeldUnit(HeldUnitVisitor visitor) {
        for (Lease lease : leasesById.values()) {
            for (LeaseUnit leaseUnit : lease.units) {
                if (leaseUnit.state != UnitState.RELEASED) {
                    visitor.visit(unitIndex(leaseUnit.unit), leaseUnit.epochAtLease, lease.requestId);
                }
            }
        }
    }

    /** I10: leases not released, for {@link TieredStore#leftovers}. */
    void leftovers(List<String> left) {
        if (!leasesById.isEmpty()) left.add(leasesById.size() + " leases");
    }

    long leasedRemainingBytes() {
        return leasedRemainingBytes;
    }

    boolean hasLease(long requestId) {
        return leaseByRequest.get(requestId) != null;
    }

    int leaseCount() {
        return leasesById.size();
    }

    /**
     * Role counts agree with their owners: every lease's units and its load's borrows are tallied
     * into {@code expectedRefs} (slot 0 leases, 1 borrows) and must hold live slices; R4; I4.
     */
    void checkInvariants(Map<Slice, int[]> expectedRefs) {
        long leasedBytes = 0;
        for (Lease lease : leasesById.values()) {
            int promoting = 0;
            int failed = 0;
            for (LeaseUnit leaseUnit : lease.units) {
                if (leaseUnit.state != UnitState.RELEASED) leasedBytes += laneBytes;
                if (leaseUnit.state == UnitState.PROMOTING) promoting++;
                if (leaseUnit.state == UnitState.FAILED) failed++;
                if (leaseUnit.state == UnitState.HELD) {
                    int[] refs = expectedRefs.get(leaseUnit.slice);
                    if (refs == null) {
                        throw new IllegalStateException("I3: lease " + lease.leaseId + " holds a slice that was freed");
                    }
                    refs[0]++;
                    // R4: no store publishes over a range a lease still holds.
                    Slice residentNow = ctx.space.resident(leaseUnit.unit);
                    if (residentNow != null && residentNow != leaseUnit.slice) {
                        throw new IllegalStateException("R4: unit " + leaseUnit.unit + " is leased by request "
                                + lease.requestId + " but another slice was published over it");
                    }
                }
            }
            if (promoting != lease.promotingUnits || failed != lease.failedUnits) {
                throw new IllegalStateException("lease " + lease.leaseId + " counts " + lease.promotingUnits
                        + " promoting/" + lease.failedUnits + " failed but holds " + promoting + "/" + failed);
            }
            if (lease.activeLoad != null && !lease.activeLoad.borrowsReturned) {
                for (Slice slice : lease.activeLoad.borrowed) {
                    int[] refs = expectedRefs.get(slice);
                    if (refs == null) {
                        throw new IllegalStateException("I3: a borrowed slice was freed during its copy");
                    }
                    refs[1]++;
                }
            }
        }
        if (leasedBytes != leasedRemainingBytes) {
            throw new IllegalStateException("I4: lease remaining bytes " + leasedRemainingBytes + " but leases hold " + leasedBytes);
        }
        if (leasedRemainingBytes > settings.l1CapacityBytes()) {
            throw new IllegalStateException("I4: leases' remaining bytes " + leasedRemainingBytes
                    + " exceed l1CapacityBytes " + settings.l1CapacityBytes());
        }
    }
}
