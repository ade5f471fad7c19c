package tierlab.model.store;

import java.util.ArrayDeque;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.IoOp;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.LongMap;

/**
 * What every part of a {@link TieredStore} shares: the settings and geometry, the L2 pool (ring,
 * index and epochs; handed in from outside), the decision trace and counters, the outboxes of operations and events,
 * the ticket and id sequences, the in-flight work by ticket, and the parts themselves (the parts
 * call one another: a lease starts a promotion, a landed write releases the promotions waiting
 * for it, a store commit publishes in L1).
 *
 * <p>One context per store, built first; the parts are attached once, by the facade's constructor.
 */
final class StoreContext {
    final StoreSettings settings;
    final Geometry geometry;
    final long laneBytes;
    final int tp;
    final int slotCount;
    /** {@code slotCount × tp}: the size of every per-unit table. */
    final int unitCount;
    final RaceSwitches races;
    final DecisionTrace trace;
    /** The L2 tier this store serves from; its ring and index are also here, read on every hot path. */
    final L2Pool l2;
    final L2Ring ring;
    final L2Index index;
    /** This store's index among the pool's members. */
    final int poolMember;
    final long[] counters = new long[StoreCounter.values().length];

    final ArrayDeque<IoOp> outbox = new ArrayDeque<>();
    final ArrayDeque<StoreEvent> events = new ArrayDeque<>();
    private long nextTicket = 1;
    private long nextId = 1;
    /** In-flight work by ticket; looked up on every completion, iterated only by checks that decide nothing. */
    final LongMap<Object> inflightByTicket = new LongMap<>();

    L1Space space;
    Leases leases;
    Promotions promotions;
    Loads loads;
    SavePipeline saves;
    L2Writes writes;
    L2WriteGate gate;
    Recovery recovery;

    /** A context over {@code l2}, which must be of {@code settings}' size and geometry. */
    StoreContext(StoreSettings settings, DecisionTrace trace, L2Pool l2) {
        this.settings = settings;
        this.geometry = settings.geometry();
        this.laneBytes = geometry.laneBytes();
        this.tp = geometry.tp();
        this.slotCount = Math.toIntExact(Math.min(Integer.MAX_VALUE, settings.slotCount()));
        this.unitCount = Math.toIntExact((long) slotCount * tp);
        this.races = new RaceSwitches(settings);
        this.trace = trace;
        l2.checkServes(settings);
        this.l2 = l2;
        this.ring = l2.ring();
        this.index = l2.index();
        this.poolMember = l2.members().attach(this);
    }

    /**
     * The committed entry of {@code key} this store may serve: the index's, unless another store of a
     * shared pool committed it and its bytes have not all landed on L2 yet (X1).
     */
    L2Index.Entry visible(tierlab.model.geometry.BlockKey key) {
        L2Index.Entry entry = index.visible(key);
        if (entry == null || l2.members().readableBy(poolMember, entry, l2)) {
            return entry;
        }
        return null;
    }

    /** Ticket numbers are shared with the scheduler so every op in a run has a distinct ticket. */
    long nextTicket() {
        return nextTicket++;
    }

    /** Ids of leases, promotions and read batches, one sequence for all (the trace names them). */
    long nextId() {
        return nextId++;
    }

    void count(StoreCounter counter, long delta) {
        counters[counter.ordinal()] += delta;
    }

    void emit(IoOp op) {
        outbox.addLast(op);
        switch (op) {
            case IoOp.L2Read read -> trace.record("op-read", read.ticket(), read.l2Offset(), read.l1Offset(), read.batchId());
            case IoOp.L2Write write -> trace.record("op-write", write.ticket(), write.l2Offset(), write.l1Offset(), write.lengthBytes());
            case IoOp.CopyToGpu copy -> trace.record("op-h2d", copy.ticket(), copy.requestId(), copy.segments().size());
            case IoOp.CopyFromGpu copy -> trace.record("op-d2h", copy.ticket(), copy.requestId(), copy.l1Offset(), copy.gpuBlockIds().size());
            case IoOp.Compute compute -> trace.record("op-compute", compute.ticket());
        }
    }

    /** Resumes everything that waits for space, leases or writes until nothing more can move. */
    void pump() {
        boolean progress;
        do {
            progress = promotions.reserveWaitingPromotions();
            progress |= saves.pumpStoreQueue();
            progress |= saves.retryStoresWaitingForLeases();
        } while (progress);
        promotions.flushReadyReads();
    }

    /**
     * A unit's index ({@code lane × slotCount + slot}) from its byte offset. It is also the
     * replacement policy's key of the unit: indexes are small and dense, so the policy's key table
     * is a plain array, and the map is monotonic, so any order the policy sees among keys is the
     * offsets' order.
     */
    int unitIndex(long unit) {
        return (int) (unit / laneBytes);
    }

    long unitOffset(int slot, int lane) {
        return ((long) lane * slotCount + slot) * laneBytes;
    }

    int slotOf(long unit) {
        return (int) ((unit / laneBytes) % slotCount);
    }
}
