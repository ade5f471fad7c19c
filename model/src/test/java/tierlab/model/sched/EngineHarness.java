package tierlab.model.sched;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.PayloadLedger;
import tierlab.model.serving.EngineScheduler;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * A minimal deterministic runtime for tests: it submits requests, completes the operations the
 * model emits one at a time (oldest first, or in an order drawn from a seeded generator), follows
 * payloads through a ledger and checks every invariant after every step.
 */
final class EngineHarness {
    final TieredStore store;
    final EngineScheduler scheduler;
    final PayloadLedger ledger;
    final DecisionTrace trace;
    final List<IoOp> pending = new ArrayList<>();
    final SplittableRandom completionOrder;
    long nowNs;
    long steps;
    /** Probability that a completed L2 read reports EIO instead (fault campaigns). */
    double readFailureProbability;
    final SplittableRandom faults;

    /** Drives an existing store (for example one restored from a snapshot) with completions in FIFO order. */
    EngineHarness(TieredStore existing, SchedulerSettings schedulerSettings, PayloadLedger sharedLedger) {
        this.trace = existing.trace();
        this.store = existing;
        this.scheduler = new EngineScheduler(schedulerSettings, store, trace);
        this.ledger = sharedLedger;
        this.completionOrder = null;
        this.faults = new SplittableRandom(0);
        this.checkPayloads = existing.settings().knownBugs().isEmpty();
    }

    EngineHarness(StoreSettings storeSettings, SchedulerSettings schedulerSettings, long seed, boolean shuffleCompletions) {
        this.trace = new DecisionTrace();
        this.store = new TieredStore(storeSettings, trace);
        this.scheduler = new EngineScheduler(schedulerSettings, store, trace);
        this.ledger = new PayloadLedger(storeSettings.geometry().laneBytes(), storeSettings.geometry().tp());
        this.completionOrder = shuffleCompletions ? new SplittableRandom(seed) : null;
        this.faults = new SplittableRandom(seed ^ 0x5DEECE66DL);
        this.checkPayloads = storeSettings.knownBugs().isEmpty();
    }

    void submit(long requestId, long promptTokens, long outputTokens, List<BlockKey> chain) {
        scheduler.submit(new RequestSpec(requestId, nowNs, promptTokens, outputTokens, chain), nowNs);
    }

    /** Runs until every request finished and nothing is pending; fails if it takes too many steps. */
    void runToQuiescence(long maxSteps) {
        scheduler.tick(nowNs);
        pending.addAll(scheduler.drainOps());
        scheduler.checkInvariants();
        while (!pending.isEmpty()) {
            if (++steps > maxSteps) {
                throw new AssertionError("no quiescence after " + maxSteps + " steps; store leftovers "
                        + store.leftovers() + ", waiting " + scheduler.waitingCount() + ", running " + scheduler.runningCount());
            }
            int pick = completionOrder == null ? 0 : completionOrder.nextInt(pending.size());
            IoOp op = pending.remove(pick);
            nowNs += 1_000;
            boolean succeeded = !(op instanceof IoOp.L2Read) || faults.nextDouble() >= readFailureProbability;
            ledger.apply(op, succeeded);
            scheduler.onCompletion(succeeded ? IoCompletion.ok(op.ticket()) : IoCompletion.failed(op.ticket(), "EIO"), nowNs);
            scheduler.tick(nowNs);
            pending.addAll(scheduler.drainOps());
            scheduler.checkInvariants();
        }
        // Quiescent: I6 (no load returned other bytes) and I7 (every stored range holds its last store).
        if (!checkPayloads) {
            return;
        }
        if (ledger.loadMismatches() != 0) {
            throw new AssertionError("I6: " + ledger.loadMismatches() + " load mismatches: " + ledger.mismatchExamples());
        }
        long wrongL2 = store.l2Disagreements(ledger);
        if (wrongL2 != 0) {
            throw new AssertionError("I7: " + wrongL2 + " L2 units do not hold their key: " + ledger.mismatchExamples());
        }
    }

    /**
     * Completes the first pending operation that matches (successfully, as the backend would), then
     * lets the engine go on one tick; the races' hand-written interleavings are built from this.
     */
    IoOp completeFirst(Predicate<IoOp> which) {
        IoOp op = pending.stream().filter(which).findFirst()
                .orElseThrow(() -> new AssertionError("no matching pending op in " + pending));
        pending.remove(op);
        nowNs += 1_000;
        ledger.apply(op, true);
        scheduler.onCompletion(IoCompletion.ok(op.ticket()), nowNs);
        scheduler.tick(nowNs);
        pending.addAll(scheduler.drainOps());
        scheduler.checkInvariants();
        return op;
    }

    /** I6 and I7 are checked at quiescence unless an ablation run is expected to break them. */
    boolean checkPayloads;
}
