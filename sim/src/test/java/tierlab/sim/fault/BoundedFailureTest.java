package tierlab.sim.fault;

import tierlab.model.request.RequestOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.drive.ProgressWatchdog;
import tierlab.model.geometry.Geometry;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.EngineScheduler;
import tierlab.model.serving.PrefetchRetryBound;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.sim.SimRuntime;
import tierlab.sim.device.DeviceProfile;
import tierlab.model.util.SeedTree;

/**
 * A run whose L2 reads keep failing ends, in bounded virtual work. Before the fix a
 * failed prefetch went back to the queue, was looked up again, found the same L2 entries and
 * prefetched them again, forever (sim never ended, memory grew ~20 MB/s).
 */
class BoundedFailureTest {

    /** The fault campaign's workload (three passes of 15 prompts, L1 of 100 blocks) with every L2 read failing. */
    static SimRuntime everyReadFails(ProgressWatchdog watchdog, int failedPrefetchLimit) {
        Geometry geometry = Geometry.qwen3_8b();
        long block = geometry.blockBytes();
        StoreSettings settings = StoreSettings.defaults(geometry, 100 * block, 2_000 * block);
        DecisionTrace trace = new DecisionTrace();
        EngineScheduler engine = (EngineScheduler) ServingEngines.create(
                SchedulerSettings.defaults(20_000).withConcurrency(6).withPrefetch(2, true), new TieredStore(settings, trace), trace);
        engine.retryBound().setLimit(failedPrefetchLimit);
        SeedTree seeds = new SeedTree(7);
        SimRuntime runtime = new SimRuntime(engine, DeviceProfile.preset("qwen3-8b-h100"), seeds);
        runtime.setCompletionFilter(new FaultInjector(FaultSettings.readErrors(1.0), seeds.random("faults")));
        runtime.setCheckInvariants(true);
        runtime.setWatchdog(watchdog);
        FaultCampaignTest.submitWorkload(runtime, seeds);
        return runtime;
    }

    @Test
    void aBlockWhoseReadKeepsFailingIsRetriedABoundedNumberOfTimesThenRecomputed() {
        // The device rule is set out of reach: only the retry bound can end this run.
        SimRuntime runtime = everyReadFails(new ProgressWatchdog(1_000_000, Integer.MAX_VALUE), 3);
        runtime.run();
        EngineScheduler engine = (EngineScheduler) runtime.scheduler();
        assertEquals(45, engine.finished().size(), "every request finished by recomputing what it could not read");
        assertTrue(engine.retryBound().giveUps() > 0, "requests gave up on L2");
        assertTrue(runtime.store().counter(StoreCounter.PROMOTIONS_FAILED) > 0, "reads failed");
        assertTrue(runtime.store().leftovers().isEmpty(), runtime.store().leftovers().toString());
        assertEquals(0, runtime.ledger().mismatches());
        // No request prefetched more than the bound: the prefetch calls are bounded by requests x (limit + 1).
        assertTrue(engine.prefetchCalls() <= 45L * 4, "prefetches " + engine.prefetchCalls());
        System.out.printf("every read fails, retry bound 3: %d requests finished in %d events, %d gave up on L2%n",
                engine.finished().size(), runtime.simulator().eventsFired(), engine.retryBound().giveUps());
        engine.checkInvariants();
    }

    @Test
    void tokensRecomputedBecauseTheirReadsKeptFailingAreCountedAsFailedReads() {
        // Every L2 read fails (fault injection): a hit is retried up to the bound, then its tokens are computed.
        // They count as recomputed for a failed read, per request and per pass, and not as misses.
        SimRuntime runtime = everyReadFails(new ProgressWatchdog(1_000_000, Integer.MAX_VALUE), 3);
        tierlab.metrics.CounterSnapshot before = runtime.counterSnapshot();
        runtime.run();
        EngineScheduler engine = (EngineScheduler) runtime.scheduler();
        List<tierlab.model.request.RequestOutcome> outcomes = engine.finished();
        long failedRead = 0;
        long gaveUp = 0;
        for (tierlab.model.request.RequestOutcome outcome : outcomes) {
            assertTrue(outcome.failedReadTokens() <= outcome.recomputedTokens(), outcome.toString());
            assertEquals(0, outcome.prefetchTimeoutTokens());
            if (outcome.failedReadTokens() > 0) {
                gaveUp++;
                assertEquals(0, outcome.hitTokens(), "nothing was loaded: " + outcome);
            }
            failedRead += outcome.failedReadTokens();
        }
        assertEquals(engine.retryBound().giveUps(), gaveUp, "every request that gave up on L2 counts its hit as failed reads");
        tierlab.metrics.PassMetrics pass = tierlab.metrics.PassMetrics.of("all", outcomes, before, runtime.counterSnapshot());
        assertTrue(failedRead > 0);
        assertEquals(failedRead, pass.value(tierlab.metrics.PassMetric.RECOMPUTED_TOKENS_FAILED_READ));
        assertEquals(engine.computedPromptTokens() - failedRead, pass.value(tierlab.metrics.PassMetric.RECOMPUTED_TOKENS_MISS));
    }

    @Test
    void aDeviceThatFailsEveryReadEndsTheRunWithTheCause() {
        SimRuntime runtime = everyReadFails(ProgressWatchdog.defaults(), PrefetchRetryBound.DEFAULT_FAILED_PREFETCHES);
        ProgressWatchdog.RunStopped stopped = assertThrows(ProgressWatchdog.RunStopped.class, runtime::run);
        assertTrue(stopped.getMessage().contains("the L2 device failed every read") && stopped.getMessage().contains("EIO"),
                stopped.getMessage());
        System.out.printf("every read fails, defaults: stopped after %d events: %s%n", runtime.simulator().eventsFired(),
                stopped.getMessage());
    }

    @Test
    void theProgressWatchdogEndsALoopWithoutProgress() {
        // Unbounded retries bring back the loop of the issue; the watchdog (device rule out of reach) ends it.
        SimRuntime runtime = everyReadFails(new ProgressWatchdog(20_000, Integer.MAX_VALUE), Integer.MAX_VALUE);
        ProgressWatchdog.RunStopped stopped = assertThrows(ProgressWatchdog.RunStopped.class, runtime::run);
        assertTrue(stopped.getMessage().startsWith("no progress: 20000 completions without a compute step"), stopped.getMessage());
        assertTrue(runtime.simulator().eventsFired() < 200_000, "stopped early: " + runtime.simulator().eventsFired());
    }

    @Test
    void theWatchdogStopsTheSameRunAtTheSameEventEveryTime() {
        long[] events = new long[2];
        for (int i = 0; i < 2; i++) {
            SimRuntime runtime = everyReadFails(new ProgressWatchdog(5_000, Integer.MAX_VALUE), Integer.MAX_VALUE);
            assertThrows(ProgressWatchdog.RunStopped.class, runtime::run);
            events[i] = runtime.simulator().eventsFired();
        }
        assertEquals(events[0], events[1], "counted in completions, not time: deterministic");
    }

}
