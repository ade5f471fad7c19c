package tierlab.model.store;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tierlab.model.io.IoOp.Content;
import tierlab.model.l1.L1Pool;
import tierlab.model.policy.Policies;
import tierlab.model.policy.ReplacementPolicy;
import tierlab.model.store.TieredStore.MixedOrL2Witness;
import tierlab.model.util.OffsetTable;

/**
 * L1 space: the pinned pool cut into slices, the L1 index (unit → resident slice), the headroom
 * queue and the replacement policy beside it, the per-role byte accounting, reservation,
 * publishing, eviction and save admission's trim. It also stamps every gain of L1 content for
 * the lookup witnesses ({@link MixedOrL2Witness}).
 *
 * <p>Slice roles: resident, reserved, pending write, leased, borrowed. A slice returns to the pool
 * only when it has none left ({@link #rolesChanged}). Invariants I1, I2, I3 (with the tally of the
 * parts that hold slices) and I9.
 */
final class L1Space extends StorePart {

    /** Byte accounting category of a slice, by its strongest role (invariant I1). */
    enum Category { RESIDENT, RESERVED, LEASED_ONLY, BORROWED_ONLY, PENDING_WRITE_ONLY, NONE }

    static final class Slice {
        final long poolOffset;
        final long unit;
        boolean resident;
        boolean headroom;
        /** Neighbours on the headroom queue (toward the oldest and the newest entry) while {@link #headroom}. */
        Slice headroomOlder;
        Slice headroomNewer;
        boolean reserved;
        int pendingWrites;
        int leaseRefs;
        int borrowRefs;
        boolean freed;
        Content content;
        Category category = Category.NONE;

        Slice(long poolOffset, long unit) {
            this.poolOffset = poolOffset;
            this.unit = unit;
        }

        Category strongestRole() {
            if (resident) return Category.RESIDENT;
            if (reserved) return Category.RESERVED;
            if (leaseRefs > 0) return Category.LEASED_ONLY;
            if (borrowRefs > 0) return Category.BORROWED_ONLY;
            if (pendingWrites > 0) return Category.PENDING_WRITE_ONLY;
            return Category.NONE;
        }
    }

    private final L1Pool pool;
    private final ReplacementPolicy policy;

    /** Every live slice by pool offset, for invariant checks and accounting. */
    // Looked up by offset on every allocation and free; ordered only in checkInvariants, which sorts.
    private final OffsetTable<Slice> slicesByPoolOffset;

    /** Bytes of live slices by {@link Category} ordinal (I1), updated on every role change. */
    private final long[] bytesByCategory = new long[Category.values().length];

    /** The L1 index: unit → resident slice. */
    private final DenseUnitMap<Slice> residentByUnit;

    /**
     * Resident slices inserted as headroom entries, oldest first; evicted before policy victims.
     * An intrusive list through the slices: entries join at the newest end and leave from anywhere
     * (eviction, an access that makes them ordinary) in constant time and without allocation.
     */
    private Slice headroomOldest;
    private Slice headroomNewest;
    private int headroomCount;

    /** The stamps of L1 content gains that tell whether a lookup witness still holds. */
    private final ResidencyGains gains;

    L1Space(StoreContext ctx) {
        super(ctx);
        this.pool = new L1Pool(settings.l1CapacityBytes());
        // Slices start at lane multiples of the pool whenever a lane is a whole number of pages.
        this.slicesByPoolOffset = new OffsetTable<>(laneBytes);
        long[] futureUnits = settings.futureReferences();
        long[] futureKeys = futureUnits == null ? null : new long[futureUnits.length];
        for (int i = 0; futureKeys != null && i < futureUnits.length; i++) {
            futureKeys[i] = unitIndex(futureUnits[i]);
        }
        this.policy = Policies.create(settings.policy(), settings.policyOptions(
                Math.max(1, settings.l1CapacityBytes() / laneBytes), futureKeys));
        this.residentByUnit = new DenseUnitMap<>(laneBytes, ctx.unitCount);
        this.gains = new ResidencyGains(ctx.unitCount, index);
    }

    /** A unit gained L1 content (or may have): stamp it for the witnesses (see {@link MixedOrL2Witness}). */
    void residencyGained(long unit) {
        gains.gained(unitIndex(unit));
    }

    /** Counts {@code witness}'s unit as watched until {@link #unwatch}: its gains then bump {@link #watchedResidencyGains()}. */
    void watch(MixedOrL2Witness witness) {
        gains.watch(witness);
    }

    void unwatch(MixedOrL2Witness witness) {
        gains.unwatch(witness);
    }

    /** Gains of L1 content on watched units so far ({@link ResidencyGains#watchedGains}). */
    long watchedResidencyGains() {
        return gains.watchedGains();
    }

    /** Whether {@code witness} still holds (see {@link MixedOrL2Witness}); constant time. */
    boolean witnessHolds(MixedOrL2Witness witness) {
        return gains.witnessHolds(witness);
    }

    /** An access: refresh recency, and a headroom entry that proved useful becomes an ordinary one. */
    void touch(long unit, long groupId, int position) {
        ctx.gate.onHit(unit);
        Slice slice = residentByUnit.get(unit);
        if (slice.headroom) {
            unlinkHeadroom(slice);
            policy.onInsert(unitIndex(unit), groupId, position);
        } else {
            policy.onAccess(unitIndex(unit));
        }
    }

    Slice newSlice(long poolOffset, long unit) {
        Slice slice = new Slice(poolOffset, unit);
        slicesByPoolOffset.put(poolOffset, slice);
        return slice;
    }

    /** Allocates units × laneBytes contiguous bytes, evicting as needed; NO_SPACE means wait. */
    long reserve(int units) {
        long bytes = units * laneBytes;
        long offset = pool.allocate(bytes);
        while (offset == L1Pool.NO_SPACE) {
            if (units > 1 && pool.freeBytes() >= bytes) {
                // Enough bytes but not contiguous: evicting more would only punch more holes.
                // The caller seals the batch here and reserves the rest separately.
                return L1Pool.NO_SPACE;
            }
            if (!evictOne(false)) {
                return L1Pool.NO_SPACE;
            }
            offset = pool.allocate(bytes);
        }
        return offset;
    }

    boolean isEvictable(Slice slice) {
        return slice != null && slice.resident && slice.leaseRefs == 0 && slice.borrowRefs == 0;
    }

    /**
     * Evicts one entry: headroom entries first (oldest first), then the policy's victim. With
     * {@code toFreeMemory} only entries whose eviction returns memory now are taken; otherwise
     * an entry whose bytes are still being written to L2 may leave the index too (its memory
     * returns when the write completes).
     */
    private boolean evictOne(boolean forTrim) {
        boolean freesMemoryOnly = !forTrim;
        for (Slice slice = headroomOldest; slice != null; slice = slice.headroomNewer) {
            if (isEvictable(slice) && (!freesMemoryOnly || evictionFreesMemory(slice))) {
                count(StoreCounter.HEADROOM_EVICTIONS, 1);
                evict(slice);
                return true;
            }
        }
        long victim = policy.selectVictim(key -> {
            Slice slice = residentByUnit.getAt((int) key);
            return isEvictable(slice) && (!freesMemoryOnly || evictionFreesMemory(slice));
        });
        if (victim == ReplacementPolicy.NO_VICTIM) {
            // Write-back: the evicted dirty entry frees its memory now if the filter refused its write.
            return freesMemoryOnly && ctx.gate.hasDirty() && writeBackOneDirty();
        }
        evict(residentByUnit.getAt((int) victim));
        return true;
    }

    /**
     * Write-back, when no clean entry can go: evicts the policy's victim among the dirty entries, which
     * issues its write. Its memory returns when the write lands; the caller waits for that (a
     * reservation that found no space waits for a pending write), so only one is written per try.
     *
     * @return whether the eviction freed memory now (the admission filter refused the write, so the
     *         entry was dropped instead): the caller may allocate at once
     */
    private boolean writeBackOneDirty() {
        long dirty = policy.selectVictim(key -> {
            Slice slice = residentByUnit.getAt((int) key);
            return isEvictable(slice) && ctx.gate.dirtyUntilWrittenBack(slice);
        });
        if (dirty == ReplacementPolicy.NO_VICTIM) {
            return false;
        }
        Slice slice = residentByUnit.getAt((int) dirty);
        evict(slice);
        return slice.freed;
    }

    private boolean evictionFreesMemory(Slice slice) {
        return (slice.pendingWrites == 0 || races.r2ReusePendingWriteSlice) && !ctx.gate.dirtyUntilWrittenBack(slice);
    }

    private void evict(Slice slice) {
        count(StoreCounter.EVICTIONS, 1);
        trace.record("evict", slice.unit, slice.headroom ? 1 : 0);
        ctx.gate.onEvict(slice);
        unpublish(slice);
    }

    void unpublish(Slice slice) {
        ctx.gate.forget(slice.unit);
        residentByUnit.remove(slice.unit, slice);
        if (slice.headroom) {
            unlinkHeadroom(slice);
        } else {
            policy.onRemove(unitIndex(slice.unit));
        }
        slice.resident = false;
        rolesChanged(slice);
    }

    private void appendHeadroom(Slice slice) {
        slice.headroom = true;
        slice.headroomOlder = headroomNewest;
        slice.headroomNewer = null;
        if (headroomNewest == null) {
            headroomOldest = slice;
        } else {
            headroomNewest.headroomNewer = slice;
        }
        headroomNewest = slice;
        headroomCount++;
    }

    private void unlinkHeadroom(Slice slice) {
        if (slice.headroomOlder == null) {
            headroomOldest = slice.headroomNewer;
        } else {
            slice.headroomOlder.headroomNewer = slice.headroomNewer;
        }
        if (slice.headroomNewer == null) {
            headroomNewest = slice.headroomOlder;
        } else {
            slice.headroomNewer.headroomOlder = slice.headroomOlder;
        }
        slice.headroomOlder = null;
        slice.headroomNewer = null;
        slice.headroom = false;
        headroomCount--;
    }

    void publish(Slice slice, boolean asHeadroom, long groupId, int position) {
        Slice old = residentByUnit.get(slice.unit);
        if (old != null && old != slice) {
            unpublish(old);
        }
        residentByUnit.put(slice.unit, slice);
        residencyGained(slice.unit);
        slice.resident = true;
        if (asHeadroom) {
            appendHeadroom(slice);
        } else {
            policy.onInsert(unitIndex(slice.unit), groupId, position);
        }
        rolesChanged(slice);
    }

    /**
     * Save admission: trim L1 to max(one store unit, high_water), evicting headroom entries first.
     * Entries whose L2 write is pending may leave the index; their bytes count as on their way out.
     */
    void trim() {
        long target = Math.max(laneBytes, settings.highWaterBytes());
        while (admissionUsedBytes() > target && evictOne(true)) {
            count(StoreCounter.TRIM_EVICTIONS, 1);
        }
    }

    /** L1 bytes that save admission counts: used bytes minus bytes that are only waiting for their L2 write. */
    long admissionUsedBytes() {
        return pool.usedBytes() - bytesByCategory[Category.PENDING_WRITE_ONLY.ordinal()];
    }

    /** Keeps the per-category byte totals right and returns a slice with no role to the pool. */
    void rolesChanged(Slice slice) {
        if (slice.freed) {
            return;
        }
        Category now = slice.strongestRole();
        if (now == Category.PENDING_WRITE_ONLY && races.r2ReusePendingWriteSlice) {
            // The bug: a slice whose only role is a pending write is treated as free.
            now = Category.NONE;
        }
        if (slice.category != now) {
            // NONE is not a bucket: a new slice enters from it and a freed one leaves to it.
            if (slice.category != Category.NONE) {
                bytesByCategory[slice.category.ordinal()] -= laneBytes;
            }
            if (now != Category.NONE) {
                bytesByCategory[now.ordinal()] += laneBytes;
            }
            slice.category = now;
        }
        if (now == Category.NONE) {
            slice.freed = true;
            slicesByPoolOffset.remove(slice.poolOffset);
            pool.release(slice.poolOffset, laneBytes);
            trace.record("free", slice.poolOffset);
        }
    }

    /** Whether the unit is an ordinary (policy-managed) resident entry, not a headroom one. */
    boolean inPolicy(long unit) {
        return policy.contains(unitIndex(unit));
    }

    /** The resident slice of a unit (by L2 offset), or null: the L1 index. */
    Slice resident(long unit) {
        return residentByUnit.get(unit);
    }

    /** The resident slice of a unit by unit index ({@code lane × slotCount + slot}), or null. */
    Slice residentAt(int unitIndex) {
        return residentByUnit.getAt(unitIndex);
    }

    /** Gains of L1 content so far, on any unit (see {@link MixedOrL2Witness}). */
    long residencyGains() {
        return gains.gains();
    }

    long l1FreeBytes() {
        return pool.freeBytes();
    }

    long l1UsedBytes() {
        return pool.usedBytes();
    }

    boolean isResident(long unit) {
        return residentByUnit.containsKey(unit);
    }

    boolean isHeadroom(long unit) {
        Slice slice = residentByUnit.get(unit);
        return slice != null && slice.headroom;
    }

    int residentCount() {
        return residentByUnit.size();
    }

    // ------------------------------------------------------------------------------------------
    // Invariants. TieredStore.checkInvariants calls these in the order of the one check they were
    // cut from, so the first violation reported (and the hunt's check column) stays the same.
    // ------------------------------------------------------------------------------------------

    /** The pool's own invariants (free ranges sorted, disjoint, adding up). */
    void checkPool() {
        pool.checkInvariants();
    }

    /**
     * The policy's own invariants, then I1 (slices and their byte accounting) and I2 (the L1 index,
     * the headroom queue and the policy partition the resident entries).
     *
     * @return one counter triple per live slice (leases, borrows, pending writes holding it), zero,
     *         for the parts that hold slices to fill in; {@link #checkRoleCounts} compares them (I3)
     */
    Map<Slice, int[]> checkInvariants() {
        policy.checkInvariants();
        Map<Slice, int[]> expectedRefs = checkSlices();
        checkResidentEntries();
        return expectedRefs;
    }

    /** I1: every live slice is one allocation of its own, slices never overlap, categories add up. */
    private Map<Slice, int[]> checkSlices() {
        long[] recount = new long[Category.values().length];
        long previousEnd = -1;
        Map<Slice, int[]> expectedRefs = new HashMap<>();
        List<Slice> slicesInPoolOrder = slicesByPoolOffset.values();
        slicesInPoolOrder.sort(java.util.Comparator.comparingLong(slice -> slice.poolOffset));
        for (Slice slice : slicesInPoolOrder) {
            if (slice.poolOffset < previousEnd) {
                throw new IllegalStateException("I1: slices overlap at pool offset " + slice.poolOffset);
            }
            previousEnd = slice.poolOffset + laneBytes;
            if (pool.overlapsFree(slice.poolOffset, laneBytes)) {
                throw new IllegalStateException("I3: held slice at " + slice.poolOffset + " is on the free list");
            }
            if (slice.category != slice.strongestRole() && !races.r2ReusePendingWriteSlice) {
                throw new IllegalStateException("I1: slice at " + slice.poolOffset + " is accounted as " + slice.category
                        + " but holds " + slice.strongestRole());
            }
            recount[slice.category.ordinal()] += laneBytes;
            expectedRefs.put(slice, new int[3]);
        }
        long accounted = 0;
        for (Category category : Category.values()) {
            if (recount[category.ordinal()] != bytesByCategory[category.ordinal()]) {
                throw new IllegalStateException("I1: " + category + " bytes are " + bytesByCategory[category.ordinal()]
                        + " but slices add up to " + recount[category.ordinal()]);
            }
            accounted += recount[category.ordinal()];
        }
        if (accounted + pool.freeBytes() != pool.capacityBytes()) {
            throw new IllegalStateException("I1: free " + pool.freeBytes() + " + held " + accounted
                    + " != l1CapacityBytes " + pool.capacityBytes());
        }
        return expectedRefs;
    }

    /** I2: the L1 index maps each unit to one resident slice; headroom and policy partition it. */
    private void checkResidentEntries() {
        // The headroom queue first: well linked, and every entry on it a resident headroom slice.
        long headroomLinked = 0;
        Slice older = null;
        for (Slice slice = headroomOldest; slice != null; slice = slice.headroomNewer) {
            if (slice.headroomOlder != older || !slice.headroom || !slice.resident || residentByUnit.get(slice.unit) != slice
                    || ++headroomLinked > headroomCount) {
                throw new IllegalStateException("I2: the headroom queue is broken at unit " + slice.unit);
            }
            older = slice;
        }
        if (older != headroomNewest || headroomLinked != headroomCount) {
            throw new IllegalStateException("I2: the headroom queue links " + headroomLinked + " entries but counts " + headroomCount);
        }
        long headroomSeen = 0;
        for (long unit : residentByUnit.keys()) {
            Slice slice = residentByUnit.get(unit);
            if (!slice.resident || slice.unit != unit || slice.freed) {
                throw new IllegalStateException("I2: L1 index entry for unit " + unit + " is not a live resident slice");
            }
            if (slice.headroom == policy.contains(unitIndex(slice.unit))) {
                throw new IllegalStateException("I2: unit " + slice.unit + " must be in exactly one of headroom and policy");
            }
            if (slice.headroom) headroomSeen++;
        }
        if (headroomSeen != headroomCount || policy.size() + headroomCount != residentByUnit.size()) {
            throw new IllegalStateException("I2: policy (" + policy.size() + ") + headroom (" + headroomCount
                    + ") != resident entries (" + residentByUnit.size() + ")");
        }
    }

    /**
     * I3: each live slice's role counts agree with the leases, loads and writes that hold it, as
     * tallied into {@code expectedRefs} (leases, borrows, pending writes).
     */
    void checkRoleCounts(Map<Slice, int[]> expectedRefs) {
        for (Map.Entry<Slice, int[]> entry : expectedRefs.entrySet()) {
            Slice slice = entry.getKey();
            int[] refs = entry.getValue();
            if (slice.leaseRefs != refs[0] || slice.borrowRefs != refs[1]) {
                throw new IllegalStateException("I3: slice at " + slice.poolOffset + " counts " + slice.leaseRefs
                        + " leases/" + slice.borrowRefs + " borrows but is held by " + refs[0] + "/" + refs[1]);
            }
            if (!races.r2ReusePendingWriteSlice && slice.pendingWrites != refs[2]) {
                throw new IllegalStateException("I3: slice at " + slice.poolOffset + " counts " + slice.pendingWrites
                        + " pending writes but " + refs[2] + " writes read from it");
            }
        }
    }

    /** I9: never more than the pool. */
    void checkCapacity() {
        if (pool.usedBytes() > settings.l1CapacityBytes()) {
            throw new IllegalStateException("I9: L1 used " + pool.usedBytes() + " > capacity");
        }
    }

    /** I10: bytes still reserved, leased, borrowed or waiting for a write, for {@link TieredStore#leftovers}. */
    void leftovers(List<String> left) {
        long reserved = bytesByCategory[Category.RESERVED.ordinal()];
        if (reserved != 0) left.add(reserved + " reserved bytes");
        long leased = bytesByCategory[Category.LEASED_ONLY.ordinal()];
        if (leased != 0) left.add(leased + " leased-only bytes");
        long borrowed = bytesByCategory[Category.BORROWED_ONLY.ordinal()];
        if (borrowed != 0) left.add(borrowed + " borrowed-only bytes");
        long pending = bytesByCategory[Category.PENDING_WRITE_ONLY.ordinal()];
        if (pending != 0) left.add(pending + " pending-write-only bytes");
    }
}
