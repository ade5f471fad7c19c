package tierlab.model.serving;

import tierlab.model.request.RequestOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.io.IoOp;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.trace.DecisionTrace;

/**
 * Prefetch stop policies in the vLLM-like engine, by hand: 16-token blocks, a prompt of 65 tokens
 * (4 full blocks, a hit capped at 64 tokens) stored on L2 only, completions 1,000 ns apart, and
 * the L2 reads delivered block by block in the order they were issued.
 */
class PrefetchStopEngineTest {

    private static final long PROMPT = 4 * 16 + 1;

    /** p0's four blocks on L2 only (a cold pass, then a restart with an empty L1). */
    private static EngineHarness l2Only(SchedulerSettings scheduler, Set<KnownBug> bugs) {
        StoreSettings settings = EngineSchedulerTest.store(64, 512).withKnownBugs(bugs);
        EngineHarness cold = new EngineHarness(settings, SchedulerSettings.defaults(512), 1, false);
        cold.submit(0, PROMPT, 1, BlockChains.named("p0", 4));
        cold.runToQuiescence(1_000_000);
        TieredStore restarted = TieredStore.restore(settings, cold.store.snapshot(), new DecisionTrace());
        EngineHarness h = new EngineHarness(restarted, scheduler, cold.ledger);
        h.checkPayloads = true;
        return h;
    }

    /** Request 100 for p0 submitted at 0 under {@code stop}; its prefetch of the four blocks has begun. */
    private static EngineHarness prefetching(PrefetchStop stop, Set<KnownBug> bugs) {
        EngineHarness h = l2Only(SchedulerSettings.defaults(512).withPrefetchStop(stop), bugs);
        h.submit(100, PROMPT, 1, BlockChains.named("p0", 4));
        h.step();
        return h;
    }

    private static RequestOutcome outcome(EngineHarness h, long requestId) {
        return h.scheduler.finished().stream().filter(o -> o.requestId() == requestId).findFirst().orElseThrow();
    }

    private static IoOp completeRead(EngineHarness h) {
        return h.completeFirst(op -> op instanceof IoOp.L2Read);
    }

    @Test
    void aTimeoutAdmitsTheBlocksThatArrivedAndRecomputesTheRest() {
        // Deadline 0 + 2,500 ns: reads land at 1,000, 2,000 and 3,000 ns; the step at 3,000 ns is past it.
        EngineHarness h = prefetching(PrefetchStop.timeout(2_500, 0), Set.of());
        assertEquals(1, h.scheduler.activePrefetches());
        completeRead(h);
        completeRead(h);
        assertEquals(1, h.scheduler.activePrefetches(), "2,000 ns: still before the deadline");
        completeRead(h);
        assertEquals(0, h.scheduler.activePrefetches(), "3,000 ns: stopped");
        assertEquals(1, h.scheduler.runningCount());
        h.runToQuiescence(10_000);
        RequestOutcome o = outcome(h, 100);
        assertEquals(3 * 16, o.hitTokens(), "three blocks had arrived");
        assertEquals(3 * 16, o.l2Tokens());
        assertEquals(16, o.prefetchTimeoutTokens(), "the fourth block's 16 hit tokens are recomputed");
        assertEquals(0, o.failedReadTokens());
        assertEquals(PROMPT - 3 * 16, o.recomputedTokens());
        assertEquals(3, h.ledger.loadMatches(), "only the arrived blocks were loaded");
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_CANCELLED), "the fourth read landed after the stop and was dropped");
        assertEquals(List.of(), h.store.leftovers());
    }

    @Test
    void bestEffortRunsAtTheFirstStepAfterThePrefetchBegan() {
        EngineHarness h = prefetching(PrefetchStop.BEST_EFFORT, Set.of());
        assertEquals(1, h.scheduler.activePrefetches(), "the step that began it does not stop it");
        completeRead(h);
        assertEquals(0, h.scheduler.activePrefetches(), "stopped at the next step, with the one block that arrived");
        h.runToQuiescence(10_000);
        RequestOutcome o = outcome(h, 100);
        assertEquals(16, o.hitTokens());
        assertEquals(3 * 16, o.prefetchTimeoutTokens());
        assertEquals(PROMPT - 16, o.recomputedTokens());
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(3, h.store.counter(StoreCounter.PROMOTIONS_CANCELLED));
        assertEquals(List.of(), h.store.leftovers());
    }

    @Test
    void aStoppedRequestLeavesSharedReadsToTheRequestStillWaiting() {
        // A begins at 0 (deadline 2,500 ns); B arrives at 1,000 ns, after block 0 landed, and joins the
        // reads of blocks 1-3 (deadline 3,500 ns). A stops at 3,000 ns with blocks 0-2; block 3's read
        // goes on for B, which gets every block at 4,000 ns.
        EngineHarness h = prefetching(PrefetchStop.timeout(2_500, 0), Set.of());
        completeRead(h);
        h.submit(101, PROMPT, 1, BlockChains.named("p0", 4));
        h.step();
        assertEquals(2, h.scheduler.activePrefetches());
        completeRead(h);
        completeRead(h);
        assertEquals(1, h.scheduler.activePrefetches(), "A stopped, B still waits");
        completeRead(h);
        assertEquals(0, h.scheduler.activePrefetches(), "B's prefetch completed");
        h.runToQuiescence(10_000);
        assertEquals(3 * 16, outcome(h, 100).hitTokens());
        assertEquals(16, outcome(h, 100).prefetchTimeoutTokens());
        assertEquals(4 * 16, outcome(h, 101).hitTokens());
        assertEquals(0, outcome(h, 101).prefetchTimeoutTokens());
        assertEquals(0, h.store.counter(StoreCounter.PROMOTIONS_CANCELLED), "the shared read had another waiter");
        assertEquals(3 + 4, h.ledger.loadMatches());
        assertEquals(List.of(), h.store.leftovers());
    }

    @Test
    void withItsFixOffAReadLandingAfterTheStopIsAttachedToTheStoppedLease() {
        EngineHarness h = prefetching(PrefetchStop.timeout(2_500, 0), Set.of(KnownBug.P1_SERVE_READ_AFTER_STOP));
        completeRead(h);
        completeRead(h);
        completeRead(h);
        IllegalStateException broken = assertThrows(IllegalStateException.class, () -> completeRead(h));
        assertTrue(broken.getMessage().contains("promoting") || broken.getMessage().contains("I3"), broken.getMessage());
    }

    /** Request 100 for p0 under {@code scheduler} with every L2 read failing, run to the end: its outcome. */
    private static RequestOutcome everyReadFails(SchedulerSettings scheduler) {
        EngineHarness h = l2Only(scheduler, Set.of());
        h.checkPayloads = false;
        h.readFailureProbability = 1.0;
        h.submit(100, PROMPT, 1, BlockChains.named("p0", 4));
        h.runToQuiescence(10_000);
        RequestOutcome o = outcome(h, 100);
        // Nothing was loaded: the whole hit (64 tokens) is recomputed and counted as failed reads.
        assertEquals(0, o.hitTokens(), "reported as computed, not as loaded");
        assertEquals(4 * 16, o.failedReadTokens());
        assertEquals(0, o.prefetchTimeoutTokens());
        assertEquals(PROMPT, o.recomputedTokens());
        return o;
    }

    @Test
    void failedL2ReadsThatEndInRecomputeAreCountedAsFailedReads() {
        // The prefetch is retried up to the bound (4), then the request recomputes the hit of its last try.
        assertEquals(HitClass.MISS, everyReadFails(SchedulerSettings.defaults(512)).hitClass(), "admitted as a miss at last");
    }

    @Test
    void aFailedReadOnTheSynchronousPathIsRecomputedAndCountedSo() {
        // Prefetch off: the step reads L2 itself; the failed read sends the hit to recompute.
        assertEquals(HitClass.L2, everyReadFails(SchedulerSettings.defaults(512).withPrefetch(0, true)).hitClass());
    }

    @Test
    void theSerialEngineCountsAFailedReadToo() {
        assertEquals(HitClass.L2, everyReadFails(SchedulerSettings.defaults(512).withEngine("serial")).hitClass());
    }
}
