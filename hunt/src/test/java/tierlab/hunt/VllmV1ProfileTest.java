package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.request.RequestOutcome;
import tierlab.model.serving.ServingEngines;

/**
 * The hunt profile of {@code vllm-v1}: its schedules drive the engine with its GPU prefix cache on, and
 * they reach what the profile is for (requests served from each other's cached GPU blocks, cached
 * blocks evicted, preemptions), with every check after every step holding for the fixed model.
 */
class VllmV1ProfileTest {

    @Test
    void theProfileRunsVllmV1WithPrefixCachingAndReachesHitsEvictionsAndPreemptions() {
        long[] gpuCachedTokens = {0};
        long[] evictions = {0};
        long[] preemptions = {0};
        qt().withFixedSeed(42).withExamples(300).forAll(Generators.schedules(Profile.vllmV1(), Set.of()))
                .checkAssert(schedule -> {
                    assertEquals(ServingEngines.VLLM_V1, schedule.config().engine());
                    assertTrue(schedule.config().schedulerSettings().prefixCaching());
                    EngineRunner runner = new EngineRunner(schedule, 0);
                    ScheduleResult result = runner.run();
                    assertNull(result.violation(), () -> String.valueOf(result.violation()));
                    assertEquals(ServingEngines.VLLM_V1, runner.scheduler.kind());
                    gpuCachedTokens[0] += runner.scheduler.finished().stream().mapToLong(RequestOutcome::gpuCachedTokens).sum();
                    evictions[0] += runner.scheduler.gpuBlocksEvicted();
                    preemptions[0] += runner.scheduler.preemptions();
                });
        System.out.printf("vllm-v1 profile, 300 schedules: %d tokens from the GPU cache, %d GPU evictions, %d preemptions%n",
                gpuCachedTokens[0], evictions[0], preemptions[0]);
        assertTrue(gpuCachedTokens[0] > 0 && evictions[0] > 0 && preemptions[0] > 0,
                gpuCachedTokens[0] + " cached tokens, " + evictions[0] + " evictions, " + preemptions[0] + " preemptions");
    }

    @Test
    void aConfigWithoutAnEngineIsTheDefaultOneAndAnUnknownEngineIsRefused() {
        HuntConfig config = Schedules.tinyStore(java.util.List.of()).config();
        assertEquals(ServingEngines.VLLM, config.engine());
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new HuntConfig(config.level(), config.tp(), config.l1Blocks(), config.l2Slots(), config.policy(),
                        config.promotionsAsHeadroom(), config.headroomFraction(), config.stagingSlots(),
                        config.contiguousStaging(), config.batchL2Reads(), config.ringCount(), config.chainCount(),
                        config.chainBlocks(), config.sharedPrefixBlocks(), config.readers(), config.prefetchMaxRequests(),
                        config.maxNumSeqs(), config.gpuKvBlocks(), Set.of(), "trtllm", null, null));
        assertEquals("engine: unknown serving engine 'trtllm' (known: vllm, serial, vllm-v1, sglang)", refused.getMessage());
    }
}
