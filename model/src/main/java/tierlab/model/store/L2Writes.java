package tierlab.model.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.store.L1Space.Slice;

/**
 * L2 writes: one write per piece of a commit contiguous in L1 and on L2, chained after the
 * pending writes of the same units (R3), and their completion: the chain moves on, promotions
 * waiting for the range become ready, and a failed write that carried a unit's newest bytes
 * takes that key out of the index and L1.
 */
final class L2Writes extends StorePart {

    /** Submitted L2 writes whose completion has not been delivered (counted, not looked up: asked after every event of a held step). */
    private int writesInFlight;

    static final class WriteOp {
        final long l1Offset;
        final long l2Offset;
        final List<Slice> sources;
        final List<Long> units;
        final List<WriteOp> dependents = new ArrayList<>();
        int waitingOn;
        long ticket;

        /** The store epoch of each unit's bytes, to tell whether a failed write was the newest. */
        final long[] epochs;
        /** Issued by write-back for a unit L1 evicted (its only copy was in L1), not at commit. */
        boolean writeBack;

        WriteOp(long l1Offset, long l2Offset, List<Slice> sources, List<Long> units) {
            this.l1Offset = l1Offset;
            this.l2Offset = l2Offset;
            this.sources = sources;
            this.units = units;
            this.epochs = new long[units.size()];
        }
    }

    /**
     * By unit: writes of the range not yet landed, oldest first (a later write chains on the earlier
     * one). Dense by unit index: L2 offsets, multiples of a large power of two, pile up in a few
     * buckets of a hash map.
     */
    private final DenseUnitMap<ArrayDeque<WriteOp>> pendingWritesByUnit;

    L2Writes(StoreContext ctx) {
        super(ctx);
        this.pendingWritesByUnit = new DenseUnitMap<>(laneBytes, ctx.unitCount);
    }

    void issueWrite(List<Slice> sources) {
        issueWrite(sources, false);
    }

    /** As {@link #issueWrite(List)}; {@code writeBack} marks the write of an evicted dirty unit (W1). */
    void issueWrite(List<Slice> sources, boolean writeBack) {
        List<Long> units = new ArrayList<>();
        for (Slice slice : sources) {
            units.add(slice.unit);
            slice.pendingWrites++;
            ctx.space.rolesChanged(slice);
        }
        WriteOp write = new WriteOp(sources.get(0).poolOffset, sources.get(0).unit, sources, units);
        write.writeBack = writeBack;
        for (int i = 0; i < units.size(); i++) {
            write.epochs[i] = ctx.l2.unitEpoch(unitIndex(units.get(i)));
        }
        for (long unit : units) {
            ArrayDeque<WriteOp> queue = pendingWritesByUnit.get(unit);
            if (queue == null) {
                queue = new ArrayDeque<>();
                pendingWritesByUnit.put(unit, queue);
            }
            if (!queue.isEmpty() && !races.r3UnchainedOverlappingWrites) {
                WriteOp previous = queue.peekLast();
                if (!previous.dependents.contains(write)) {
                    previous.dependents.add(write);
                    write.waitingOn++;
                }
            }
            queue.addLast(write);
        }
        if (write.waitingOn > 0) {
            count(StoreCounter.WRITES_CHAINED, 1);
            trace.record("write-chained", write.l2Offset, write.waitingOn);
        } else {
            submitWrite(write);
        }
    }

    /**
     * A failed write leaves its L2 range without the bytes: where it carried the newest store of a
     * unit, that unit's key leaves the index (a later lookup recomputes it instead of reading
     * garbage) and its L1 copy, now unreachable, leaves L1.
     */
    private void forgetUnwrittenKeys(WriteOp write) {
        for (int i = 0; i < write.units.size(); i++) {
            long unit = write.units.get(i);
            if (ctx.l2.unitEpoch(unitIndex(unit)) != write.epochs[i]) {
                continue;
            }
            int slot = slotOf(unit);
            // The range's bytes changed (to garbage): a new epoch makes any read of it stale.
            ctx.l2.stampUnit(unitIndex(unit));
            if (index.removeSlot(slot) != null) {
                count(StoreCounter.L2_KEYS_LOST, 1);
                trace.record("key-lost", slot);
            }
            // A lane still held in L1 by a lease stays resident, but with its key gone it is never written.
            ctx.gate.keyDropped(slot);
            for (int lane = 0; lane < tp; lane++) {
                Slice resident = ctx.space.resident(unitOffset(slot, lane));
                if (resident != null && ctx.space.isEvictable(resident)) {
                    ctx.space.unpublish(resident);
                }
            }
        }
    }

    /** L2 writes submitted and not completed yet. */
    int writesInFlight() {
        return writesInFlight;
    }

    private void submitWrite(WriteOp write) {
        writesInFlight++;
        write.ticket = ctx.nextTicket();
        inflightByTicket.put(write.ticket, write);
        long bytes = write.units.size() * laneBytes;
        emit(new IoOp.L2Write(write.ticket, write.l1Offset, write.l2Offset, bytes));
        count(StoreCounter.L2_WRITE_OPS, 1);
        count(StoreCounter.L2_WRITE_BYTES, bytes);
    }

    void onWriteDone(WriteOp write, IoCompletion completion) {
        writesInFlight--;
        if (!completion.succeeded()) {
            count(StoreCounter.L2_WRITE_FAILURES, 1);
            forgetUnwrittenKeys(write);
        } else {
            for (int i = 0; i < write.units.size(); i++) {
                ctx.l2.members().landed(unitIndex(write.units.get(i)), write.epochs[i]);
            }
        }
        // The write leaves the chain whether it succeeded or not.
        for (Slice slice : write.sources) {
            if (!slice.freed) {
                slice.pendingWrites--;
                ctx.space.rolesChanged(slice);
            }
        }
        for (long unit : write.units) {
            ArrayDeque<WriteOp> queue = pendingWritesByUnit.get(unit);
            queue.remove(write);
            if (queue.isEmpty()) {
                pendingWritesByUnit.remove(unit);
                ctx.promotions.rangeWritten(unit);
            }
        }
        for (WriteOp dependent : write.dependents) {
            if (--dependent.waitingOn == 0) {
                submitWrite(dependent);
            }
        }
        trace.record("write-done", write.l2Offset, completion.succeeded() ? 1 : 0);
    }

    /**
     * Whether a read of {@code unit} must wait for a pending write: always, except under the W1
     * ablation when every pending write of the unit is a write-back.
     */
    boolean readMustWait(long unit) {
        ArrayDeque<WriteOp> writes = pendingWritesByUnit.get(unit);
        if (writes == null || writes.isEmpty()) {
            return false;
        }
        if (!races.w1PromoteDuringWriteBack) {
            return true;
        }
        for (WriteOp write : writes) {
            if (!write.writeBack) {
                return true;
            }
        }
        return false;
    }

    /** The newest store epoch among {@code unit}'s writes not yet landed; -1 when none. */
    long newestPendingEpoch(long unit) {
        ArrayDeque<WriteOp> writes = pendingWritesByUnit.get(unit);
        long newest = -1;
        if (writes != null) {
            for (WriteOp write : writes) {
                newest = Math.max(newest, write.epochs[write.units.indexOf(unit)]);
            }
        }
        return newest;
    }

    /** The writes of {@code unit} not yet landed, oldest first; null when none. */
    ArrayDeque<WriteOp> pendingWrites(long unit) {
        return pendingWritesByUnit.get(unit);
    }

    /** I10: what is left in flight on L2, for {@link TieredStore#leftovers}. */
    void leftovers(List<String> left) {
        if (!pendingWritesByUnit.isEmpty()) left.add(pendingWritesByUnit.size() + " units with pending writes");
    }

    /**
     * Tallies, for I3, the pending writes that read from each live slice (slot 2 of
     * {@code expectedRefs}): a write counts for a slice while the slice's unit is one of the
     * write's units and its chain is that unit's.
     */
    void tallyPendingWrites(Map<Slice, int[]> expectedRefs) {
        for (ArrayDeque<WriteOp> writes : pendingWritesByUnit.values()) {
            for (WriteOp write : writes) {
                for (Slice source : write.sources) {
                    int[] refs = expectedRefs.get(source);
                    if (refs != null && write.units.contains(source.unit)
                            && pendingWritesByUnit.get(source.unit) == writes) {
                        refs[2]++;
                    }
                }
            }
        }
    }
}
