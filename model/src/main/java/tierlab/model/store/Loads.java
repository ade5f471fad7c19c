package tierlab.model.store;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.store.L1Space.Slice;
import tierlab.model.store.Leases.Lease;
import tierlab.model.store.Leases.LeaseUnit;
import tierlab.model.store.Leases.UnitState;
import tierlab.model.store.TieredStore.LoadOutcome;

/**
 * Loads (L1 → GPU): one grouped copy of a fully held lease, borrowing its slices until the copy
 * completes, then releasing the lease by range (or whole, if it was released during the copy).
 * A load's borrows are checked with its lease ({@link Leases#checkInvariants}).
 */
final class Loads extends StorePart {

    static final class Load {
        final Lease lease;
        final List<Slice> borrowed;
        boolean borrowsReturned;

        Load(Lease lease, List<Slice> borrowed) {
            this.lease = lease;
            this.borrowed = borrowed;
        }
    }

    Loads(StoreContext ctx) {
        super(ctx);
    }

    /**
     * Copies every unit of the request's (fully held) lease to the GPU in one grouped copy that
     * borrows the slices until it completes.
     *
     * @param gpuBlockIds the GPU block receiving each loaded block, in hit order
     */
    LoadOutcome load(long requestId, List<Long> gpuBlockIds, long nowNs) {
        Lease lease = ctx.leases.leaseOf(requestId);
        if (lease == null) {
            return LoadOutcome.NO_LEASE;
        }
        if (lease.activeLoad != null) {
            return LoadOutcome.ALREADY_LOADING;
        }
        if (lease.promotingUnits > 0 || lease.failedUnits > 0) {
            return LoadOutcome.LEASE_NOT_READY;
        }
        List<IoOp.GpuLoadSegment> segments = new ArrayList<>();
        List<Slice> borrowed = new ArrayList<>();
        int firstBlock = lease.units.isEmpty() ? 0 : lease.units.get(0).blockIndex;
        for (LeaseUnit leaseUnit : lease.units) {
            if (leaseUnit.state != UnitState.HELD) {
                continue;
            }
            // A leased load resolves only through its lease's slices.
            Slice slice = leaseUnit.slice;
            slice.borrowRefs++;
            ctx.space.rolesChanged(slice);
            borrowed.add(slice);
            long gpuBlock = gpuBlockIds.get(leaseUnit.blockIndex - firstBlock);
            segments.add(new IoOp.GpuLoadSegment(slice.poolOffset, laneBytes, gpuBlock, leaseUnit.expected));
            count(leaseUnit.viaPromotion ? StoreCounter.L2_HIT_BYTES : StoreCounter.L1_HIT_BYTES, laneBytes);
        }
        Load load = new Load(lease, borrowed);
        lease.activeLoad = load;
        long ticket = ctx.nextTicket();
        inflightByTicket.put(ticket, load);
        IoOp.CopyToGpu copy = new IoOp.CopyToGpu(ticket, requestId, segments);
        emit(copy);
        count(StoreCounter.GPU_LOAD_OPS, 1);
        count(StoreCounter.GPU_LOAD_BYTES, copy.totalBytes());
        return LoadOutcome.STARTED;
    }

    void returnBorrows(Load load) {
        if (load.borrowsReturned) {
            return;
        }
        load.borrowsReturned = true;
        for (Slice slice : load.borrowed) {
            slice.borrowRefs--;
            ctx.space.rolesChanged(slice);
        }
    }

    void onLoadCopied(Load load, IoCompletion completion) {
        returnBorrows(load);
        Lease lease = load.lease;
        lease.activeLoad = null;
        if (!completion.succeeded()) {
            count(StoreCounter.LOADS_FAILED, 1);
            count(StoreCounter.FAILED_LOAD_TOKENS, (long) load.borrowed.size() / tp * geometry.blockTokens());
        }
        events.add(new StoreEvent.LoadDone(lease.requestId, completion.succeeded()));
        trace.record("load-done", lease.requestId, completion.succeeded() ? 1 : 0);
        if (!ctx.leases.isLive(lease)) {
            return;
        }
        if (lease.releaseAll) {
            ctx.leases.finishRelease(lease);
        } else if (completion.succeeded()) {
            // Release by range as the load finishes: the lease stops blocking stores of these ranges.
            for (LeaseUnit leaseUnit : lease.units) {
                ctx.leases.releaseUnit(leaseUnit);
            }
        }
    }
}
