package tierlab.model.store;

import tierlab.model.KnownBug;

/**
 * The store's ablation switches, read once from {@link StoreSettings#knownBugs()} and handed to
 * every part of the store. Each switch re-introduces the race its fix removed ({@link KnownBug}
 * describes them); all are off by default. One named field per race, so a part reads
 * {@code races.r8ReleaseBorrowOnCancel} on its hot path instead of looking a bug up by enum.
 *
 * <p>R13 (the prefetch bound) is a race of the scheduler, not of the store, so it has no switch here.
 */
final class RaceSwitches {
    /** R1: a promotion completing after a newer store overlapped its range is published anyway. */
    final boolean r1PublishStalePromotion;
    /** R2: a slice whose only role is a pending L2 write counts as free and may be reused. */
    final boolean r2ReusePendingWriteSlice;
    /** R3: a write to a range with a pending write is issued at once instead of chained after it. */
    final boolean r3UnchainedOverlappingWrites;
    /** R4: a store publishes without waiting for leases that overlap its range. */
    final boolean r4StoreIgnoresLeases;
    /** R5: leases are created without the admission bound on their total bytes. */
    final boolean r5NoLeaseAdmission;
    /** R6: overlapping promotions each read L2 into their own slice. */
    final boolean r6NoSingleFlight;
    /** R7: a failed or cancelled promotion keeps its reservation and does not wake its waiters. */
    final boolean r7LeakFailedPromotion;
    /** R8: a cancelled load returns its borrowed slices before the GPU copy completes. */
    final boolean r8ReleaseBorrowOnCancel;
    /** R9: one failed read in a batch surfaces at once and frees the other reads' buffers. */
    final boolean r9SurfaceBatchErrorEarly;
    /** R10: a preempted request's queued saves still run. */
    final boolean r10SaveAfterPreempt;
    /** R11: a store or commit for slots the ring re-allocated since is written over the new owner. */
    final boolean r11WriteToReallocatedSlot;
    /** R12: a block becomes visible when its first tp lane commits instead of its last. */
    final boolean r12VisibleBeforeAllLanes;
    /** W1: a promotion does not wait for a write-back in flight on its range. */
    final boolean w1PromoteDuringWriteBack;
    /** P1: a prefetch stop leaves its unarrived units waiting on their promotions, which publish into it later. */
    final boolean p1ServeReadAfterStop;

    RaceSwitches(StoreSettings settings) {
        this.r1PublishStalePromotion = settings.has(KnownBug.R1_PUBLISH_STALE_PROMOTION);
        this.r2ReusePendingWriteSlice = settings.has(KnownBug.R2_REUSE_PENDING_WRITE_SLICE);
        this.r3UnchainedOverlappingWrites = settings.has(KnownBug.R3_UNCHAINED_OVERLAPPING_WRITES);
        this.r4StoreIgnoresLeases = settings.has(KnownBug.R4_STORE_IGNORES_LEASES);
        this.r5NoLeaseAdmission = settings.has(KnownBug.R5_NO_LEASE_ADMISSION);
        this.r6NoSingleFlight = settings.has(KnownBug.R6_NO_SINGLE_FLIGHT);
        this.r7LeakFailedPromotion = settings.has(KnownBug.R7_LEAK_FAILED_PROMOTION);
        this.r8ReleaseBorrowOnCancel = settings.has(KnownBug.R8_RELEASE_BORROW_ON_CANCEL);
        this.r9SurfaceBatchErrorEarly = settings.has(KnownBug.R9_SURFACE_BATCH_ERROR_EARLY);
        this.r10SaveAfterPreempt = settings.has(KnownBug.R10_SAVE_AFTER_PREEMPT);
        this.r11WriteToReallocatedSlot = settings.has(KnownBug.R11_WRITE_TO_REALLOCATED_SLOT);
        this.r12VisibleBeforeAllLanes = settings.has(KnownBug.R12_VISIBLE_BEFORE_ALL_LANES);
        this.w1PromoteDuringWriteBack = settings.has(KnownBug.W1_PROMOTE_DURING_WRITE_BACK);
        this.p1ServeReadAfterStop = settings.has(KnownBug.P1_SERVE_READ_AFTER_STOP);
    }
}
