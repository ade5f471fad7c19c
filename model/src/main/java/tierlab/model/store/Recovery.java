package tierlab.model.store;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;
import tierlab.model.l2.L2Snapshot;

/**
 * Recovery: the snapshot of the L2 index and ring (committed keys only), the journal of L2
 * allocations since, and the restore of a store from them after a restart or a crash.
 */
final class Recovery extends StorePart {

    /** Every L2 allocation in order, so a crash can tell which slots changed after a snapshot. */
    private final List<L2Ring.Run> allocationJournal = new ArrayList<>();

    Recovery(StoreContext ctx) {
        super(ctx);
    }

    /** Appends a new L2 allocation to the journal. */
    void journal(L2Ring.Run run) {
        allocationJournal.add(run);
    }

    /**
     * Refuses a snapshot of a different geometry or capacity with a message naming the mismatch.
     */
    static void checkFits(StoreSettings settings, L2Snapshot snapshot) {
        if (snapshot.slotCount() != settings.slotCount() || snapshot.laneBytes() != settings.geometry().laneBytes()
                || snapshot.tp() != settings.geometry().tp()) {
            throw new IllegalArgumentException("L2 index snapshot: it is for " + snapshot.slotCount() + " slots of "
                    + snapshot.laneBytes() + " B lanes with tp=" + snapshot.tp() + ", but the store has "
                    + settings.slotCount() + " slots of " + settings.geometry().laneBytes() + " B with tp="
                    + settings.geometry().tp());
        }
    }

    /** Drops every key on a slot allocated after the snapshot (see {@link TieredStore#recover}). */
    void forgetSlotsAllocatedSince(List<L2Ring.Run> allocatedSince) {
        for (L2Ring.Run run : allocatedSince) {
            for (int slot = run.firstSlot(); slot < run.endSlot(); slot++) {
                if (index.removeSlot(slot) != null) {
                    count(StoreCounter.L2_KEYS_LOST, 1);
                }
            }
        }
    }

    /** Runs allocated with an id at or after {@code firstRunId}, oldest first: the allocation journal. */
    List<L2Ring.Run> allocationsSince(long firstRunId) {
        List<L2Ring.Run> since = new ArrayList<>();
        for (L2Ring.Run run : allocationJournal) {
            if (run.runId() >= firstRunId) {
                since.add(run);
            }
        }
        return since;
    }

    /** The L2 index and ring as data; only committed keys are kept. */
    L2Snapshot snapshot() {
        // A key whose L2 write has not landed yet is not on disk: a snapshot that kept it would
        // point a restarted store at bytes that were never written.
        List<L2Index.EntryRecord> durable = new ArrayList<>();
        for (L2Index.EntryRecord record : index.visibleRecords()) {
            boolean written = true;
            for (int lane = 0; lane < tp && written; lane++) {
                long unit = unitOffset(record.slot(), lane);
                // Nor is a unit the write policy has not written yet (write-back's dirty units).
                written = ctx.writes.pendingWrites(unit) == null && !ctx.gate.isUnwritten(unit);
            }
            if (written) {
                durable.add(record);
            }
        }
        return new L2Snapshot(slotCount, laneBytes, tp, ring.head(), ring.nextRunId(), ring.runs(), durable);
    }
}
