package tierlab.model.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.PayloadLedger;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;
import tierlab.model.l2.L2Snapshot;
import tierlab.model.store.L1Space.Slice;
import tierlab.model.store.L2Writes.WriteOp;
import tierlab.model.store.Loads.Load;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.Promotions.Promotion;
import tierlab.model.store.SavePipeline.StoreBatch;
import tierlab.model.trace.DecisionTrace;

/**
 * The control plane of the tiered KV store: which bytes live where, who may touch them, and in
 * what order (docs/tiered-store.md sections 2–5).
 *
 * <p>The store never blocks, never reads a clock and never does I/O. Callers drive it with
 * method calls and {@link IoCompletion}s; it answers with values, with {@link IoOp} records in
 * its outbox ({@link #drainOps()}) and with {@link StoreEvent}s ({@link #drainEvents()}).
 * Anything that must wait (a promotion for L1 space, a store for a lease, a write for the write
 * before it) is kept as state here and resumed by the event that releases it.
 *
 * <p>Granularity: every L1 entry, lease range and I/O is a multiple of one <em>unit</em>, the
 * lane of one block in one L2 slot ({@link Geometry} draws the layout). A unit is named by its
 * L2 byte offset, which is also the replacement policy's key.
 *
 * <p>This class is the facade the serving engine and the runtimes call; the work is done by its
 * parts, which share one {@link StoreContext}: {@link L1Space} (pool, slices, headroom, policy,
 * trim), {@link Leases} (lookup and leases), {@link HitClasses} (the walks for parked requests), {@link Promotions} (L2 → L1), {@link Loads}
 * (L1 → GPU), {@link SavePipeline} (store queue, staging, commits), {@link L2Writes} (write
 * chaining), {@link L2WriteGate} (write policy and admission filter) and {@link Recovery}
 * (snapshot, restore, journal). Tests and the race hunt read the
 * insides only through {@link #testView()}.
 */
public final class TieredStore {

    /** The result of {@link #acquire}: the lease is ready, is being promoted, or must wait for admission. */
    public enum AcquireOutcome { READY, PROMOTING, ADMISSION_WAIT, NOTHING_TO_ACQUIRE }

    /** The result of {@link #load}. */
    public enum LoadOutcome { STARTED, NO_LEASE, LEASE_NOT_READY, ALREADY_LOADING }

    /** The result of {@link #enqueueSave}: how many blocks it will store. */
    public record SaveOutcome(int blocksQueued, int blocksAlreadyPresent, int blocksConflicting) {}

    /**
     * Evidence that {@link #classify} answers MIXED or L2 for a chain: the first block inside the
     * capped hit with a lane not resident in L1 ({@code unitIndex}), and the counters when it was
     * found. It holds while no L2 entry has been removed (every block up to it is still visible,
     * so it is still inside the hit) and that unit has gained no L1 content (so it is still
     * missing); nothing else can turn the answer into L1 or MISS. {@link #witnessHolds} checks
     * that in constant time, which spares re-walking the chains of a long parked queue on every
     * admission pass.
     */
    public record MixedOrL2Witness(long computedTokens, int unitIndex, long residencyGainsAt, long indexRemovalsAt) {}

    private final StoreContext ctx;
    private final L1Space space;
    private final Leases leases;
    private final HitClasses hitClasses;
    private final Promotions promotions;
    private final Loads loads;
    private final SavePipeline saves;
    private final L2Writes writes;
    private final L2WriteGate gate;
    private final Recovery recovery;
    private final StoreTestView testView;

    public TieredStore(StoreSettings settings) {
        this(settings, new DecisionTrace());
    }

    /** A store over a private, empty L2 pool of {@code settings}' size. */
    public TieredStore(StoreSettings settings, DecisionTrace trace) {
        this(settings, trace, L2Pool.empty(settings));
    }

    /**
     * A store serving from {@code l2}, created outside (empty, or restored from a snapshot with
     * {@link L2Pool#restore}). A pool of another size or geometry than {@code settings}' is refused
     * with a message naming both.
     */
    public TieredStore(StoreSettings settings, DecisionTrace trace, L2Pool l2) {
        this.ctx = new StoreContext(settings, trace, l2);
        this.space = ctx.space = new L1Space(ctx);
        this.leases = ctx.leases = new Leases(ctx);
        this.hitClasses = new HitClasses(ctx);
        this.promotions = ctx.promotions = new Promotions(ctx);
        this.loads = ctx.loads = new Loads(ctx);
        this.saves = ctx.saves = new SavePipeline(ctx);
        this.writes = ctx.writes = new L2Writes(ctx);
        this.gate = ctx.gate = new L2WriteGate(ctx);
        this.recovery = ctx.recovery = new Recovery(ctx);
        this.testView = new StoreTestView(ctx);
    }

    // ------------------------------------------------------------------------------------------
    // Recovery: snapshot, restore, journal
    // ------------------------------------------------------------------------------------------

    /**
     * Builds a store whose L2 index and ring come from a snapshot taken by {@link #snapshot()}. A
     * snapshot of a different geometry or capacity is refused with a message naming the mismatch.
     */
    public static TieredStore restore(StoreSettings settings, L2Snapshot snapshot, DecisionTrace trace) {
        return new TieredStore(settings, trace, L2Pool.restore(settings, snapshot));
    }

    /**
     * Recovery after a crash: the index and ring from the last snapshot, minus every entry on a
     * slot that was allocated after it (the journal of allocations since the snapshot says which):
     * those slots may hold newer bytes than the snapshot's keys, so their keys are dropped rather
     * than trusted. A real deployment appends each allocation to a small journal beside the index;
     * that append is what {@link #allocationsSince} stands for.
     */
    public static TieredStore recover(StoreSettings settings, L2Snapshot snapshot, List<L2Ring.Run> allocatedSince,
                                      DecisionTrace trace) {
        TieredStore store = restore(settings, snapshot, trace);
        store.recovery.forgetSlotsAllocatedSince(allocatedSince);
        store.ctx.trace.record("recover", snapshot.nextRunId(), allocatedSince.size());
        return store;
    }

    /** Runs allocated with an id at or after {@code firstRunId}, oldest first: the allocation journal. */
    public List<L2Ring.Run> allocationsSince(long firstRunId) {
        return recovery.allocationsSince(firstRunId);
    }

    /** The L2 index and ring as data; only committed keys are kept. */
    public L2Snapshot snapshot() {
        return recovery.snapshot();
    }

    /** The L2 pool this store serves from. */
    public L2Pool l2Pool() {
        return ctx.l2;
    }

    /** What a fleet's router sees of this store for {@code chain} ({@link StoredPrefix}); changes nothing. */
    public StoredPrefix storedPrefix(List<BlockKey> chain) {
        return hitClasses.storedPrefix(chain);
    }

    /** This store's index among its pool's members (0 in a private pool). */
    public int poolMember() {
        return ctx.poolMember;
    }

    /**
     * Moves on whatever waits for space, leases or writes: a runtime calls it when another store of a
     * shared pool changed this one ({@link L2Pool#takeWoken}), then drains the operations as after any call.
     */
    public void resumeWaiting() {
        ctx.pump();
    }

    // ------------------------------------------------------------------------------------------
    // Lookup and leases
    // ------------------------------------------------------------------------------------------

    /**
     * Walks the request's chain from its first uncomputed block over committed keys, classifies
     * the hit and, for an L1 hit, takes the lease in the same step (section 4).
     *
     * @param chain          the prompt's full-block keys, block 0 first
     * @param computedTokens tokens the engine already has (the walk starts after them)
     * @param promptTokens   prompt length; a hit covering the whole prompt is capped one token short
     */
    public LookupResult lookup(long requestId, List<BlockKey> chain, long computedTokens, long promptTokens, long nowNs) {
        return leases.lookup(requestId, chain, computedTokens, promptTokens, nowNs);
    }

    /**
     * The class a lookup would return now, without building its result or taking a lease: the
     * scheduler asks this for requests the prefetch bound would park anyway, so a long queue of
     * parked requests is not fully looked up on every pass. Same walk and cap as {@link #lookup}.
     */
    public HitClass classify(List<BlockKey> chain, long computedTokens, long promptTokens) {
        return hitClasses.classify(chain, computedTokens, promptTokens);
    }

    /**
     * A witness that {@code classify(chain, computedTokens, promptTokens)} is MIXED or L2, or null
     * when it is L1 or MISS. The same walk and cap as {@link #classify}, stopping at the first
     * counted block with a lane missing from L1.
     */
    public MixedOrL2Witness mixedOrL2Witness(List<BlockKey> chain, long computedTokens, long promptTokens) {
        return hitClasses.mixedOrL2Witness(chain, computedTokens, promptTokens);
    }

    /** Counts {@code witness}'s unit as watched until {@link #unwatch}: its gains then bump {@link #watchedResidencyGains()}. */
    public void watch(MixedOrL2Witness witness) {
        space.watch(witness);
    }

    public void unwatch(MixedOrL2Witness witness) {
        space.unwatch(witness);
    }

    /**
     * Gains of L1 content on watched units so far. While this and {@link #indexRemovals()} are
     * unchanged, every watched witness that held still holds.
     */
    public long watchedResidencyGains() {
        return space.watchedResidencyGains();
    }

    /** L2 index entries removed so far (see {@link tierlab.model.l2.L2Index#removals()}). */
    public long indexRemovals() {
        return ctx.index.removals();
    }

    /** Whether {@code witness} still holds (see {@link MixedOrL2Witness}); constant time. */
    public boolean witnessHolds(MixedOrL2Witness witness) {
        return space.witnessHolds(witness);
    }

    /**
     * Takes a lease on every unit of a hit: resident units are pinned at once, missing ones are
     * promoted from L2 under the lease (a prefetch, or the synchronous path of a load when
     * prefetch is off). Completion is reported with {@link StoreEvent.AcquireDone}.
     */
    public AcquireOutcome acquire(long requestId, LookupResult hit, long nowNs) {
        return leases.acquire(requestId, hit, nowNs);
    }

    /**
     * What {@link #stopAcquire} kept of a lease being acquired.
     *
     * @param keptBlocks        leading blocks of the hit whose every lane arrived (0: the lease was released whole)
     * @param keptResidentUnits of the kept units, those that were already in L1 (not promoted for this lease)
     * @param failedRead        the first unit not kept had failed to read (else it had not arrived yet)
     */
    public record StoppedAcquire(int keptBlocks, int keptResidentUnits, boolean failedRead) {}

    /**
     * A prefetch stop policy gives up waiting for a lease still being acquired: the leading blocks
     * whose every lane is held stay leased, the rest is released (its promotions cancelled unless
     * another lease waits for them; a read landing later is dropped, not served to this request).
     * No {@link StoreEvent.AcquireDone} follows.
     */
    public StoppedAcquire stopAcquire(long requestId, long nowNs) {
        return leases.stopAcquire(requestId, nowNs);
    }

    /**
     * Releases a request's lease (finish, preemption, abort, shutdown). While its load is copying,
     * the lease is only marked release-all and finishes when the copy ends, so borrowed slices
     * are never reused under a copy (R8).
     */
    public void releaseLease(long requestId, long nowNs) {
        leases.releaseLease(requestId, nowNs);
    }

    // ------------------------------------------------------------------------------------------
    // Loads and saves
    // ------------------------------------------------------------------------------------------

    /**
     * Copies every unit of the request's (fully held) lease to the GPU in one grouped copy that
     * borrows the slices until it completes.
     *
     * @param gpuBlockIds the GPU block receiving each loaded block, in hit order
     */
    public LoadOutcome load(long requestId, List<Long> gpuBlockIds, long nowNs) {
        return loads.load(requestId, gpuBlockIds, nowNs);
    }

    /**
     * Queues the save of a request's blocks {@code [firstBlock, firstBlock + blockCount)}. Blocks
     * already present are skipped (first writer wins); the rest get contiguous L2 slots now, and
     * go through the FIFO store queue: wait for overlapping leases, reserve L1, stage from the GPU
     * (bounded by {@code stagingSlots}), re-check leases, commit and write to L2.
     *
     * @param gpuBlockIds GPU block holding each of the blocks, in order
     */
    public SaveOutcome enqueueSave(long requestId, List<BlockKey> chain, int firstBlock, int blockCount,
                                   List<Long> gpuBlockIds, long nowNs) {
        return saves.enqueueSave(requestId, chain, firstBlock, blockCount, gpuBlockIds, nowNs);
    }

    /**
     * Preemption: the engine is about to reuse the request's GPU blocks, so saves that have not
     * started copying are cancelled (their claims leave the index; the ring reclaims the slots).
     * Copies already in flight finish; {@link StoreEvent.SaveStaged} says when the blocks are free.
     *
     * @return true if a staging copy is still in flight and the GPU blocks must wait for SaveStaged
     */
    public boolean cancelSaves(long requestId, long nowNs) {
        return saves.cancelSaves(requestId, nowNs);
    }

    /** True while a save of the request cancelled by a preemption still has a staging copy reading its old GPU blocks. */
    public boolean cancelledStagingInFlight(long requestId) {
        return saves.cancelledStagingInFlight(requestId);
    }

    // ------------------------------------------------------------------------------------------
    // Driving
    // ------------------------------------------------------------------------------------------

    /** Delivers a backend completion. Unknown tickets are a caller bug. */
    public void onCompletion(IoCompletion completion, long nowNs) {
        Object work = ctx.inflightByTicket.remove(completion.ticket());
        if (work == null) {
            throw new IllegalStateException("completion for unknown ticket " + completion.ticket());
        }
        ctx.trace.record("complete", completion.ticket(), completion.succeeded() ? 1 : 0);
        switch (work) {
            case Promotion promotion -> promotions.onPromotionRead(promotion, completion);
            case WriteOp write -> writes.onWriteDone(write, completion);
            case Load load -> loads.onLoadCopied(load, completion);
            case StoreBatch batch -> saves.onStaged(batch, completion);
            default -> throw new IllegalStateException("unexpected in-flight work " + work);
        }
        ctx.pump();
    }

    /** Operations emitted since the last call, in emission order. */
    public List<IoOp> drainOps() {
        if (ctx.outbox.isEmpty()) {
            // Asked after every event and usually empty: no list allocated for nothing.
            return List.of();
        }
        List<IoOp> ops = new ArrayList<>(ctx.outbox);
        ctx.outbox.clear();
        return ops;
    }

    /** Events since the last call, in order. */
    public List<StoreEvent> drainEvents() {
        if (ctx.events.isEmpty()) {
            return List.of();
        }
        List<StoreEvent> drained = new ArrayList<>(ctx.events);
        ctx.events.clear();
        return drained;
    }

    /** Ticket numbers are shared with the scheduler so every op in a run has a distinct ticket. */
    public long newTicket() {
        return ctx.nextTicket();
    }

    // ------------------------------------------------------------------------------------------
    // Queries
    // ------------------------------------------------------------------------------------------

    public long counter(StoreCounter counter) {
        return ctx.counters[counter.ordinal()];
    }

    public StoreSettings settings() {
        return ctx.settings;
    }

    public DecisionTrace trace() {
        return ctx.trace;
    }

    public long l1UsedBytes() {
        return space.l1UsedBytes();
    }

    /** L1 bytes that save admission counts: used bytes minus bytes that are only waiting for their L2 write. */
    public long admissionUsedBytes() {
        return space.admissionUsedBytes();
    }

    public int residentCount() {
        return space.residentCount();
    }

    public long leasedRemainingBytes() {
        return leases.leasedRemainingBytes();
    }

    public boolean hasLease(long requestId) {
        return leases.hasLease(requestId);
    }

    public int leaseCount() {
        return leases.leaseCount();
    }

    public int storeQueueDepth() {
        return saves.storeQueueDepth();
    }

    /**
     * Save work in flight: staging copies GPU→L1 and L2 writes. Their completions are what can move a
     * queued save on without anything else happening (a write frees the L1 space a reservation waits
     * for; a landed copy frees a staging slot), so a step held for its saves ({@code saveTiming: in-step})
     * waits only while this is above zero.
     */
    public int saveWorkInFlight() {
        return saves.stagingCopiesInFlight() + writes.writesInFlight();
    }

    public int inflightOps() {
        return ctx.inflightByTicket.size();
    }

    /** Dead L2 bytes: committed blocks no lookup can reach because an ancestor was evicted. */
    public long deadL2Bytes() {
        return ctx.index.deadSlotCount() * ctx.geometry.blockBytes();
    }

    /**
     * I7 after quiescence: the units of visible L2 entries whose bytes in {@code ledger} are not
     * their key's (0 when I7 holds). Call only when no write is in flight.
     */
    public long l2Disagreements(PayloadLedger ledger) {
        if (gate.unwrittenCount() == 0) {
            return ledger.l2Disagreements(ctx.index.visibleRecords(), ctx.tp, ctx::unitOffset);
        }
        // Units not written yet (write-back, write-after-hits, refused by the filter) live in L1 only:
        // their L1 copy is checked instead, and their entries' written lanes on L2.
        List<L2Index.EntryRecord> written = new ArrayList<>();
        for (L2Index.EntryRecord record : ctx.index.visibleRecords()) {
            boolean anyUnwritten = false;
            for (int lane = 0; lane < ctx.tp; lane++) {
                anyUnwritten |= gate.isUnwritten(ctx.unitOffset(record.slot(), lane));
            }
            if (!anyUnwritten) {
                written.add(record);
            }
        }
        return ledger.l2Disagreements(written, ctx.tp, ctx::unitOffset) + gate.l1Disagreements(ledger);
    }

    /** Units committed and resident in L1 but not (yet) written to L2: the dirty ones a crash loses. */
    public int unwrittenUnits() {
        return gate.unwrittenCount();
    }

    /**
     * I10's end state: no lease, reservation, pending write, borrow, queued store or in-flight
     * operation is left. Returns what is left, or an empty list.
     */
    public List<String> leftovers() {
        List<String> left = new ArrayList<>();
        leases.leftovers(left);
        if (ctx.inflightByTicket.size() > 0) left.add(ctx.inflightByTicket.size() + " in-flight operations");
        promotions.leftovers(left);
        saves.leftovers(left);
        writes.leftovers(left);
        space.leftovers(left);
        return left;
    }

    /** The read-only view of the store's insides for tests, harnesses and the race hunt; nothing a run decides by. */
    public StoreTestView testView() {
        return testView;
    }

    // ------------------------------------------------------------------------------------------
    // Invariants I1–I4, I9, R4, R6 (I5 is the scheduler's; I6–I8 are checked against payloads)
    // ------------------------------------------------------------------------------------------

    /**
     * Throws IllegalStateException naming the invariant when the store's state is inconsistent.
     * Each part checks its own; the order is that of the single check they were cut from, so the
     * first violation reported is the same: the pool, ring, index and policy structures, I1, I2,
     * the leases (lease counts, R4, I3 of held and borrowed slices, I4), I3's role counts, R6, I9.
     */
    public void checkInvariants() {
        space.checkPool();
        ctx.l2.checkInvariants();
        Map<Slice, int[]> expectedRefs = space.checkInvariants();
        leases.checkInvariants(expectedRefs);
        writes.tallyPendingWrites(expectedRefs);
        space.checkRoleCounts(expectedRefs);
        promotions.checkInvariants();
        space.checkCapacity();
        gate.checkInvariants();
        // The save work a held engine step waits on is counted, not looked up: it is part of what is in flight.
        int stagingCopies = saves.stagingCopiesInFlight();
        int l2Writes = writes.writesInFlight();
        if (stagingCopies < 0 || l2Writes < 0 || stagingCopies > ctx.settings.stagingSlots()
                || stagingCopies + l2Writes > ctx.inflightByTicket.size()) {
            throw new IllegalStateException("save work in flight: " + stagingCopies + " staging copies (of "
                    + ctx.settings.stagingSlots() + " slots) and " + l2Writes + " L2 writes, but " + ctx.inflightByTicket.size()
                    + " operations in flight");
        }
    }
}
