package tierlab.hunt;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.TieredStore;

/**
 * Applies an engine-level schedule: requests arrive, the scheduler admits, prefetches, loads,
 * computes and saves, and the schedule decides which pending operation completes next, which
 * fails and which running request is preempted. After every step: the scheduler's and the store's
 * invariants (I1–I5, I9, R4, R6) and the payload ledger (I6 loads, R10 staging). After the last
 * step (arrivals stop) every pending operation completes oldest first: every request must finish
 * with nothing left over within a bounded number of steps (I10), every GPU block must be free
 * again, and every visible L2 unit must hold its key's bytes (I7).
 */
final class EngineRunner extends ScheduleRunner {
    static final int MAX_DRAIN_STEPS = 50_000;

    private final HuntConfig config;
    private final List<List<BlockKey>> chains;
    final TieredStore store;
    final ServingEngine scheduler;
    private final List<IoOp> pending = new ArrayList<>();
    private final List<Long> submitted = new ArrayList<>();
    private long nowNs;

    EngineRunner(Schedule schedule, int keepTraceEvents) {
        super(schedule, keepTraceEvents);
        this.config = schedule.config();
        this.chains = config.chains();
        this.store = new TieredStore(config.storeSettings(), trace);
        this.scheduler = ServingEngines.create(config.schedulerSettings(), store, trace);
    }

    @Override
    int outdatedAcquires() {
        return 0;
    }

    @Override
    long enginePreemptions() {
        return scheduler.preemptions();
    }

    @Override
    boolean apply(Step step) {
        return switch (step) {
            case Step.Arrive arrive -> arrive(arrive);
            case Step.Complete complete -> complete(complete.pick(), complete.ok());
            case Step.Preempt preempt -> preempt(preempt.target());
            default -> false;
        };
    }

    private boolean arrive(Step.Arrive step) {
        List<BlockKey> chain = chains.get(Math.floorMod(step.chain(), config.chainCount()));
        int blocks = 1 + Math.floorMod(step.blocks() - 1, config.chainBlocks());
        long id = submitted.size() + 1;
        long promptTokens = (long) blocks * HuntConfig.BLOCK_TOKENS + Math.floorMod(step.extraTokens(), HuntConfig.BLOCK_TOKENS);
        scheduler.submit(new RequestSpec(id, nowNs, promptTokens, 1 + Math.floorMod(step.outputTokens(), 4),
                chain.subList(0, blocks)), nowNs);
        submitted.add(id);
        return true;
    }

    private boolean complete(int pick, boolean ok) {
        if (pending.isEmpty()) {
            return false;
        }
        IoOp op = pending.remove(Math.floorMod(pick, pending.size()));
        // A compute step is the engine's own work; only I/O and copies fail.
        deliver(op, ok || op instanceof IoOp.Compute);
        return true;
    }

    private boolean preempt(int target) {
        List<RequestSpec> unfinished = scheduler.unfinished();
        if (unfinished.isEmpty()) {
            return false;
        }
        long id = unfinished.get(Math.floorMod(target, unfinished.size())).requestId();
        return scheduler.preempt(id, nowNs);
    }

    private void deliver(IoOp op, boolean ok) {
        nowNs += 1_000;
        ledger.apply(op, ok);
        scheduler.onCompletion(ok ? IoCompletion.ok(op.ticket()) : IoCompletion.failed(op.ticket(), "EIO"), nowNs);
    }

    @Override
    void afterStep() {
        scheduler.tick(nowNs);
        pending.addAll(scheduler.drainOps());
        scheduler.checkInvariants();
        if (ledger.loadMismatches() != 0) {
            throw new HuntFailure(Check.I6, "a load delivered other bytes than its request expected: " + ledger.mismatchExamples());
        }
        if (ledger.stagingMismatches() != 0) {
            throw new HuntFailure(Check.STAGING, "a staging copy read GPU blocks the engine had reused: " + ledger.mismatchExamples());
        }
    }

    @Override
    int drainAndVerify() {
        int steps = 0;
        afterStep();
        while (!pending.isEmpty()) {
            if (++steps > MAX_DRAIN_STEPS) {
                throw new HuntFailure(Check.I10, "no quiescence after " + MAX_DRAIN_STEPS + " completions; waiting "
                        + scheduler.waitingCount() + ", running " + scheduler.runningCount() + ", left over " + store.leftovers());
            }
            deliver(pending.remove(0), true);
            afterStep();
        }
        List<Long> finished = scheduler.finishedIds();
        List<Long> unfinished = new ArrayList<>();
        for (long id : submitted) {
            if (!finished.contains(id)) {
                unfinished.add(id);
            }
        }
        if (!unfinished.isEmpty()) {
            throw new HuntFailure(Check.I10, "nothing pending but requests " + unfinished + " never finished (waiting "
                    + scheduler.waitingCount() + ", running " + scheduler.runningCount() + ", active prefetches "
                    + scheduler.activePrefetches() + ", left over " + store.leftovers() + ")");
        }
        if (!store.leftovers().isEmpty()) {
            throw new HuntFailure(Check.I10, "every request finished but left over: " + store.leftovers());
        }
        if (scheduler.freeGpuBlockCount() != config.gpuKvBlocks()) {
            throw new HuntFailure(Check.I10, "GPU blocks leaked: " + scheduler.freeGpuBlockCount() + " of " + config.gpuKvBlocks() + " free");
        }
        long wrong = store.l2Disagreements(ledger);
        if (wrong != 0) {
            throw new HuntFailure(Check.I7, wrong + " visible L2 units do not hold their key's last store: " + ledger.mismatchExamples());
        }
        return steps;
    }

    int requestsSubmitted() {
        return submitted.size();
    }
}
