package tierlab.model.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.l1.L1Pool;
import tierlab.model.l2.L2Index;
import tierlab.model.store.L1Space.Slice;
import tierlab.model.store.L2Writes.WriteOp;
import tierlab.model.store.Leases.Lease;
import tierlab.model.store.Leases.LeaseUnit;
import tierlab.model.store.Leases.UnitState;

/**
 * Promotions (L2 → L1): single-flight reads shared by every lease that wants a unit, reservation
 * of L1 space in FIFO order, waiting for a pending write of the range to land, batching of ready
 * reads, and the outcome of each read: published, stale (a newer store overlapped it), failed or
 * cancelled. Invariant R6 (single flight).
 */
final class Promotions extends StorePart {

    enum PromotionState { WAIT_SPACE, WAIT_WRITE, READY, READING }

    static final class Promotion {
        final long promotionId;
        final long unit;
        final List<LeaseUnit> waiters = new ArrayList<>();
        PromotionState state = PromotionState.WAIT_SPACE;
        /** Stores with a newer epoch than this make the read stale: min(epoch at reservation, waiters' lookups). */
        long epochBaseline = Long.MAX_VALUE;
        /** Ablation R7: the cancelled read keeps its reservation when it lands. */
        boolean leakOnCompletion;
        Slice slice;
        ReadBatch batch;
        boolean cancelled;
        boolean countedWait;

        Promotion(long promotionId, long unit) {
            this.promotionId = promotionId;
            this.unit = unit;
        }
    }

    static final class ReadBatch {
        final long batchId;
        int outstanding;

        ReadBatch(long batchId) {
            this.batchId = batchId;
        }
    }

    private final DenseUnitMap<Promotion> promotionByUnit;
    private final ArrayDeque<Promotion> promotionsWaitingForSpace = new ArrayDeque<>();

    /** By unit: promotions that read a range only after its pending writes land. */
    private final DenseUnitMap<List<Promotion>> promotionsWaitingForWrite;
    private final List<Promotion> readyReads = new ArrayList<>();

    Promotions(StoreContext ctx) {
        super(ctx);
        this.promotionByUnit = new DenseUnitMap<>(laneBytes, ctx.unitCount);
        this.promotionsWaitingForWrite = new DenseUnitMap<>(laneBytes, ctx.unitCount);
    }

    void startPromotion(LeaseUnit leaseUnit) {
        Promotion inFlight = promotionByUnit.get(leaseUnit.unit);
        if (inFlight != null && !races.r6NoSingleFlight) {
            // Single flight: one L2 read, one slice, shared by every lease that wants the range.
            inFlight.waiters.add(leaseUnit);
            inFlight.epochBaseline = Math.min(inFlight.epochBaseline, leaseUnit.epochAtLookup);
            leaseUnit.promotion = inFlight;
            count(StoreCounter.PROMOTIONS_JOINED, 1);
            trace.record("promotion-join", inFlight.promotionId, leaseUnit.lease.leaseId);
            return;
        }
        Promotion promotion = new Promotion(ctx.nextId(), leaseUnit.unit);
        promotion.waiters.add(leaseUnit);
        promotion.epochBaseline = leaseUnit.epochAtLookup;
        leaseUnit.promotion = promotion;
        promotionByUnit.putIfAbsent(leaseUnit.unit, promotion);
        count(StoreCounter.PROMOTIONS_STARTED, 1);
        trace.record("promotion", promotion.promotionId, leaseUnit.unit, leaseUnit.lease.leaseId);
        promotionsWaitingForSpace.addLast(promotion);
    }

    /** Reserves space for waiting promotions in FIFO order; stops at the first that must wait. */
    boolean reserveWaitingPromotions() {
        boolean progress = false;
        while (!promotionsWaitingForSpace.isEmpty()) {
            Promotion promotion = promotionsWaitingForSpace.peekFirst();
            long offset = ctx.space.reserve(1);
            if (offset == L1Pool.NO_SPACE) {
                if (!promotion.countedWait) {
                    promotion.countedWait = true;
                    count(StoreCounter.PROMOTION_RESERVATION_WAITS, 1);
                    trace.record("promotion-wait-space", promotion.promotionId);
                }
                return progress;
            }
            promotionsWaitingForSpace.pollFirst();
            progress = true;
            Slice slice = ctx.space.newSlice(offset, promotion.unit);
            slice.reserved = true;
            ctx.space.rolesChanged(slice);
            promotion.slice = slice;
            promotion.epochBaseline = Math.min(promotion.epochBaseline, ctx.l2.storeEpoch());
            trace.record("promotion-reserve", promotion.promotionId, offset, promotion.epochBaseline);
            if (ctx.writes.readMustWait(promotion.unit)) {
                // The newest bytes of this range are still on their way to L2: read after the write lands.
                promotion.state = PromotionState.WAIT_WRITE;
                List<Promotion> waiting = promotionsWaitingForWrite.get(promotion.unit);
                if (waiting == null) {
                    waiting = new ArrayList<>();
                    promotionsWaitingForWrite.put(promotion.unit, waiting);
                }
                waiting.add(promotion);
            } else {
                promotion.state = PromotionState.READY;
                readyReads.add(promotion);
            }
        }
        return progress;
    }

    /** Groups the reads that became ready in this step into batches of at most ringCount reads. */
    void flushReadyReads() {
        if (readyReads.isEmpty()) {
            return;
        }
        int batchLimit = settings.batchL2Reads() ? settings.ringCount() : 1;
        long maxBatchBytes = settings.l1CapacityBytes();
        int i = 0;
        while (i < readyReads.size()) {
            int end = i;
            long bytes = 0;
            while (end < readyReads.size() && end - i < batchLimit && bytes + laneBytes <= maxBatchBytes) {
                bytes += laneBytes;
                end++;
            }
            ReadBatch batch = new ReadBatch(ctx.nextId());
            count(StoreCounter.L2_READ_BATCHES, 1);
            for (int j = i; j < end; j++) {
                Promotion promotion = readyReads.get(j);
                promotion.batch = batch;
                promotion.state = PromotionState.READING;
                batch.outstanding++;
                long ticket = ctx.nextTicket();
                inflightByTicket.put(ticket, promotion);
                emit(new IoOp.L2Read(ticket, promotion.unit, laneBytes, promotion.slice.poolOffset, batch.batchId, end - i));
                count(StoreCounter.L2_READ_OPS, 1);
                count(StoreCounter.L2_READ_BYTES, laneBytes);
            }
            i = end;
        }
        readyReads.clear();
    }

    void onPromotionRead(Promotion promotion, IoCompletion completion) {
        promotion.batch.outstanding--;
        promotionByUnit.remove(promotion.unit, promotion);
        if (promotion.cancelled) {
            // Nobody wants the bytes any more; the slice was kept reserved until the read landed.
            if (promotion.slice != null && !promotion.slice.freed && !promotion.leakOnCompletion) {
                promotion.slice.reserved = false;
                ctx.space.rolesChanged(promotion.slice);
            }
            trace.record("promotion-drop-cancelled", promotion.promotionId);
            return;
        }
        if (!completion.succeeded()) {
            failPromotion(promotion);
            return;
        }
        Slice slice = promotion.slice;
        Slice residentNow = ctx.space.resident(promotion.unit);
        long lastStore = ctx.l2.unitEpoch(unitIndex(promotion.unit));
        // The epoch only moves when a store commits. Between the ring evicting a run and the new
        // owner's commit (which may be waiting for a lease on this very unit), the read returns the
        // evicted key's bytes with no newer epoch: publishing them would put a slice at a unit that
        // no longer belongs to that key, over the old slice another lease may still hold (R4).
        boolean stale = residentNow != null || lastStore > promotion.epochBaseline || !everyWaiterIndexed(promotion);
        if (stale && !races.r1PublishStalePromotion) {
            count(StoreCounter.PROMOTIONS_STALE, 1);
            trace.record("promotion-stale", promotion.promotionId, lastStore, promotion.epochBaseline);
            slice.reserved = false;
            ctx.space.rolesChanged(slice);
            for (LeaseUnit waiter : new ArrayList<>(promotion.waiters)) {
                resolveStaleWaiter(waiter);
            }
            return;
        }
        // Attach to every lease first, then publish, so the publish's own eviction cannot take it.
        slice.reserved = false;
        slice.content = promotion.waiters.get(0).expected;
        ctx.space.residencyGained(slice.unit);
        for (LeaseUnit waiter : promotion.waiters) {
            ctx.leases.attach(waiter, slice);
            waiter.viaPromotion = true;
            waiter.lease.promotingUnits--;
        }
        ctx.space.publish(slice, settings.promotionsAsHeadroom(), promotion.waiters.get(0).lease.requestId,
                promotion.waiters.get(0).blockIndex);
        count(StoreCounter.PROMOTIONS_PUBLISHED, 1);
        trace.record("promotion-publish", promotion.promotionId, slice.poolOffset);
        for (LeaseUnit waiter : promotion.waiters) {
            ctx.leases.reportAcquireIfDone(waiter.lease);
        }
    }

    /** True while the key every waiter expects is still visible in the L2 index at the promotion's unit. */
    private boolean everyWaiterIndexed(Promotion promotion) {
        for (LeaseUnit waiter : promotion.waiters) {
            if (!indexed(waiter.expected, promotion.unit)) {
                return false;
            }
        }
        return true;
    }

    private boolean indexed(Content expected, long unit) {
        L2Index.Entry entry = ctx.visible(expected.key());
        return entry != null && unitOffset(entry.slot(), expected.lane()) == unit;
    }

    /** A stale promotion's lease takes the newer resident bytes if they are what it expects, else reads again. */
    private void resolveStaleWaiter(LeaseUnit waiter) {
        waiter.lease.promotingUnits--;
        Slice resident = ctx.space.resident(waiter.unit);
        if (resident != null && waiter.expected.equals(resident.content)) {
            ctx.leases.attach(waiter, resident);
            ctx.leases.reportAcquireIfDone(waiter.lease);
            return;
        }
        if (indexed(waiter.expected, waiter.unit) && ctx.l2.unitEpoch(unitIndex(waiter.unit)) <= waiter.epochAtLookup) {
            waiter.state = UnitState.PROMOTING;
            waiter.lease.promotingUnits++;
            startPromotion(waiter);
        } else {
            // The key left L2 meanwhile: this range will be recomputed.
            waiter.state = UnitState.FAILED;
            waiter.promotion = null;
            waiter.lease.failedUnits++;
            ctx.leases.reportAcquireIfDone(waiter.lease);
        }
    }

    private void failPromotion(Promotion promotion) {
        count(StoreCounter.PROMOTIONS_FAILED, 1);
        trace.record("promotion-fail", promotion.promotionId);
        if (races.r7LeakFailedPromotion) {
            // The bug: the reservation is kept and the waiters are never told.
            return;
        }
        promotion.slice.reserved = false;
        ctx.space.rolesChanged(promotion.slice);
        List<Lease> affected = new ArrayList<>();
        for (LeaseUnit waiter : promotion.waiters) {
            waiter.state = UnitState.FAILED;
            waiter.promotion = null;
            waiter.lease.promotingUnits--;
            waiter.lease.failedUnits++;
            affected.add(waiter.lease);
        }
        for (Lease lease : affected) {
            if (races.r9SurfaceBatchErrorEarly && !lease.acquireReported) {
                // The bug: surface the error before the rest of the batch has completed.
                lease.acquireReported = true;
                events.add(new StoreEvent.AcquireDone(lease.requestId, false));
            } else {
                ctx.leases.reportAcquireIfDone(lease);
            }
        }
    }

    void cancelPromotion(Promotion promotion) {
        count(StoreCounter.PROMOTIONS_CANCELLED, 1);
        trace.record("promotion-cancel", promotion.promotionId, promotion.state.ordinal());
        promotionByUnit.remove(promotion.unit, promotion);
        switch (promotion.state) {
            case WAIT_SPACE -> promotionsWaitingForSpace.remove(promotion);
            case WAIT_WRITE, READY -> {
                List<Promotion> waiting = promotionsWaitingForWrite.get(promotion.unit);
                if (waiting != null) {
                    waiting.remove(promotion);
                }
                readyReads.remove(promotion);
                if (!races.r7LeakFailedPromotion) {
                    promotion.slice.reserved = false;
                    ctx.space.rolesChanged(promotion.slice);
                }
            }
            case READING -> {
                boolean freeNow = races.r9SurfaceBatchErrorEarly;
                if (freeNow) {
                    // The bug: the buffer goes back to the pool while the kernel may still write into it.
                    promotion.slice.reserved = false;
                    ctx.space.rolesChanged(promotion.slice);
                }
                promotion.cancelled = true;
                // The R7 bug: the cancelled read's reservation is never given back.
                promotion.leakOnCompletion = races.r7LeakFailedPromotion && !freeNow;
            }
        }
    }

    int activePromotions() {
        return promotionByUnit.size();
    }

    /** The last pending write of {@code unit} landed: the promotions that waited for it may read now. */
    void rangeWritten(long unit) {
        List<Promotion> waiting = promotionsWaitingForWrite.remove(unit);
        if (waiting != null) {
            for (Promotion promotion : waiting) {
                promotion.state = PromotionState.READY;
                readyReads.add(promotion);
            }
        }
    }

    /** I10: promotions still waiting for L1 space, for {@link TieredStore#leftovers}. */
    void leftovers(List<String> left) {
        if (!promotionsWaitingForSpace.isEmpty()) left.add(promotionsWaitingForSpace.size() + " promotions waiting for space");
    }

    /** R6, single flight: never two live promotions of one unit. */
    void checkInvariants() {
        TreeMap<Long, Integer> promotionsPerUnit = new TreeMap<>();
        List<Promotion> livePromotions = new ArrayList<>(promotionsWaitingForSpace);
        livePromotions.addAll(readyReads);
        for (List<Promotion> waiting : promotionsWaitingForWrite.values()) {
            livePromotions.addAll(waiting);
        }
        for (Object work : inflightByTicket.valuesInTableOrder()) {
            if (work instanceof Promotion promotion) {
                livePromotions.add(promotion);
            }
        }
        for (Promotion promotion : livePromotions) {
            if (!promotion.cancelled) {
                promotionsPerUnit.merge(promotion.unit, 1, Integer::sum);
            }
        }
        // Ordered by unit, so a violation names the lowest such unit whatever order the work was found in.
        for (Map.Entry<Long, Integer> perUnit : promotionsPerUnit.entrySet()) {
            if (perUnit.getValue() > 1) {
                throw new IllegalStateException("R6: unit " + perUnit.getKey() + " has two promotions in flight (single flight)");
            }
        }
    }
}
