package tierlab.model.serving;

import tierlab.model.request.RequestOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.l2.L2Snapshot;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * R13 (docs/tiered-store.md section 7): more mixed/L2 requests than the prefetch bound arrive at once.
 * I5 must hold (at most {@code prefetchMaxRequests} active prefetches) and L1 requests must keep
 * being admitted.
 *
 * <p>Six prompts m0..m5 live only in L2 (stored in a cold pass, the store restarted from its index
 * snapshot with an empty L1); two prompts l0, l1 are then computed and saved, so they sit in L1:
 *
 * <pre>
 *   arrive: m0 m1 m2 m3 m4 m5 l0 l1 (one admission pass)
 *   m0, m1: L2 hits → prefetch (2 active = the bound)
 *   m2..m5: fixed: parked (4 deferrals)   R13 bug: the bound was read at pass start (0): 6 prefetches, I5 broken
 *   l0, l1: L1 hits → admitted at once, past the parked requests
 *   prefetches land → parked requests start theirs, two at a time → everything finishes
 * </pre>
 */
class RaceR13PrefetchBoundTest {
    private static final long PROMPT = 2 * 16 + 1;
    private static final int L2_REQUESTS = 6;

    private static List<BlockKey> m(int i) {
        return BlockChains.named("m" + i, 2);
    }

    private static List<BlockKey> l(int i) {
        return BlockChains.named("l" + i, 2);
    }

    /**
     * Cold pass for m0..m5, restart with an empty L1 over the same L2 bytes, then compute l0 and l1
     * so they are resident. Returns a harness whose next arrivals see m* as L2 hits and l* as L1 hits.
     */
    private static EngineHarness warmStore(Set<KnownBug> bugs) {
        StoreSettings settings = TinyModel.store(64, 256)
                .withKnownBugs(bugs);
        EngineHarness cold = new EngineHarness(settings, SchedulerSettings.defaults(512), 1, false);
        for (int i = 0; i < L2_REQUESTS; i++) {
            cold.submit(i, PROMPT, 2, m(i));
        }
        cold.runToQuiescence(100_000);
        assertEquals(L2_REQUESTS, cold.scheduler.finished().size());
        L2Snapshot snapshot = cold.store.snapshot();

        EngineHarness d = new EngineHarness(TieredStore.restore(settings, snapshot, new DecisionTrace()), SchedulerSettings.defaults(512),
                cold.ledger);
        assertEquals(0, d.store.residentCount());
        d.submit(100, PROMPT, 2, l(0));
        d.submit(101, PROMPT, 2, l(1));
        d.runToQuiescence(100_000);
        assertEquals(4, d.store.residentCount(), "l0 and l1 are in L1");
        return d;
    }

    private static void submitBurst(EngineHarness d) {
        for (int i = 0; i < L2_REQUESTS; i++) {
            d.submit(200 + i, PROMPT, 2, m(i));
        }
        d.submit(300, PROMPT, 2, l(0));
        d.submit(301, PROMPT, 2, l(1));
    }

    @Test
    void fixedModelHoldsPrefetchBoundAndAdmitsL1Requests() {
        EngineHarness d = warmStore(Set.of());
        submitBurst(d);
        d.step();
        assertEquals(2, d.scheduler.activePrefetches(), "two prefetches start, the bound");
        assertEquals(L2_REQUESTS - 2, d.scheduler.deferrals(), "the other four L2 requests are parked");
        assertEquals(2, d.scheduler.runningCount(), "l0 and l1 are admitted past the parked requests");
        assertEquals(L2_REQUESTS - 2, d.scheduler.waitingCount(), "four parked (the two prefetching left the queue)");

        d.runToQuiescence(100_000);
        assertTrue(d.maxActivePrefetches <= 2, "I5 at every step, max was " + d.maxActivePrefetches);
        assertEquals(2, d.maxActivePrefetches);
        assertTrue(d.scheduler.allFinished());
        List<RequestOutcome> outcomes = d.scheduler.finished();
        assertEquals(2 + L2_REQUESTS + 2, outcomes.size());
        for (RequestOutcome outcome : outcomes) {
            if (outcome.requestId() >= 300) {
                assertEquals(HitClass.L1, outcome.hitClass(), "request " + outcome.requestId());
                assertEquals(0, outcome.deferrals(), "an L1 request is never deferred by the bound");
                assertEquals(32, outcome.hitTokens());
            } else if (outcome.requestId() >= 200) {
                assertEquals(HitClass.L2, outcome.hitClass(), "request " + outcome.requestId());
                assertTrue(outcome.prefetched());
                assertEquals(32, outcome.hitTokens());
            }
        }
        assertEquals(L2_REQUESTS - 2, outcomes.stream().filter(o -> o.requestId() >= 200 && o.requestId() < 300)
                .filter(o -> o.deferrals() > 0).count());
        assertEquals(0, d.ledger.mismatches(), d.ledger.mismatchExamples().toString());
        assertEquals((L2_REQUESTS + 2) * 2, d.ledger.loadMatches(), "every warm request loaded its two blocks");
        assertEquals(List.of(), d.store.leftovers());
    }

    @Test
    void ablationBreaksOneAdmissionPassStartsMorePrefetchesThanTheBound() {
        EngineHarness d = warmStore(Set.of(KnownBug.R13_STALE_PREFETCH_BOUND));
        submitBurst(d);
        IllegalStateException broken = assertThrows(IllegalStateException.class, d::step);
        assertTrue(broken.getMessage().startsWith("I5"), broken.getMessage());
        assertEquals(L2_REQUESTS, d.scheduler.activePrefetches(), "all six L2 requests prefetch in one pass");
        assertEquals(0, d.scheduler.deferrals());
    }
}
