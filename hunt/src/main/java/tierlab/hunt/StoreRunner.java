package tierlab.hunt;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;
import tierlab.model.store.LookupResult;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.LookupResult.LeaseStatus;
import tierlab.model.store.StoreEvent;
import tierlab.model.store.TieredStore;
import tierlab.model.store.TieredStore.AcquireOutcome;
import tierlab.model.store.TieredStore.LoadOutcome;

/**
 * Applies a store-level schedule to the real {@link TieredStore} and to the {@link RefStore} side
 * by side. After every step: the store's own invariants (I1–I4, I9, R4, R6), the payload ledger
 * (I6: no load delivered other bytes; R10: no staging copy read reused GPU blocks), and agreement
 * with the reference on leases, lease bytes (I4), the L2 ring and index, save outcomes, lookups
 * (I8) and load outcomes. After the last step it drains to quiescence (I10), checks the L2 bytes
 * (I7) and reads every chain back through a fresh lookup, acquire and load (I6, I8).
 */
final class StoreRunner extends ScheduleRunner {
    static final long READER_BASE = 1_000;
    static final long READBACK_BASE = 9_000;
    /** GPU blocks reused after a preemption are overwritten with KV of keys no chain contains. */
    static final long JUNK_TRACE_ID = 999_999;
    static final int MAX_DRAIN_STEPS = 20_000;

    private final HuntConfig config;
    private final List<List<BlockKey>> chains;
    final TieredStore store;
    private final RefStore ref;
    private final List<IoOp> pending = new ArrayList<>();
    private final LookupResult[] lastLookup;
    private final List<Writer> writers = new ArrayList<>();
    private long nextGpuBlock;
    private long nowNs;
    private int outdatedAcquires;

    private static final class Writer {
        final long id;
        final List<Long> gpuBlocks;
        boolean reuseWhenStaged;

        Writer(long id, List<Long> gpuBlocks) {
            this.id = id;
            this.gpuBlocks = gpuBlocks;
        }
    }

    StoreRunner(Schedule schedule, int keepTraceEvents) {
        super(schedule, keepTraceEvents);
        this.config = schedule.config();
        this.chains = config.chains();
        this.store = new TieredStore(config.storeSettings(), trace);
        this.ref = new RefStore(config);
        this.lastLookup = new LookupResult[config.readers()];
    }

    @Override
    int outdatedAcquires() {
        return outdatedAcquires;
    }

    @Override
    long enginePreemptions() {
        return 0;
    }

    /** A disagreement with the reference model is a violation of its own kind. */
    @Override
    Violation violationOf(RuntimeException error) {
        if (error instanceof RefStore.RefMismatch mismatch) {
            return new Violation(Check.REFERENCE, stepIndex, mismatch.getMessage());
        }
        return super.violationOf(error);
    }

    // ------------------------------------------------------------------------------------------
    // Steps
    // ------------------------------------------------------------------------------------------

    /** Applies one step; false when it does not apply now (a no-op). */
    @Override
    boolean apply(Step step) {
        return switch (step) {
            case Step.Lookup lookup -> lookup(lookup);
            case Step.Acquire acquire -> acquire(Math.floorMod(acquire.reader(), config.readers()));
            case Step.Load load -> load(Math.floorMod(load.reader(), config.readers()));
            case Step.Release release -> release(Math.floorMod(release.reader(), config.readers()));
            case Step.Save save -> save(Math.floorMod(save.chain(), config.chainCount()), 1 + Math.floorMod(save.blocks() - 1, config.chainBlocks()));
            case Step.Preempt preempt -> preempt(preempt.target());
            case Step.Complete complete -> complete(complete.pick(), complete.ok());
            case Step.Arrive arrive -> false;
        };
    }

    private static long readerId(int reader) {
        return READER_BASE + reader;
    }

    private boolean lookup(Step.Lookup step) {
        int reader = Math.floorMod(step.reader(), config.readers());
        long id = readerId(reader);
        if (store.hasLease(id)) {
            // The engine never looks a request up again while it holds a lease; neither does the hunt.
            return false;
        }
        List<BlockKey> chain = chains.get(Math.floorMod(step.chain(), config.chainCount()));
        int blocks = 1 + Math.floorMod(step.blocks() - 1, config.chainBlocks());
        lastLookup[reader] = lookupAndCompare(id, chain, blocks, Math.floorMod(step.extraTokens(), HuntConfig.BLOCK_TOKENS));
        return true;
    }

    private LookupResult lookupAndCompare(long id, List<BlockKey> fullChain, int blocks, int extraTokens) {
        List<BlockKey> chain = fullChain.subList(0, blocks);
        long promptTokens = (long) blocks * HuntConfig.BLOCK_TOKENS + extraTokens;
        LookupResult result = store.lookup(id, chain, 0, promptTokens, nowNs);
        long expectedTokens = ref.hitTokens(chain, blocks, promptTokens);
        if (result.hitTokens() != expectedTokens) {
            throw new HuntFailure(Check.I8, "lookup of request " + id + " hit " + result.hitTokens()
                    + " tokens, the reference's visible prefix gives " + expectedTokens);
        }
        if ((result.hitClass() == HitClass.MISS) != (result.hitBlocks() == 0)) {
            throw new HuntFailure(Check.REFERENCE, "lookup class " + result.hitClass() + " with " + result.hitBlocks() + " hit blocks");
        }
        List<Long> expectedUnits = ref.unitsOfHit(chain, result.hitBlocks());
        if (!expectedUnits.equals(result.units())) {
            throw new HuntFailure(Check.I8, "lookup units " + result.units() + " but the reference index gives " + expectedUnits);
        }
        LeaseStatus expectedStatus = LeaseStatus.NONE;
        if (result.hitClass() == HitClass.L1) {
            expectedStatus = ref.admits(result.units().size()) ? LeaseStatus.LEASED : LeaseStatus.ADMISSION_WAIT;
        }
        if (result.leaseStatus() != expectedStatus) {
            throw new HuntFailure(expectedStatus == LeaseStatus.ADMISSION_WAIT ? Check.I4 : Check.REFERENCE,
                    "lookup of request " + id + " (" + result.hitClass() + ", " + result.units().size() + " units) lease "
                            + result.leaseStatus() + " but the reference expects " + expectedStatus + " with "
                            + ref.leasedBytes() + " B leased");
        }
        if (expectedStatus == LeaseStatus.LEASED) {
            ref.createLease(id, result.units(), result.hitBlocks(), true);
        }
        return result;
    }

    private boolean acquire(int reader) {
        long id = readerId(reader);
        LookupResult hit = lastLookup[reader];
        if (hit == null || !hit.isHit() || store.hasLease(id)) {
            return false;
        }
        for (int i = 0; i < hit.units().size(); i++) {
            IoOp.Content content = hit.expected().get(i);
            int slot = ref.slotOfKey(content.key());
            if (!ref.visible(content.key()) || ref.unit(slot, content.lane()) != hit.units().get(i)) {
                outdatedAcquires++;
                break;
            }
        }
        AcquireOutcome outcome = store.acquire(id, hit, nowNs);
        boolean admitted = ref.admits(hit.units().size());
        if ((outcome == AcquireOutcome.ADMISSION_WAIT) == admitted) {
            throw new HuntFailure(Check.I4, "acquire of request " + id + " (" + hit.units().size() + " units) returned "
                    + outcome + " but with " + ref.leasedBytes() + " B leased the reference "
                    + (admitted ? "admits it" : "makes it wait"));
        }
        if (admitted) {
            ref.createLease(id, hit.units(), hit.hitBlocks(), outcome == AcquireOutcome.READY);
        }
        return true;
    }

    private boolean load(int reader) {
        long id = readerId(reader);
        LoadOutcome expected = ref.expectedLoad(id);
        int blocks = ref.hasLease(id) ? Math.max(1, ref.lease(id).blocks) : 1;
        LoadOutcome outcome = store.load(id, freshGpuBlocks(blocks), nowNs);
        if (outcome != expected) {
            throw new HuntFailure(Check.REFERENCE, "load of request " + id + " returned " + outcome + ", the reference expects " + expected);
        }
        if (outcome == LoadOutcome.STARTED) {
            ref.onLoadStarted(id);
        }
        return outcome == LoadOutcome.STARTED;
    }

    private boolean release(int reader) {
        long id = readerId(reader);
        if (!ref.hasLease(id) && !store.hasLease(id)) {
            return false;
        }
        store.releaseLease(id, nowNs);
        ref.release(id);
        return true;
    }

    private boolean save(int chainIndex, int blocks) {
        long writerId = 1 + writers.size();
        List<BlockKey> chain = chains.get(chainIndex);
        List<Long> gpu = freshGpuBlocks(blocks);
        Writer writer = new Writer(writerId, gpu);
        writers.add(writer);
        List<IoOp.GpuBlockWrite> computed = new ArrayList<>();
        for (int b = 0; b < blocks; b++) {
            computed.add(new IoOp.GpuBlockWrite(gpu.get(b), chain.get(b)));
        }
        ledger.apply(new IoOp.Compute(-1, -1, List.of(new IoOp.ComputeItem(writerId, blocks * 16L, 0, computed))), true);
        TieredStore.SaveOutcome outcome = store.enqueueSave(writerId, chain, 0, blocks, gpu, nowNs);
        RefStore.SavePrediction expected = ref.save(writerId, chain, blocks);
        if (outcome.blocksQueued() != expected.queued() || outcome.blocksAlreadyPresent() != expected.present()) {
            throw new HuntFailure(Check.REFERENCE, "save of writer " + writerId + " queued " + outcome.blocksQueued() + " (present "
                    + outcome.blocksAlreadyPresent() + "), the reference expects " + expected.queued() + " (present "
                    + expected.present() + ")");
        }
        for (int i = 0; i < expected.newKeys().size(); i++) {
            L2Index.Entry entry = store.testView().l2Entry(expected.newKeys().get(i));
            if (entry == null || entry.slot() != expected.newSlots().get(i)) {
                throw new HuntFailure(Check.I2, "writer " + writerId + "'s block " + expected.newKeys().get(i) + " claimed slot "
                        + (entry == null ? "none" : entry.slot()) + ", the reference ring gives slot " + expected.newSlots().get(i));
            }
        }
        compareRing();
        return true;
    }

    private boolean preempt(int target) {
        if (writers.isEmpty()) {
            return false;
        }
        Writer writer = writers.get(Math.floorMod(target, writers.size()));
        boolean copying = store.cancelSaves(writer.id, nowNs);
        ref.cancel(writer.id);
        if (copying) {
            // The engine may reuse the blocks only when the store says no staging copy reads them.
            writer.reuseWhenStaged = true;
        } else {
            reuseGpuBlocks(writer);
        }
        return true;
    }

    private void reuseGpuBlocks(Writer writer) {
        List<IoOp.GpuBlockWrite> junk = new ArrayList<>();
        for (long block : writer.gpuBlocks) {
            junk.add(new IoOp.GpuBlockWrite(block, BlockKey.fromTraceId(BlockKey.ROOT, JUNK_TRACE_ID, (int) block)));
        }
        ledger.apply(new IoOp.Compute(-1, -1, List.of(new IoOp.ComputeItem(-1, 0, 0, junk))), true);
        writer.reuseWhenStaged = false;
    }

    private boolean complete(int pick, boolean ok) {
        if (pending.isEmpty()) {
            return false;
        }
        IoOp op = pending.remove(Math.floorMod(pick, pending.size()));
        deliver(op, ok);
        return true;
    }

    private void deliver(IoOp op, boolean ok) {
        nowNs += 1_000;
        ledger.apply(op, ok);
        switch (op) {
            case IoOp.CopyFromGpu copy -> ref.onStaged(copy, ok);
            case IoOp.L2Write write -> ref.onWriteDone(write.ticket(), ok);
            default -> { }
        }
        store.onCompletion(ok ? IoCompletion.ok(op.ticket()) : IoCompletion.failed(op.ticket(), "EIO"), nowNs);
    }

    private List<Long> freshGpuBlocks(int n) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(nextGpuBlock++);
        }
        return ids;
    }

    // ------------------------------------------------------------------------------------------
    // After every step
    // ------------------------------------------------------------------------------------------

    @Override
    void afterStep() {
        for (StoreEvent event : store.drainEvents()) {
            switch (event) {
                case StoreEvent.AcquireDone done -> ref.onAcquireDone(done.requestId(), done.succeeded());
                case StoreEvent.LoadDone done -> ref.onLoadDone(done.requestId(), done.succeeded());
                case StoreEvent.SaveStaged staged -> {
                    for (Writer writer : writers) {
                        if (writer.id == staged.requestId() && writer.reuseWhenStaged
                                && !store.cancelledStagingInFlight(writer.id)) {
                            reuseGpuBlocks(writer);
                        }
                    }
                }
            }
        }
        ref.retryWaiting();
        for (IoOp op : store.drainOps()) {
            ref.onEmitted(op);
            pending.add(op);
        }
        store.checkInvariants();
        if (store.l1UsedBytes() > store.settings().l1CapacityBytes()) {
            throw new HuntFailure(Check.I9, "L1 used " + store.l1UsedBytes() + " B > capacity");
        }
        if (ledger.loadMismatches() != 0) {
            throw new HuntFailure(Check.I6, "a load delivered other bytes than its request expected: " + ledger.mismatchExamples());
        }
        if (ledger.stagingMismatches() != 0) {
            throw new HuntFailure(Check.STAGING, "a staging copy read GPU blocks the engine had reused: " + ledger.mismatchExamples());
        }
        compareLeases();
        compareIndex();
    }

    private void compareLeases() {
        if (store.leasedRemainingBytes() != ref.leasedBytes()) {
            throw new HuntFailure(Check.I4, "leases hold " + store.leasedRemainingBytes() + " B, the reference counts " + ref.leasedBytes() + " B");
        }
        for (int reader = 0; reader < config.readers(); reader++) {
            long id = readerId(reader);
            if (store.hasLease(id) != ref.hasLease(id)) {
                throw new HuntFailure(Check.REFERENCE, "request " + id + (store.hasLease(id) ? " holds" : " does not hold")
                        + " a lease, the reference disagrees");
            }
        }
    }

    private void compareIndex() {
        for (List<BlockKey> chain : chains) {
            for (BlockKey key : chain) {
                L2Index.Entry entry = store.testView().l2Entry(key);
                int slot = entry == null ? -1 : entry.slot();
                if (slot != ref.slotOfKey(key)) {
                    throw new HuntFailure(Check.REFERENCE, "key " + key + " is at slot " + slot + " in the index, the reference says "
                            + ref.slotOfKey(key));
                }
                boolean visible = store.testView().l2Visible(key) != null;
                if (visible != ref.visible(key)) {
                    throw new HuntFailure(Check.I8, "key " + key + " is " + (visible ? "" : "not ") + "visible, the reference says "
                            + (ref.visible(key) ? "visible" : "not visible (not every lane committed, or dropped)"));
                }
            }
        }
    }

    private void compareRing() {
        List<L2Ring.Run> runs = store.testView().l2Runs();
        List<RefRing.Run> expected = ref.ring().runs();
        boolean same = runs.size() == expected.size();
        for (int i = 0; same && i < runs.size(); i++) {
            L2Ring.Run run = runs.get(i);
            RefRing.Run want = expected.get(i);
            same = run.runId() == want.runId() && run.firstSlot() == want.first() && run.slotCount() == want.count()
                    && run.skip() == want.skip();
        }
        if (!same) {
            throw new HuntFailure(Check.I2, "L2 ring runs " + runs + ", the reference ring has " + expected);
        }
    }

    // ------------------------------------------------------------------------------------------
    // The end: quiescence, then end-state checks and a read-back of every chain
    // ------------------------------------------------------------------------------------------

    @Override
    int drainAndVerify() {
        // Arrivals stop: every pending completion lands, then every reader that holds a ready lease
        // loads from it (as its request would), so a lease on wrong bytes shows up as a load mismatch.
        int steps = drainPending();
        for (int reader = 0; reader < config.readers(); reader++) {
            if (ref.expectedLoad(readerId(reader)) == LoadOutcome.STARTED) {
                load(reader);
                afterStep();
                steps += drainPending();
            }
        }
        for (int reader = 0; reader < config.readers(); reader++) {
            release(reader);
        }
        afterStep();
        steps += drainPending();
        if (!store.leftovers().isEmpty()) {
            throw new HuntFailure(Check.I10, "quiescent (nothing pending) but left over: " + store.leftovers());
        }
        if (!ref.quiescent()) {
            throw new HuntFailure(Check.REFERENCE, "the store is quiescent but the reference still has saves in flight");
        }
        long wrong = store.l2Disagreements(ledger);
        if (wrong != 0) {
            throw new HuntFailure(Check.I7, wrong + " visible L2 units do not hold their key's last store: " + ledger.mismatchExamples());
        }
        // Read every chain back: the visible prefix must load with the right bytes.
        for (int c = 0; c < chains.size(); c++) {
            long id = READBACK_BASE + c;
            LookupResult hit = lookupAndCompare(id, chains.get(c), config.chainBlocks(), 1);
            afterStep();
            if (hit.isHit() && !store.hasLease(id)) {
                AcquireOutcome outcome = store.acquire(id, hit, nowNs);
                if (outcome == AcquireOutcome.ADMISSION_WAIT) {
                    throw new HuntFailure(Check.I4, "read-back of chain " + c + " waits for lease admission with no other lease");
                }
                ref.createLease(id, hit.units(), hit.hitBlocks(), outcome == AcquireOutcome.READY);
                afterStep();
                steps += drainPending();
            }
            if (ref.hasLease(id)) {
                if (ref.expectedLoad(id) == LoadOutcome.STARTED) {
                    LoadOutcome outcome = store.load(id, freshGpuBlocks(Math.max(1, hit.hitBlocks())), nowNs);
                    if (outcome != LoadOutcome.STARTED) {
                        throw new HuntFailure(Check.REFERENCE, "read-back load of chain " + c + " returned " + outcome);
                    }
                    ref.onLoadStarted(id);
                    afterStep();
                    steps += drainPending();
                }
                store.releaseLease(id, nowNs);
                ref.release(id);
                afterStep();
                steps += drainPending();
            }
        }
        if (!store.leftovers().isEmpty()) {
            throw new HuntFailure(Check.I10, "after the read-back, left over: " + store.leftovers());
        }
        return steps;
    }

    /** Completes pending operations oldest first until none is left (I10: in bounded steps). */
    private int drainPending() {
        int steps = 0;
        while (!pending.isEmpty()) {
            if (++steps > MAX_DRAIN_STEPS) {
                throw new HuntFailure(Check.I10, "no quiescence after " + MAX_DRAIN_STEPS + " completions; left over " + store.leftovers());
            }
            deliver(pending.remove(0), true);
            afterStep();
        }
        return steps;
    }
}
