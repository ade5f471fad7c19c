package tierlab.properties;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.hunt.Finding;
import tierlab.hunt.Generators;
import tierlab.hunt.HuntConfig;
import tierlab.hunt.Profile;
import tierlab.hunt.ScheduleResult;
import tierlab.hunt.Runner;

/**
 * The stateful harness itself: swarm schedules (operation weights redrawn per schedule, key spaces
 * from a few colliding prompts to many evicting ones) against the real model and the reference
 * model, every check after every step. The fixed model must violate nothing at either level.
 */
class StatefulModelProperties {

    @Test
    void storeLevelSchedulesAgreeWithTheReferenceAndKeepEveryCheck() {
        Optional<Finding> finding = HuntSupport.hunt("swarm-store (fix on)", Profile.swarm(HuntConfig.Level.STORE), Set.of(),
                2_000, (schedule, result) -> true);
        assertTrue(finding.isEmpty(), () -> HuntSupport.describe(finding.orElseThrow()));
    }

    @Test
    void engineLevelSchedulesKeepEveryCheck() {
        Optional<Finding> finding = HuntSupport.hunt("swarm-engine (fix on)", Profile.swarm(HuntConfig.Level.ENGINE), Set.of(),
                1_000, (schedule, result) -> true);
        assertTrue(finding.isEmpty(), () -> HuntSupport.describe(finding.orElseThrow()));
    }

    @Test
    void vllmV1EngineSchedulesKeepEveryCheckWithTheGpuPrefixCacheOn() {
        Optional<Finding> finding = HuntSupport.hunt("swarm-engine-vllm-v1 (fix on)", Profile.vllmV1(), Set.of(),
                Integer.getInteger("tierlab.vllmV1Schedules", 1_000), (schedule, result) -> true);
        assertTrue(finding.isEmpty(), () -> HuntSupport.describe(finding.orElseThrow()));
    }

    @Test
    void sglangEngineSchedulesKeepEveryCheckWithTheRadixCache() {
        Optional<Finding> finding = HuntSupport.hunt("swarm-engine-sglang (fix on)", Profile.sglang(), Set.of(),
                Integer.getInteger("tierlab.sglangSchedules", 1_000), (schedule, result) -> true);
        assertTrue(finding.isEmpty(), () -> HuntSupport.describe(finding.orElseThrow()));
    }

    @Test
    void sglangEngineSchedulesKeepEveryCheckOverTheStoresWritePolicies() {
        for (Profile profile : Profile.sglangStoreWritePolicies()) {
            Optional<Finding> finding = HuntSupport.hunt(profile.name() + " (fix on)", profile, Set.of(),
                    Integer.getInteger("tierlab.sglangSchedules", 1_000), (schedule, result) -> true);
            assertTrue(finding.isEmpty(), () -> HuntSupport.describe(finding.orElseThrow()));
        }
    }

    @Test
    void theSchedulesExerciseTheModel() {
        // A harness whose steps never applied, or whose loads never ran, would pass vacuously.
        long[] loads = {0};
        long[] applied = {0};
        long[] steps = {0};
        qt().withFixedSeed(HuntSupport.SEED).withExamples(300)
                .forAll(Generators.schedules(Profile.swarm(HuntConfig.Level.STORE), Set.of()))
                .checkAssert(schedule -> {
                    ScheduleResult result = Runner.run(schedule);
                    loads[0] += result.loadsVerified();
                    applied[0] += result.stepsApplied();
                    steps[0] += schedule.length();
                });
        System.out.printf("300 store schedules: %d of %d steps applied, %d loads verified byte for byte%n", applied[0], steps[0], loads[0]);
        assertTrue(loads[0] > 1_000, "loads verified: " + loads[0]);
        assertTrue(applied[0] * 10 > steps[0] * 3, "at least 30% of steps apply (the others are no-ops at their moment): " + applied[0] + " of " + steps[0]);
    }
}
