package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.PayloadLedger;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * Drives a {@link TieredStore} by hand: collects the operations it emits, completes them in the
 * order a test chooses, follows payloads through a {@link PayloadLedger}, and checks the store's
 * invariants after every step. Its store settings and chains come from the shared test kit
 * ({@link TinyModel}, {@link BlockChains}), shared with every other module's tests.
 */
final class StoreHarness {
    final TieredStore store;
    final PayloadLedger ledger;
    final List<IoOp> pending = new ArrayList<>();
    final DecisionTrace trace;
    long nowNs;
    boolean checkEveryStep = true;

    StoreHarness(StoreSettings settings) {
        this(new TieredStore(settings, new DecisionTrace(64, null)));
    }

    StoreHarness(TieredStore store) {
        this(store, new PayloadLedger(store.settings().geometry().laneBytes(), store.settings().geometry().tp()));
    }

    StoreHarness(TieredStore store, PayloadLedger ledger) {
        this.store = store;
        this.ledger = ledger;
        this.trace = store.trace();
        collect();
    }

    static List<Long> gpuBlocks(long first, int n) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(first + i);
        }
        return ids;
    }

    /** A restart: the same L2 index and file (the ledger), an empty L1. */
    StoreHarness restartedWithEmptyL1() {
        return new StoreHarness(TieredStore.restore(store.settings(), store.snapshot(), new DecisionTrace()), ledger);
    }

    void collect() {
        pending.addAll(store.drainOps());
    }

    void check() {
        if (checkEveryStep) {
            store.checkInvariants();
        }
    }

    /** Puts a request's freshly computed KV in GPU blocks, as a compute step would. */
    void computeOnGpu(List<BlockKey> chain, List<Long> gpuBlockIds) {
        List<IoOp.GpuBlockWrite> writes = new ArrayList<>();
        for (int i = 0; i < chain.size(); i++) {
            writes.add(new IoOp.GpuBlockWrite(gpuBlockIds.get(i), chain.get(i)));
        }
        ledger.apply(new IoOp.Compute(-1, -1, List.of(new IoOp.ComputeItem(-1, chain.size() * 16L, 0, writes))), true);
    }

    /** Computes the chain on GPU blocks and queues its save. */
    TieredStore.SaveOutcome save(long requestId, List<BlockKey> chain, long firstGpuBlock) {
        List<Long> gpu = gpuBlocks(firstGpuBlock, chain.size());
        computeOnGpu(chain, gpu);
        TieredStore.SaveOutcome outcome = store.enqueueSave(requestId, chain, 0, chain.size(), gpu, nowNs);
        collect();
        check();
        return outcome;
    }

    <T extends IoOp> List<T> pendingOf(Class<T> type) {
        List<T> ops = new ArrayList<>();
        for (IoOp op : pending) {
            if (type.isInstance(op)) {
                ops.add(type.cast(op));
            }
        }
        return ops;
    }

    <T extends IoOp> T first(Class<T> type) {
        for (IoOp op : pending) {
            if (type.isInstance(op)) {
                return type.cast(op);
            }
        }
        throw new AssertionError("no pending " + type.getSimpleName() + " in " + pending);
    }

    IoOp first(Predicate<IoOp> which) {
        for (IoOp op : pending) {
            if (which.test(op)) {
                return op;
            }
        }
        throw new AssertionError("no pending op matches in " + pending);
    }

    /** The staging copy (GPU to L1) of a request's save; fails if none is pending. */
    IoOp.CopyFromGpu stagingOf(long requestId) {
        return (IoOp.CopyFromGpu) first(op -> op instanceof IoOp.CopyFromGpu c && c.requestId() == requestId);
    }

    boolean hasStaging(long requestId) {
        return pendingOf(IoOp.CopyFromGpu.class).stream().anyMatch(c -> c.requestId() == requestId);
    }

    void complete(IoOp op) {
        finish(op, true);
    }

    void fail(IoOp op) {
        finish(op, false);
    }

    private void finish(IoOp op, boolean succeeded) {
        if (!pending.remove(op)) {
            throw new AssertionError("op not pending: " + op);
        }
        nowNs += 1_000;
        ledger.apply(op, succeeded);
        store.onCompletion(succeeded ? IoCompletion.ok(op.ticket()) : IoCompletion.failed(op.ticket(), "EIO"), nowNs);
        collect();
        check();
    }

    /** Completes pending operations first-in-first-out until none is left. */
    void drain() {
        int guard = 0;
        while (!pending.isEmpty()) {
            complete(pending.get(0));
            if (++guard > 1_000_000) {
                throw new AssertionError("no quiescence");
            }
        }
    }

    List<StoreEvent> events() {
        return store.drainEvents();
    }

    /** Drains the store's events and keeps the finished acquisitions (the others are dropped). */
    List<StoreEvent> acquireEvents() {
        return events().stream().filter(e -> e instanceof StoreEvent.AcquireDone).toList();
    }

    LookupResult lookup(long requestId, List<BlockKey> chain) {
        LookupResult result = store.lookup(requestId, chain, 0, chain.size() * 16L + 1, nowNs);
        collect();
        check();
        return result;
    }

    TieredStore.AcquireOutcome acquire(long requestId, LookupResult hit) {
        TieredStore.AcquireOutcome outcome = store.acquire(requestId, hit, nowNs);
        collect();
        check();
        return outcome;
    }

    TieredStore.LoadOutcome load(long requestId, long firstGpuBlock, int blocks) {
        TieredStore.LoadOutcome outcome = store.load(requestId, gpuBlocks(firstGpuBlock, blocks), nowNs);
        collect();
        check();
        return outcome;
    }

    void release(long requestId) {
        store.releaseLease(requestId, nowNs);
        collect();
        check();
    }

    /**
     * The whole path of an L2 hit: looks {@code chain} up for {@code requestId} (an L2 hit), promotes
     * it, loads it into GPU blocks from {@code firstGpuBlock}, releases the lease and drains; the
     * ledger then tells which bytes arrived. Returns the lookup's result.
     */
    LookupResult promoteAndLoad(long requestId, List<BlockKey> chain, long firstGpuBlock) {
        LookupResult hit = lookup(requestId, chain);
        assertEquals(HitClass.L2, hit.hitClass());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, acquire(requestId, hit));
        complete(first(IoOp.L2Read.class));
        assertEquals(TieredStore.LoadOutcome.STARTED, load(requestId, firstGpuBlock, chain.size()));
        complete(first(IoOp.CopyToGpu.class));
        release(requestId);
        drain();
        return hit;
    }

    /** Unit offsets of a chain's blocks as the index has them now (lane 0). */
    List<Long> unitsOf(List<BlockKey> chain) {
        List<Long> units = new ArrayList<>();
        for (BlockKey key : chain) {
            var entry = store.testView().l2Entry(key);
            units.add(entry == null ? -1 : store.testView().unitOffset(entry.slot(), 0));
        }
        return units;
    }
}
