package tierlab.model.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.PayloadLedger;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * A minimal deterministic runtime for tests, through the {@link ServingEngine} port alone (so it
 * drives every registered engine): it submits requests, completes the operations the engine emits
 * one at a time (oldest first, or in an order drawn from a seeded generator), follows payloads
 * through a ledger, and checks every invariant after every step. At quiescence it also checks I6 (no
 * load returned other bytes) and I7 (every stored range holds its last store), unless the store runs
 * with an ablation switched on, which is expected to break them.
 */
public final class EngineHarness {
    public final TieredStore store;
    /** The engine under test (the vLLM-like scheduler unless the settings name another). */
    public final ServingEngine scheduler;
    public final PayloadLedger ledger;
    public final DecisionTrace trace;
    /** Operations emitted and not yet completed, oldest first. */
    public final List<IoOp> pending = new ArrayList<>();
    private final SplittableRandom completionOrder;
    private final SplittableRandom faults;
    public long nowNs;
    /** Completions delivered by {@link #runToQuiescence} so far. */
    public long steps;
    /** Probability that a completed L2 read reports EIO instead (fault campaigns). */
    public double readFailureProbability;
    /** I6 and I7 are checked at quiescence unless an ablation run is expected to break them. */
    public boolean checkPayloads;
    /** The most prefetches in flight seen after any step (I5 bounds it by the prefetch window). */
    public int maxActivePrefetches;

    /** Drives an existing engine, with completions in FIFO order and payloads followed by {@code ledger}. */
    public EngineHarness(ServingEngine engine, PayloadLedger ledger) {
        this(engine, ledger, null, new SplittableRandom(0));
    }

    /** Drives an existing engine with a fresh ledger for its store's geometry, completions in FIFO order. */
    public EngineHarness(ServingEngine engine) {
        this(engine, new PayloadLedger(engine.store().settings().geometry().laneBytes(), engine.store().settings().geometry().tp()));
    }

    /** Drives an existing store (for example one restored from a snapshot) with completions in FIFO order. */
    public EngineHarness(TieredStore existing, SchedulerSettings schedulerSettings, PayloadLedger sharedLedger) {
        this(ServingEngines.create(schedulerSettings, existing, existing.trace()), sharedLedger);
    }

    /** A fresh store and engine; completions oldest first, or shuffled by {@code seed}. */
    public EngineHarness(StoreSettings storeSettings, SchedulerSettings schedulerSettings, long seed, boolean shuffleCompletions) {
        this(freshEngine(storeSettings, schedulerSettings),
                new PayloadLedger(storeSettings.geometry().laneBytes(), storeSettings.geometry().tp()),
                shuffleCompletions ? new SplittableRandom(seed) : null, new SplittableRandom(seed ^ 0x5DEECE66DL));
    }

    private EngineHarness(ServingEngine engine, PayloadLedger ledger, SplittableRandom completionOrder, SplittableRandom faults) {
        this.scheduler = engine;
        this.store = engine.store();
        this.trace = store.trace();
        this.ledger = ledger;
        this.completionOrder = completionOrder;
        this.faults = faults;
        this.checkPayloads = store.settings().knownBugs().isEmpty();
    }

    private static ServingEngine freshEngine(StoreSettings storeSettings, SchedulerSettings schedulerSettings) {
        DecisionTrace trace = new DecisionTrace();
        return ServingEngines.create(schedulerSettings, new TieredStore(storeSettings, trace), trace);
    }

    public void submit(long requestId, long promptTokens, long outputTokens, List<BlockKey> chain) {
        scheduler.submit(new RequestSpec(requestId, nowNs, promptTokens, outputTokens, chain), nowNs);
    }

    /** One engine step at the current time: tick, collect the operations it emits, check every invariant. */
    public void step() {
        scheduler.tick(nowNs);
        pending.addAll(scheduler.drainOps());
        maxActivePrefetches = Math.max(maxActivePrefetches, scheduler.activePrefetches());
        scheduler.checkInvariants();
    }

    /** Runs until every request finished and nothing is pending; fails if it takes too many steps. */
    public void runToQuiescence(long maxSteps) {
        step();
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
            step();
        }
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
     * lets the engine go on one step; the races' hand-written interleavings are built from this.
     */
    public IoOp completeFirst(Predicate<IoOp> which) {
        IoOp op = pending.stream().filter(which).findFirst()
                .orElseThrow(() -> new AssertionError("no matching pending op in " + pending));
        pending.remove(op);
        nowNs += 1_000;
        ledger.apply(op, true);
        scheduler.onCompletion(IoCompletion.ok(op.ticket()), nowNs);
        step();
        return op;
    }
}
