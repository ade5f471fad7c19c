package tierlab.model;

/**
 * Ablation switches for the races the reference system fixed (docs/tiered-store.md section 7). Each
 * switch re-introduces exactly the bug its fix removed; all are off by default. Property tests
 * turn them on one at a time to prove that the property for that race can fail, and experiment
 * E6 measures what each fix buys.
 */
public enum KnownBug {
    /** A promotion completing after a newer store overlapped its range is published anyway. */
    R1_PUBLISH_STALE_PROMOTION,
    /** A slice that is the source of a pending L2 write may be evicted and reused before the write completes. */
    R2_REUSE_PENDING_WRITE_SLICE,
    /** A write to a range with a pending write is issued at once instead of chained after it. */
    R3_UNCHAINED_OVERLAPPING_WRITES,
    /** A store publishes without waiting for leases that overlap its range. */
    R4_STORE_IGNORES_LEASES,
    /** Leases are created without the admission bound on their total bytes. */
    R5_NO_LEASE_ADMISSION,
    /** Overlapping promotions each read L2 into their own slice instead of sharing one read. */
    R6_NO_SINGLE_FLIGHT,
    /** A failed or cancelled promotion keeps its reservation and does not wake its waiters. */
    R7_LEAK_FAILED_PROMOTION,
    /** A cancelled load returns its borrowed slices before the GPU copy completes. */
    R8_RELEASE_BORROW_ON_CANCEL,
    /** One failed read in a batch surfaces at once and frees the other reads' buffers while they are in flight. */
    R9_SURFACE_BATCH_ERROR_EARLY,
    /** A preempted request's queued saves still run, copying GPU blocks the engine has reused. */
    R10_SAVE_AFTER_PREEMPT,
    /** A store or commit for slots the ring re-allocated since is written over the new owner. */
    R11_WRITE_TO_REALLOCATED_SLOT,
    /** A block becomes visible when its first tp lane commits instead of its last. */
    R12_VISIBLE_BEFORE_ALL_LANES,
    /** The prefetch bound is read once per admission pass, so one pass can start more prefetches than allowed. */
    R13_STALE_PREFETCH_BOUND,
    /**
     * Write-back (not a race of the reference system, which writes through; docs/policies.md, "Races of
     * the write policies"): a promotion of a range whose write-back is still in flight reads L2 at once
     * instead of waiting for that write, and so reads bytes that were never written there.
     */
    W1_PROMOTE_DURING_WRITE_BACK,
    /**
     * Prefetch stop policies (not a race of the reference system, which always waits; docs/policies.md,
     * "Prefetch stop policies"): when a request stops waiting for its prefetch, the units that had not
     * arrived stop counting as leased but stay waiters of their promotions, so a read completing after
     * the stop is attached to (and pins a slice for) a lease that no longer wants it.
     */
    P1_SERVE_READ_AFTER_STOP;

    /** The race id as the spec names it, e.g. {@code R4} (or {@code W1} for the write policies' races, {@code P1} for the prefetch stop's). */
    public String raceId() {
        return name().substring(0, name().indexOf('_'));
    }
}
