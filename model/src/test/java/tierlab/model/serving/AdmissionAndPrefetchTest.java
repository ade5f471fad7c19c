package tierlab.model.serving;

import tierlab.model.request.RequestOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.trace.DecisionTrace;

/** Scheduler admission with and without prefetch, the parking rule, and the per-step budgets. */
class AdmissionAndPrefetchTest {

    /** Stores {@code prompts} chains in a cold pass, then restarts with an empty L1 so they are L2-only. */
    static EngineHarness warmL2(int prompts, int blocks, SchedulerSettings scheduler) {
        StoreSettings settings = EngineSchedulerTest.store(64, 512);
        EngineHarness cold = new EngineHarness(settings, SchedulerSettings.defaults(512), 1, false);
        for (int i = 0; i < prompts; i++) {
            cold.submit(i, blocks * 16L + 1, 1, BlockChains.named("p" + i, blocks));
        }
        cold.runToQuiescence(1_000_000);
        TieredStore restarted = TieredStore.restore(settings, cold.store.snapshot(), new DecisionTrace());
        return new EngineHarness(restarted, scheduler, cold.ledger);
    }

    @Test
    void withPrefetchOffAnL2HitIsAdmittedAndTheStepStallsOnItsReads() {
        EngineHarness h = warmL2(1, 4, SchedulerSettings.defaults(512).withPrefetch(0, true));
        h.submit(100, 4 * 16 + 1, 1, BlockChains.named("p0", 4));
        h.scheduler.tick(h.nowNs);
        h.pending.addAll(h.scheduler.drainOps());
        assertEquals(1, h.scheduler.runningCount(), "admitted at once: no prefetch, no parking");
        assertEquals(StepEngine.StepPhase.LOADING, ((EngineScheduler) h.scheduler).stepPhase());
        assertEquals(4, h.pending.stream().filter(op -> op instanceof IoOp.L2Read).count());
        assertTrue(h.pending.stream().noneMatch(op -> op instanceof IoOp.Compute), "the step waits for its L2 reads");
        h.runToQuiescence(100_000);
        RequestOutcome outcome = h.scheduler.finished().get(0);
        assertEquals(HitClass.L2, outcome.hitClass());
        assertEquals(4 * 16, outcome.hitTokens());
        assertFalse(outcome.prefetched());
        assertEquals(0, h.scheduler.prefetchCalls());
        assertEquals(4, h.ledger.loadMatches());
    }

    @Test
    void withPrefetchOnAnL2HitIsDeferredUntilItsPrefetchEnds() {
        EngineHarness h = warmL2(1, 4, SchedulerSettings.defaults(512));
        h.submit(100, 4 * 16 + 1, 1, BlockChains.named("p0", 4));
        h.scheduler.tick(h.nowNs);
        h.pending.addAll(h.scheduler.drainOps());
        assertEquals(0, h.scheduler.runningCount(), "deferred while its ranges are promoted");
        assertEquals(1, h.scheduler.activePrefetches());
        assertEquals(EngineScheduler.StepPhase.IDLE, ((EngineScheduler) h.scheduler).stepPhase(), "the engine is not stalled by a prefetch");
        h.runToQuiescence(100_000);
        RequestOutcome outcome = h.scheduler.finished().get(0);
        assertTrue(outcome.prefetched());
        assertEquals(1, h.scheduler.prefetchCalls());
        assertEquals(0, h.scheduler.activePrefetches());
    }

    @Test
    void requestsBeyondTheBoundAreParkedWhileL1HitsKeepBeingAdmitted() {
        EngineHarness h = warmL2(4, 2, SchedulerSettings.defaults(512).withPrefetch(1, true));
        for (int i = 0; i < 4; i++) {
            h.submit(100 + i, 2 * 16 + 1, 1, BlockChains.named("p" + i, 2));
        }
        h.scheduler.tick(h.nowNs);
        assertEquals(1, h.scheduler.activePrefetches());
        assertEquals(3, h.scheduler.deferrals(), "three parked by the bound of one");
        h.runToQuiescence(1_000_000);
        assertEquals(4, h.scheduler.finished().size());
        assertTrue(h.scheduler.finished().stream().allMatch(RequestOutcome::prefetched));
    }

    @Test
    void withoutTheL1BypassL1HitsAlsoGoThroughThePrefetchWindow() {
        EngineHarness bypass = new EngineHarness(EngineSchedulerTest.store(64, 512), SchedulerSettings.defaults(512), 1, false);
        EngineHarness noBypass = new EngineHarness(EngineSchedulerTest.store(64, 512),
                SchedulerSettings.defaults(512).withPrefetch(2, false), 1, false);
        for (EngineHarness h : List.of(bypass, noBypass)) {
            h.submit(1, 3 * 16 + 1, 1, BlockChains.named("a", 3));
            h.runToQuiescence(100_000);
            h.submit(2, 3 * 16 + 1, 1, BlockChains.named("a", 3));
            h.runToQuiescence(100_000);
            assertEquals(HitClass.L1, h.scheduler.finished().get(1).hitClass());
        }
        assertEquals(0, bypass.scheduler.prefetchCalls(), "the bypass admits L1 hits at once");
        assertEquals(1, noBypass.scheduler.prefetchCalls(), "without it an L1 hit costs a prefetch call");
    }

    @Test
    void chunkedPrefillRespectsTheStepTokenBudgetAndMaxNumSeqs() {
        EngineHarness h = new EngineHarness(EngineSchedulerTest.store(64, 512),
                SchedulerSettings.builder(512).maxNumSeqs(2).maxBatchedTokens(40).build(), 1, false);
        for (int i = 0; i < 3; i++) {
            h.submit(i, 100, 3, BlockChains.named("q" + i, 6));
        }
        long maxStepTokens = 0;
        h.scheduler.tick(h.nowNs);
        h.pending.addAll(h.scheduler.drainOps());
        while (!h.pending.isEmpty()) {
            IoOp op = h.pending.remove(0);
            if (op instanceof IoOp.Compute compute) {
                maxStepTokens = Math.max(maxStepTokens, compute.newTokens());
                assertTrue(compute.items().size() <= 2, "maxNumSeqs");
            }
            h.nowNs += 1000;
            h.ledger.apply(op, true);
            h.scheduler.onCompletion(IoCompletion.ok(op.ticket()), h.nowNs);
            h.step();
            assertTrue(h.scheduler.runningCount() <= 2);
        }
        assertEquals(40, maxStepTokens, "steps are filled up to the budget");
        assertEquals(3, h.scheduler.finished().size());
        assertEquals(300, h.scheduler.computedPromptTokens());
    }

    @Test
    void decodeThatRunsOutOfGpuBlocksPreemptsTheNewestRequest() {
        // 14 GPU blocks: two 6-block prompts fit, their decode growth does not.
        EngineHarness h = new EngineHarness(EngineSchedulerTest.store(64, 512), SchedulerSettings.builder(14)
                .maxNumSeqs(4).build(), 1, false);
        h.submit(1, 6 * 16, 20, BlockChains.named("a", 6));
        h.submit(2, 6 * 16, 20, BlockChains.named("b", 6));
        h.runToQuiescence(1_000_000);
        assertTrue(h.scheduler.preemptions() > 0);
        assertEquals(2, h.scheduler.finished().size());
        assertTrue(h.scheduler.finished().stream().anyMatch(o -> o.preemptions() > 0));
        assertEquals(14, h.scheduler.freeGpuBlockCount());
        assertTrue(h.store.leftovers().isEmpty());
        assertTrue(h.store.counter(StoreCounter.STORES_ENQUEUED) >= 2);
    }
}
