package tierlab.model.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.l1.L1Pool;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;
import tierlab.model.store.L1Space.Slice;
import tierlab.model.store.TieredStore.SaveOutcome;
import tierlab.model.util.LongMap;

/**
 * The save pipeline (stores after prefill): claims and L2 slots, the FIFO store queue, waiting
 * for overlapping leases, L1 reservation (sealing a batch that does not fit whole), staging
 * copies from the GPU bounded by {@code stagingSlots}, the re-check of leases after the copy,
 * cancellation on preemption, and the commit that publishes in L1, commits the lane in the index
 * and hands the bytes to {@link L2Writes}. Its queue is checked through I10 ({@code leftovers}).
 */
final class SavePipeline extends StorePart {

    static final class StoreJob {
        final long requestId;
        int batchesTotal;
        int batchesStaged;
        int batchesFinished;
        int copiesInFlight;
        boolean cancelled;
        boolean stagedReported;

        StoreJob(long requestId) {
            this.requestId = requestId;
        }
    }

    enum BatchState { WAIT_LEASES, RESERVE, STAGE, COPYING, WAIT_LEASES_AFTER_COPY, DONE }

    static final class StoreBatch {
        final StoreJob job;
        final int lane;
        final long runId;
        final List<Integer> slots;
        final List<BlockKey> keys;
        final List<Integer> positions;
        final List<Long> gpuBlockIds;
        BatchState state = BatchState.WAIT_LEASES;
        final List<Slice> slices = new ArrayList<>();
        boolean countedLeaseWait;
        boolean countedReservationWait;

        StoreBatch(StoreJob job, int lane, long runId, List<Integer> slots, List<BlockKey> keys,
                   List<Integer> positions, List<Long> gpuBlockIds) {
            this.job = job;
            this.lane = lane;
            this.runId = runId;
            this.slots = slots;
            this.keys = keys;
            this.positions = positions;
            this.gpuBlockIds = gpuBlockIds;
        }

        int size() {
            return slots.size();
        }
    }

    private final ArrayDeque<StoreBatch> storeQueue = new ArrayDeque<>();
    private final List<StoreBatch> storesWaitingForLeasesAfterCopy = new ArrayList<>();
    private final LongMap<List<StoreJob>> jobsByRequest = new LongMap<>();
    private int stagingInUse;

    SavePipeline(StoreContext ctx) {
        super(ctx);
    }

    /**
     * Queues the save of a request's blocks {@code [firstBlock, firstBlock + blockCount)}. Blocks
     * already present are skipped (first writer wins); the rest get contiguous L2 slots now, and
     * go through the FIFO store queue: wait for overlapping leases, reserve L1, stage from the GPU
     * (bounded by {@code stagingSlots}), re-check leases, commit and write to L2.
     *
     * @param gpuBlockIds GPU block holding each of the blocks, in order
     */
    SaveOutcome enqueueSave(long requestId, List<BlockKey> chain, int firstBlock, int blockCount,
                                   List<Long> gpuBlockIds, long nowNs) {
        count(StoreCounter.STORES_ENQUEUED, 1);
        List<Integer> newPositions = new ArrayList<>();
        int present = 0;
        int conflicting = 0;
        for (int b = firstBlock; b < firstBlock + blockCount; b++) {
            BlockKey parent = b == 0 ? BlockKey.ROOT : chain.get(b - 1);
            ctx.gate.sighted(chain.get(b));
            switch (index.canClaim(chain.get(b), parent, geometry.blockTokens())) {
                case CLAIMED -> newPositions.add(b);
                case ALREADY_PRESENT -> present++;
                case CONFLICT -> conflicting++;
            }
        }
        count(StoreCounter.STORE_BLOCKS_ALREADY_PRESENT, present);
        count(StoreCounter.STORE_BLOCKS_CONFLICT, conflicting);
        if (newPositions.size() > slotCount) {
            newPositions = new ArrayList<>(newPositions.subList(0, slotCount));
        }
        trace.record("save", requestId, firstBlock, blockCount, newPositions.size(), present, conflicting);
        if (newPositions.isEmpty()) {
            pump();
            return new SaveOutcome(0, present, conflicting);
        }
        L2Ring.Allocation allocation = ring.allocate(newPositions.size());
        for (L2Ring.Run evicted : allocation.evicted()) {
            evictL2Run(evicted);
        }
        L2Ring.Run run = allocation.run();
        ctx.recovery.journal(run);
        trace.record("l2-alloc", run.runId(), run.firstSlot(), run.slotCount());
        List<Integer> slots = new ArrayList<>();
        List<BlockKey> keys = new ArrayList<>();
        List<Long> gpuBlocks = new ArrayList<>();
        for (int i = 0; i < newPositions.size(); i++) {
            int b = newPositions.get(i);
            int slot = run.firstSlot() + i;
            BlockKey parent = b == 0 ? BlockKey.ROOT : chain.get(b - 1);
            index.claim(chain.get(b), parent, slot, geometry.blockTokens(), run.runId());
            slots.add(slot);
            keys.add(chain.get(b));
            gpuBlocks.add(gpuBlockIds.get(b - firstBlock));
        }
        count(StoreCounter.STORE_BLOCKS_CLAIMED, newPositions.size());
        StoreJob job = new StoreJob(requestId);
        List<StoreJob> jobs = jobsByRequest.get(requestId);
        if (jobs == null) {
            jobs = new ArrayList<>();
            jobsByRequest.put(requestId, jobs);
        }
        jobs.add(job);
        int unitsPerBatch = settings.contiguousStaging() ? (int) Math.max(1, settings.writeBatchMaxBytes() / laneBytes) : 1;
        for (int lane = 0; lane < tp; lane++) {
            for (int from = 0; from < slots.size(); from += unitsPerBatch) {
                int to = Math.min(slots.size(), from + unitsPerBatch);
                StoreBatch batch = new StoreBatch(job, lane, run.runId(), slots.subList(from, to),
                        keys.subList(from, to), newPositions.subList(from, to), gpuBlocks.subList(from, to));
                job.batchesTotal++;
                storeQueue.addLast(batch);
                count(StoreCounter.STORE_BATCHES, 1);
            }
        }
        pump();
        return new SaveOutcome(newPositions.size(), present, conflicting);
    }

    /** The ring evicted a run: its keys leave the index at once, and their L1 copies leave L1. */
    private void evictL2Run(L2Ring.Run run) {
        count(StoreCounter.L2_RUNS_EVICTED, 1);
        trace.record("l2-evict", run.runId(), run.firstSlot(), run.slotCount());
        for (int slot = run.firstSlot(); slot < run.endSlot(); slot++) {
            if (index.removeSlot(slot) != null) {
                count(StoreCounter.L2_KEYS_EVICTED, 1);
            }
            for (int lane = 0; lane < tp; lane++) {
                Slice resident = ctx.space.resident(unitOffset(slot, lane));
                if (resident != null) {
                    ctx.space.unpublish(resident);
                }
            }
        }
        ctx.l2.members().slotsReused(ctx.poolMember, run.firstSlot(), run.endSlot());
    }

    /**
     * Preemption: the engine is about to reuse the request's GPU blocks, so saves that have not
     * started copying are cancelled (their claims leave the index; the ring reclaims the slots).
     * Copies already in flight finish; {@link StoreEvent.SaveStaged} says when the blocks are free.
     *
     * @return true if a staging copy is still in flight and the GPU blocks must wait for SaveStaged
     */
    boolean cancelSaves(long requestId, long nowNs) {
        List<StoreJob> jobs = jobsByRequest.get(requestId);
        if (jobs == null) {
            return false;
        }
        if (races.r10SaveAfterPreempt) {
            // The bug: queued saves go on and will copy GPU blocks that now belong to someone else.
            return false;
        }
        boolean copying = false;
        for (StoreJob job : jobs) {
            job.cancelled = true;
            copying |= job.copiesInFlight > 0;
        }
        for (Iterator<StoreBatch> it = storeQueue.iterator(); it.hasNext(); ) {
            StoreBatch batch = it.next();
            if (batch.job.cancelled) {
                it.remove();
                dropBatch(batch);
            }
        }
        count(StoreCounter.STORES_CANCELLED, 1);
        trace.record("save-cancel", requestId, copying ? 1 : 0);
        pump();
        return copying;
    }

    private void dropBatch(StoreBatch batch) {
        for (Slice slice : batch.slices) {
            slice.reserved = false;
            ctx.space.rolesChanged(slice);
        }
        batch.slices.clear();
        for (int i = 0; i < batch.size(); i++) {
            L2Index.Entry entry = index.atSlot(batch.slots.get(i));
            if (entry != null && entry.runId() == batch.runId && entry.key().equals(batch.keys.get(i))
                    && entry.committedLaneMask() == 0) {
                index.removeSlot(batch.slots.get(i));
            }
        }
        batch.state = BatchState.DONE;
        finishBatch(batch);
    }

    private boolean overlapsLease(StoreBatch batch) {
        if (races.r4StoreIgnoresLeases) {
            return false;
        }
        for (int slot : batch.slots) {
            if (ring.ownerOf(slot) != batch.runId && !races.r11WriteToReallocatedSlot) {
                // The ring gave this slot to a newer run: commit drops this unit (R11), so it must not wait,
                // holding its reservation, for leases on the new owner's keys.
                continue;
            }
            int unit = unitIndex(unitOffset(slot, batch.lane));
            if (ctx.leases.isLeased(unit) || ctx.l2.members().leasedByAnother(ctx.poolMember, unit)) {
                return true;
            }
        }
        return false;
    }

    /** True while a save of the request cancelled by a preemption still has a staging copy reading its old GPU blocks. */
    boolean cancelledStagingInFlight(long requestId) {
        List<StoreJob> jobs = jobsByRequest.get(requestId);
        if (jobs == null) {
            return false;
        }
        for (StoreJob job : jobs) {
            if (job.cancelled && job.copiesInFlight > 0) {
                return true;
            }
        }
        return false;
    }

    /** I10: store batches still queued or waiting for leases, for {@link TieredStore#leftovers}. */
    void leftovers(List<String> left) {
        if (!storeQueue.isEmpty()) left.add(storeQueue.size() + " queued store batches");
        if (!storesWaitingForLeasesAfterCopy.isEmpty()) left.add(storesWaitingForLeasesAfterCopy.size() + " staged stores waiting for leases");
    }

    /** Moves the head of the FIFO store queue as far as it can go. */
    boolean pumpStoreQueue() {
        boolean progress = false;
        while (!storeQueue.isEmpty()) {
            StoreBatch batch = storeQueue.peekFirst();
            if (batch.state == BatchState.WAIT_LEASES) {
                if (overlapsLease(batch)) {
                    if (!batch.countedLeaseWait) {
                        batch.countedLeaseWait = true;
                        count(StoreCounter.STORE_LEASE_WAITS, 1);
                        trace.record("store-wait-lease", batch.job.requestId, batch.slots.get(0));
                    }
                    return progress;
                }
                batch.state = BatchState.RESERVE;
            }
            if (batch.state == BatchState.RESERVE) {
                long offset = ctx.space.reserve(batch.size());
                if (offset == L1Pool.NO_SPACE) {
                    if (batch.size() > 1) {
                        // Seal the batch here: the rest becomes the next batch.
                        storeQueue.pollFirst();
                        int half = batch.size() / 2;
                        StoreBatch head = subBatch(batch, 0, half);
                        StoreBatch tail = subBatch(batch, half, batch.size());
                        batch.job.batchesTotal++;
                        storeQueue.addFirst(tail);
                        storeQueue.addFirst(head);
                        progress = true;
                        continue;
                    }
                    if (!batch.countedReservationWait) {
                        batch.countedReservationWait = true;
                        count(StoreCounter.STORE_RESERVATION_WAITS, 1);
                        trace.record("store-wait-space", batch.job.requestId, batch.slots.get(0));
                    }
                    return progress;
                }
                for (int i = 0; i < batch.size(); i++) {
                    Slice slice = ctx.space.newSlice(offset + i * laneBytes, unitOffset(batch.slots.get(i), batch.lane));
                    slice.reserved = true;
                    ctx.space.rolesChanged(slice);
                    batch.slices.add(slice);
                }
                batch.state = BatchState.STAGE;
                progress = true;
            }
            if (batch.state == BatchState.STAGE) {
                if (stagingInUse >= settings.stagingSlots()) {
                    return progress;
                }
                stagingInUse++;
                storeQueue.pollFirst();
                batch.state = BatchState.COPYING;
                batch.job.copiesInFlight++;
                long ticket = ctx.nextTicket();
                inflightByTicket.put(ticket, batch);
                List<Content> expected = new ArrayList<>();
                for (BlockKey key : batch.keys) {
                    expected.add(new Content(key, batch.lane));
                }
                IoOp.CopyFromGpu copy = new IoOp.CopyFromGpu(ticket, batch.job.requestId, batch.slices.get(0).poolOffset,
                        laneBytes, batch.lane, batch.gpuBlockIds, expected);
                emit(copy);
                count(StoreCounter.STAGING_COPIES, 1);
                count(StoreCounter.STAGING_BYTES, copy.totalBytes());
                progress = true;
            }
        }
        return progress;
    }

    private StoreBatch subBatch(StoreBatch batch, int from, int to) {
        return new StoreBatch(batch.job, batch.lane, batch.runId, batch.slots.subList(from, to), batch.keys.subList(from, to),
                batch.positions.subList(from, to), batch.gpuBlockIds.subList(from, to));
    }

    void onStaged(StoreBatch batch, IoCompletion completion) {
        stagingInUse--;
        StoreJob job = batch.job;
        job.copiesInFlight--;
        job.batchesStaged++;
        if (!completion.succeeded() || job.cancelled) {
            dropBatch(batch);
        } else if (overlapsLease(batch)) {
            // A lease on these ranges appeared during the copy: keep the staged bytes and wait.
            batch.state = BatchState.WAIT_LEASES_AFTER_COPY;
            storesWaitingForLeasesAfterCopy.add(batch);
            count(StoreCounter.STORE_LEASE_WAITS, 1);
            trace.record("store-wait-lease-after-copy", job.requestId, batch.slots.get(0));
        } else {
            commit(batch);
        }
        reportStagedIfDone(job);
    }

    private void reportStagedIfDone(StoreJob job) {
        boolean allStaged = job.copiesInFlight == 0
                && (job.cancelled || job.batchesStaged >= job.batchesTotal);
        if (allStaged && !job.stagedReported) {
            job.stagedReported = true;
            events.add(new StoreEvent.SaveStaged(job.requestId, job.cancelled));
            trace.record("save-staged", job.requestId);
        }
    }

    boolean retryStoresWaitingForLeases() {
        boolean progress = false;
        for (Iterator<StoreBatch> it = storesWaitingForLeasesAfterCopy.iterator(); it.hasNext(); ) {
            StoreBatch batch = it.next();
            if (batch.job.cancelled) {
                it.remove();
                dropBatch(batch);
                progress = true;
            } else if (!overlapsLease(batch)) {
                it.remove();
                commit(batch);
                progress = true;
            }
        }
        return progress;
    }

    /**
     * Step 5 of a store: bump the epoch, chain the L2 write after pending overlapping writes,
     * publish in L1 (dropping overlapping residents) and commit the lane in the index. A unit
     * whose slot the ring has since given to another run is dropped (R11).
     */
    private void commit(StoreBatch batch) {
        List<Slice> kept = new ArrayList<>();
        List<Integer> keptIndex = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            int slot = batch.slots.get(i);
            Slice slice = batch.slices.get(i);
            boolean reallocated = ring.ownerOf(slot) != batch.runId;
            if (reallocated && !races.r11WriteToReallocatedSlot) {
                count(StoreCounter.STORE_UNITS_DROPPED_REALLOCATED, 1);
                trace.record("store-drop-reallocated", batch.job.requestId, slot);
                slice.reserved = false;
                ctx.space.rolesChanged(slice);
                continue;
            }
            kept.add(slice);
            keptIndex.add(i);
        }
        // Publish suffix first so the prefix ends most recent (see createLease).
        for (int k = kept.size() - 1; k >= 0; k--) {
            int i = keptIndex.get(k);
            Slice slice = kept.get(k);
            long epoch = ctx.l2.stampUnit(unitIndex(slice.unit));
            ctx.l2.members().committed(unitIndex(slice.unit), ctx.poolMember);
            slice.reserved = false;
            slice.content = new Content(batch.keys.get(i), batch.lane);
            ctx.space.residencyGained(slice.unit);
            boolean reallocated = ring.ownerOf(batch.slots.get(i)) != batch.runId;
            if (!reallocated) {
                ctx.space.publish(slice, false, batch.job.requestId, batch.positions.get(i));
            }
            L2Index.CommitOutcome outcome = index.commitLane(batch.keys.get(i), batch.slots.get(i), batch.runId, batch.lane, epoch);
            if (outcome == L2Index.CommitOutcome.LATE_IGNORED) {
                count(StoreCounter.LATE_COMMITS_IGNORED, 1);
            }
            count(StoreCounter.STORE_UNITS_COMMITTED, 1);
            trace.record("commit", batch.job.requestId, slice.unit, epoch, outcome.ordinal());
        }
        if (!ctx.gate.writesEverythingAtCommit) {
            keepWrittenNow(batch, kept, keptIndex);
        }
        // One L2 write per piece that is contiguous both in L1 and on L2.
        int start = 0;
        while (start < kept.size()) {
            int end = start + 1;
            while (end < kept.size()
                    && keptIndex.get(end) == keptIndex.get(end - 1) + 1
                    && kept.get(end).poolOffset == kept.get(end - 1).poolOffset + laneBytes
                    && kept.get(end).unit == kept.get(end - 1).unit + laneBytes) {
                end++;
            }
            ctx.writes.issueWrite(new ArrayList<>(kept.subList(start, end)));
            start = end;
        }
        batch.state = BatchState.DONE;
        finishBatch(batch);
        if (!settings.contiguousStaging()) {
            ctx.space.trim();
        }
    }

    /** Leaves in {@code kept} (and {@code keptIndex}) the units the write policy writes at commit. */
    private void keepWrittenNow(StoreBatch batch, List<Slice> kept, List<Integer> keptIndex) {
        for (int k = kept.size() - 1; k >= 0; k--) {
            if (!ctx.gate.writeAtCommit(kept.get(k), batch.keys.get(keptIndex.get(k)))) {
                kept.remove(k);
                keptIndex.remove(k);
            }
        }
    }

    private void finishBatch(StoreBatch batch) {
        StoreJob job = batch.job;
        job.batchesFinished++;
        if (job.batchesFinished >= job.batchesTotal) {
            List<StoreJob> jobs = jobsByRequest.get(job.requestId);
            if (jobs != null) {
                jobs.remove(job);
                if (jobs.isEmpty()) {
                    jobsByRequest.remove(job.requestId);
                }
            }
            if (settings.contiguousStaging()) {
                ctx.space.trim();
            }
        }
    }

    /** Staging copies GPU→L1 in flight (each holds one of {@code stagingSlots}). */
    int stagingCopiesInFlight() {
        return stagingInUse;
    }

    /** Whether a store batch waits for leases to end (a lease released by another store of the pool may move it). */
    boolean waitsForLeases() {
        return !storesWaitingForLeasesAfterCopy.isEmpty()
                || (!storeQueue.isEmpty() && storeQueue.peekFirst().state == BatchState.WAIT_LEASES);
    }

    int storeQueueDepth() {
        return storeQueue.size() + storesWaitingForLeasesAfterCopy.size();
    }
}
