package tierlab.hunt;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.store.TieredStore.LoadOutcome;

/**
 * The reference model: what docs/tiered-store.md says the store must decide, kept in plain maps and
 * lists and driven by the same calls and completions as the real store. It does not model L1
 * residency or replacement (those are policy choices, checked by the invariants instead); it
 * models everything whose outcome the spec fixes regardless of timing:
 *
 * <ul>
 *   <li>the L2 ring and index: which slot each new key gets, which runs a store evicts, when a
 *       key becomes visible (all tp lanes committed), when it disappears (ring eviction, a
 *       cancelled save that never committed, a failed write that carried its newest bytes);</li>
 *   <li>first writer wins: how many blocks a save queues and how many were already present;</li>
 *   <li>stores wait for overlapping leases after their staging copy (R4);</li>
 *   <li>leases: admission (I4), readiness, release by range after a load, release-all during a load;</li>
 *   <li>lookups: the hit is the longest visible prefix, capped by the prompt and by L1 (I8).</li>
 * </ul>
 */
final class RefStore {
    enum UnitState { QUEUED, COPYING, WAIT_LEASE, COMMITTED, DROPPED }

    /** One (block, lane) of a writer's save. */
    static final class WUnit {
        final long writer;
        final BlockKey key;
        final int lane;
        final int slot;
        final long runId;
        UnitState state = UnitState.QUEUED;

        WUnit(long writer, BlockKey key, int lane, int slot, long runId) {
            this.writer = writer;
            this.key = key;
            this.lane = lane;
            this.slot = slot;
            this.runId = runId;
        }
    }

    /** An index entry: a claimed slot, visible once every lane has committed. */
    static final class Entry {
        final BlockKey key;
        final int slot;
        final long runId;
        int committedLanes;

        Entry(BlockKey key, int slot, long runId) {
            this.key = key;
            this.slot = slot;
            this.runId = runId;
        }
    }

    static final class Lease {
        final List<Long> units = new ArrayList<>();
        int blocks;
        boolean ready;
        boolean loading;
        boolean releaseAll;
    }

    record SavePrediction(int queued, int present, List<Integer> newSlots, List<BlockKey> newKeys) {}

    private final int tp;
    private final int slotCount;
    private final long laneBytes;
    private final long l1CapacityBytes;
    private final RefRing ring;
    private final Map<BlockKey, Entry> entryByKey = new HashMap<>();
    private final Map<Integer, Entry> entryBySlot = new HashMap<>();
    private final Map<Long, List<WUnit>> unitsByWriter = new HashMap<>();
    private final Map<Long, Boolean> cancelledWriters = new HashMap<>();
    /** Staged groups waiting for leases, in the order their copies completed. */
    private final List<List<WUnit>> waitingForLeases = new ArrayList<>();
    /** Commit sequence numbers whose L2 write has not been issued yet, per unit, oldest first. */
    private final Map<Long, ArrayDeque<Long>> commitsAwaitingWrite = new HashMap<>();
    private final Map<Long, Long> lastCommitByUnit = new HashMap<>();
    private final Map<Long, List<long[]>> commitsByWriteTicket = new HashMap<>();
    private long commitSeq;
    private final Map<Long, Lease> leaseByReader = new LinkedHashMap<>();

    RefStore(HuntConfig config) {
        this.tp = config.tp();
        this.slotCount = config.l2Slots();
        this.laneBytes = config.laneBytes();
        this.l1CapacityBytes = config.l1Blocks() * laneBytes;
        this.ring = new RefRing(slotCount);
    }

    long unit(int slot, int lane) {
        return ((long) lane * slotCount + slot) * laneBytes;
    }

    int slotOf(long unit) {
        return (int) ((unit / laneBytes) % slotCount);
    }

    RefRing ring() {
        return ring;
    }

    // ------------------------------------------------------------------------------------------
    // The L2 index
    // ------------------------------------------------------------------------------------------

    /** Slot of a key's entry, or -1. */
    int slotOfKey(BlockKey key) {
        Entry entry = entryByKey.get(key);
        return entry == null ? -1 : entry.slot;
    }

    boolean visible(BlockKey key) {
        Entry entry = entryByKey.get(key);
        return entry != null && entry.committedLanes == (1 << tp) - 1;
    }

    private void removeEntryAt(int slot) {
        Entry entry = entryBySlot.remove(slot);
        if (entry != null) {
            entryByKey.remove(entry.key);
        }
    }

    /** First writer wins; new keys take contiguous slots of one run; evicted runs' keys leave at once. */
    SavePrediction save(long writer, List<BlockKey> chain, int blocks) {
        List<Integer> newPositions = new ArrayList<>();
        int present = 0;
        for (int b = 0; b < blocks; b++) {
            if (entryByKey.containsKey(chain.get(b))) {
                present++;
            } else {
                newPositions.add(b);
            }
        }
        if (newPositions.size() > slotCount) {
            newPositions = new ArrayList<>(newPositions.subList(0, slotCount));
        }
        List<Integer> slots = new ArrayList<>();
        List<BlockKey> keys = new ArrayList<>();
        List<WUnit> units = unitsByWriter.computeIfAbsent(writer, w -> new ArrayList<>());
        if (!newPositions.isEmpty()) {
            List<RefRing.Run> evicted = new ArrayList<>();
            RefRing.Run run = ring.allocate(newPositions.size(), evicted);
            for (RefRing.Run gone : evicted) {
                for (int s = gone.first(); s < gone.first() + gone.count(); s++) {
                    removeEntryAt(s);
                }
            }
            for (int i = 0; i < newPositions.size(); i++) {
                BlockKey key = chain.get(newPositions.get(i));
                int slot = run.first() + i;
                Entry entry = new Entry(key, slot, run.runId());
                entryByKey.put(key, entry);
                entryBySlot.put(slot, entry);
                slots.add(slot);
                keys.add(key);
                for (int lane = 0; lane < tp; lane++) {
                    units.add(new WUnit(writer, key, lane, slot, run.runId()));
                }
            }
        }
        return new SavePrediction(newPositions.size(), present, slots, keys);
    }

    /** The staging copy's units: the writer's queued units of those keys in that lane. */
    private List<WUnit> unitsOf(IoOp.CopyFromGpu copy) {
        List<WUnit> group = new ArrayList<>();
        for (IoOp.Content content : copy.expected()) {
            WUnit found = null;
            for (WUnit unit : unitsByWriter.getOrDefault(copy.requestId(), List.of())) {
                if (unit.key.equals(content.key()) && unit.lane == content.lane()
                        && (unit.state == UnitState.QUEUED || unit.state == UnitState.COPYING)) {
                    found = unit;
                    break;
                }
            }
            if (found == null) {
                throw new RefMismatch("staging copy of writer " + copy.requestId() + " carries " + content
                        + " which the reference has no queued save for");
            }
            group.add(found);
        }
        return group;
    }

    /** Operations the store emitted, in order: staging copies start, writes take their commits. */
    void onEmitted(IoOp op) {
        switch (op) {
            case IoOp.CopyFromGpu copy -> {
                for (WUnit unit : unitsOf(copy)) {
                    if (unit.state != UnitState.QUEUED) {
                        throw new RefMismatch("a second staging copy for " + unit.key + " lane " + unit.lane);
                    }
                    unit.state = UnitState.COPYING;
                }
            }
            case IoOp.L2Write write -> {
                List<long[]> commits = new ArrayList<>();
                for (long offset = 0; offset < write.lengthBytes(); offset += laneBytes) {
                    long unit = write.l2Offset() + offset;
                    ArrayDeque<Long> awaiting = commitsAwaitingWrite.get(unit);
                    if (awaiting == null || awaiting.isEmpty()) {
                        throw new RefMismatch("L2 write to unit " + unit + " (slot " + slotOf(unit)
                                + ") that no committed store is waiting for");
                    }
                    commits.add(new long[] {unit, awaiting.pollFirst()});
                }
                commitsByWriteTicket.put(write.ticket(), commits);
            }
            default -> { }
        }
    }

    /** A staging copy completed: drop (failed, cancelled), wait for leases (R4), or commit. */
    void onStaged(IoOp.CopyFromGpu copy, boolean succeeded) {
        List<WUnit> group = new ArrayList<>();
        for (IoOp.Content content : copy.expected()) {
            for (WUnit unit : unitsByWriter.getOrDefault(copy.requestId(), List.of())) {
                if (unit.key.equals(content.key()) && unit.lane == content.lane() && unit.state == UnitState.COPYING) {
                    group.add(unit);
                    break;
                }
            }
        }
        if (group.size() != copy.expected().size()) {
            throw new RefMismatch("staging completion of writer " + copy.requestId() + " for units the reference is not copying");
        }
        if (!succeeded || cancelledWriters.containsKey(copy.requestId())) {
            drop(group);
        } else if (overlapsLease(group)) {
            for (WUnit unit : group) {
                unit.state = UnitState.WAIT_LEASE;
            }
            waitingForLeases.add(group);
        } else {
            commit(group);
        }
    }

    private boolean overlapsLease(List<WUnit> group) {
        for (WUnit unit : group) {
            if (ring.ownerOf(unit.slot) == unit.runId && leasedCount(unit(unit.slot, unit.lane)) > 0) {
                return true;
            }
        }
        return false;
    }

    private int leasedCount(long unit) {
        int count = 0;
        for (Lease lease : leaseByReader.values()) {
            for (long held : lease.units) {
                if (held == unit) {
                    count++;
                }
            }
        }
        return count;
    }

    private void commit(List<WUnit> group) {
        for (WUnit unit : group) {
            if (ring.ownerOf(unit.slot) != unit.runId) {
                // The ring gave the slot to a newer run: the store is dropped, never written over it (R11).
                unit.state = UnitState.DROPPED;
                continue;
            }
            unit.state = UnitState.COMMITTED;
            Entry entry = entryBySlot.get(unit.slot);
            if (entry != null && entry.runId == unit.runId && entry.key.equals(unit.key)) {
                entry.committedLanes |= 1 << unit.lane;
            }
            long u = unit(unit.slot, unit.lane);
            long seq = ++commitSeq;
            lastCommitByUnit.put(u, seq);
            commitsAwaitingWrite.computeIfAbsent(u, k -> new ArrayDeque<>()).addLast(seq);
        }
    }

    private void drop(List<WUnit> group) {
        for (WUnit unit : group) {
            unit.state = UnitState.DROPPED;
            Entry entry = entryBySlot.get(unit.slot);
            if (entry != null && entry.runId == unit.runId && entry.key.equals(unit.key) && entry.committedLanes == 0) {
                removeEntryAt(unit.slot);
            }
        }
    }

    /** Staged groups whose leases are gone commit now; cancelled ones are dropped. */
    void retryWaiting() {
        for (var it = waitingForLeases.iterator(); it.hasNext(); ) {
            List<WUnit> group = it.next();
            if (cancelledWriters.containsKey(group.get(0).writer)) {
                it.remove();
                drop(group);
            } else if (!overlapsLease(group)) {
                it.remove();
                commit(group);
            }
        }
    }

    /** A preemption: queued and waiting units are dropped now, copying ones when their copy lands. */
    void cancel(long writer) {
        cancelledWriters.put(writer, true);
        List<WUnit> queued = new ArrayList<>();
        for (WUnit unit : unitsByWriter.getOrDefault(writer, List.of())) {
            if (unit.state == UnitState.QUEUED) {
                queued.add(unit);
            }
        }
        drop(queued);
        retryWaiting();
    }

    /** A failed write loses the units whose newest store it carried: their keys leave the index. */
    void onWriteDone(long ticket, boolean succeeded) {
        List<long[]> commits = commitsByWriteTicket.remove(ticket);
        if (succeeded || commits == null) {
            return;
        }
        for (long[] commit : commits) {
            long unit = commit[0];
            if (lastCommitByUnit.getOrDefault(unit, -1L) == commit[1]) {
                lastCommitByUnit.put(unit, ++commitSeq);
                removeEntryAt(slotOf(unit));
            }
        }
    }

    /** True when nothing is queued, copying or waiting: the index must then match exactly. */
    boolean quiescent() {
        for (List<WUnit> units : unitsByWriter.values()) {
            for (WUnit unit : units) {
                if (unit.state == UnitState.QUEUED || unit.state == UnitState.COPYING || unit.state == UnitState.WAIT_LEASE) {
                    return false;
                }
            }
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------
    // Lookups and leases
    // ------------------------------------------------------------------------------------------

    /** The hit in blocks: the visible prefix from block 0, capped by L1 and one token short of the prompt. */
    long hitTokens(List<BlockKey> chain, int blocks, long promptTokens) {
        int found = 0;
        while (found < blocks && visible(chain.get(found))) {
            found++;
        }
        long maxLeaseBlocks = l1CapacityBytes / laneBytes / tp;
        long usable = Math.min(found, maxLeaseBlocks);
        long hitEnd = Math.min(usable * HuntConfig.BLOCK_TOKENS, promptTokens - 1);
        return Math.max(0, hitEnd);
    }

    List<Long> unitsOfHit(List<BlockKey> chain, int hitBlocks) {
        List<Long> units = new ArrayList<>();
        for (int b = 0; b < hitBlocks; b++) {
            for (int lane = 0; lane < tp; lane++) {
                units.add(unit(entryByKey.get(chain.get(b)).slot, lane));
            }
        }
        return units;
    }

    long leasedBytes() {
        long units = 0;
        for (Lease lease : leaseByReader.values()) {
            units += lease.units.size();
        }
        return units * laneBytes;
    }

    /** Lease admission: remaining bytes of all leases plus the new one fit in L1. */
    boolean admits(int units) {
        return leasedBytes() + units * laneBytes <= l1CapacityBytes;
    }

    boolean hasLease(long reader) {
        return leaseByReader.containsKey(reader);
    }

    Lease lease(long reader) {
        return leaseByReader.get(reader);
    }

    void createLease(long reader, List<Long> units, int blocks, boolean ready) {
        Lease lease = new Lease();
        lease.units.addAll(units);
        lease.blocks = blocks;
        lease.ready = ready;
        leaseByReader.put(reader, lease);
    }

    void onAcquireDone(long reader, boolean succeeded) {
        Lease lease = leaseByReader.get(reader);
        if (lease != null) {
            lease.ready = succeeded;
        }
    }

    LoadOutcome expectedLoad(long reader) {
        Lease lease = leaseByReader.get(reader);
        if (lease == null) {
            return LoadOutcome.NO_LEASE;
        }
        if (lease.loading) {
            return LoadOutcome.ALREADY_LOADING;
        }
        return lease.ready ? LoadOutcome.STARTED : LoadOutcome.LEASE_NOT_READY;
    }

    void onLoadStarted(long reader) {
        leaseByReader.get(reader).loading = true;
    }

    /** The copy ended: a release-all finishes now; a successful load releases its ranges. */
    void onLoadDone(long reader, boolean succeeded) {
        Lease lease = leaseByReader.get(reader);
        if (lease == null) {
            return;
        }
        lease.loading = false;
        if (lease.releaseAll) {
            leaseByReader.remove(reader);
        } else if (succeeded) {
            lease.units.clear();
        }
    }

    /** Release whole; while a load copies, only marked (its borrowed slices stay held, R8). */
    void release(long reader) {
        Lease lease = leaseByReader.get(reader);
        if (lease == null) {
            return;
        }
        if (lease.loading) {
            lease.releaseAll = true;
        } else {
            leaseByReader.remove(reader);
        }
    }

    /** Raised when the store did something the reference cannot account for. */
    static final class RefMismatch extends RuntimeException {
        RefMismatch(String message) {
            super(message);
        }
    }
}
