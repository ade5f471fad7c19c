package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.request.RequestOutcome;
import tierlab.model.serving.ServingEngines;

/**
 * The hunt profile of {@code sglang}: its schedules drive the engine and reach what the profile is for
 * (requests served from each other's pages in the radix tree, pages evicted, retractions, prefetches
 * stopped by their policy, every write policy and stop policy in use), with every check after every step
 * holding for the fixed model.
 */
class SglangProfileTest {

    @Test
    void theProfileRunsSglangAndReachesHitsEvictionsRetractionsAndEveryPolicy() {
        long[] gpuCachedTokens = {0};
        long[] evictions = {0};
        long[] retractions = {0};
        long[] stoppedTokens = {0};
        Set<String> writePolicies = new HashSet<>();
        Set<String> stops = new HashSet<>();
        qt().withFixedSeed(42).withExamples(300).forAll(Generators.schedules(Profile.sglang(), Set.of()))
                .checkAssert(schedule -> {
                    assertEquals(ServingEngines.SGLANG, schedule.config().engine());
                    EngineRunner runner = new EngineRunner(schedule, 0);
                    ScheduleResult result = runner.run();
                    assertNull(result.violation(), () -> String.valueOf(result.violation()));
                    assertEquals(ServingEngines.SGLANG, runner.scheduler.kind());
                    gpuCachedTokens[0] += runner.scheduler.finished().stream().mapToLong(RequestOutcome::gpuCachedTokens).sum();
                    evictions[0] += runner.scheduler.gpuBlocksEvicted();
                    retractions[0] += runner.scheduler.preemptions();
                    stoppedTokens[0] += runner.scheduler.prefetchTimeoutTokens();
                    writePolicies.add(runner.scheduler.settings().hostWritePolicy().label());
                    stops.add(runner.scheduler.settings().prefetchStop().settingText());
                });
        System.out.printf("sglang profile, 300 schedules: %d tokens from the GPU cache, %d GPU evictions, %d retractions,"
                + " %d tokens recomputed for stopped prefetches%n", gpuCachedTokens[0], evictions[0], retractions[0], stoppedTokens[0]);
        assertTrue(gpuCachedTokens[0] > 0 && evictions[0] > 0 && retractions[0] > 0 && stoppedTokens[0] > 0,
                gpuCachedTokens[0] + " cached tokens, " + evictions[0] + " evictions, " + retractions[0] + " retractions, "
                        + stoppedTokens[0] + " stopped");
        assertEquals(Set.of("write-through", "write-after-hits:2", "write-back"), writePolicies);
        assertEquals(Set.of("wait-complete", "best-effort", "timeout:0.003+0.001"), stops);
    }

    /** sglang over stores that write L1 to L2 back on eviction or after hits: every check holds, and saves happen. */
    @Test
    void sglangOverTheStoresWritePoliciesKeepsEveryCheck() {
        for (Profile profile : Profile.sglangStoreWritePolicies()) {
            long[] finished = {0};
            qt().withFixedSeed(7).withExamples(300).forAll(Generators.schedules(profile, Set.of())).checkAssert(schedule -> {
                assertEquals(ServingEngines.SGLANG, schedule.config().engine());
                EngineRunner runner = new EngineRunner(schedule, 0);
                ScheduleResult result = runner.run();
                assertNull(result.violation(), () -> profile.name() + ": " + result.violation());
                finished[0] += runner.scheduler.finishedCount();
            });
            assertTrue(finished[0] > 0, profile.name());
        }
    }
}
