package tierlab.properties;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.hunt.Check;
import tierlab.hunt.Finding;
import tierlab.hunt.Hunter;
import tierlab.hunt.Profile;

/**
 * I10 under lease churn with bounded arrivals: engine-level schedules with frequent preemptions
 * (each releases a lease and cancels saves), failed reads, writes and copies (failed promotions,
 * lease re-lookups), prefetch bounds from 0 to 3 and tiny L1s (lease admission waits), then no
 * new arrivals: every request finishes, every lease, reservation, pending write and borrow is
 * released, and every GPU block is free again, within a bounded number of completions.
 *
 * <p>Once with GPU KV blocks ample (see {@link Profile#liveness()}), so that progress rests on the
 * store alone, and once under GPU-block pressure ({@link Profile#livenessUnderGpuPressure()}), where
 * it also rests on recompute preemption (the hunt's F2 livelock, fixed). Both are checked strictly:
 * every violation fails them.
 */
class LivenessProperties {

    @Test
    void everyRequestFinishesUnderLeaseChurnAndBoundedArrivals() {
        Hunter.Progress progress = new Hunter.Progress();
        Optional<Finding> finding = Hunter.hunt("liveness", Profile.liveness(), Set.of(), HuntSupport.SEED, 1_500,
                (schedule, result) -> true, progress, System::nanoTime);
        System.out.printf("liveness: %d schedules, %d steps%n", progress.schedules, progress.steps);
        assertTrue(finding.isEmpty(), () -> HuntSupport.describe(finding.orElseThrow()));
    }

    @Test
    void everyRequestFinishesUnderGpuBlockPressure() {
        Hunter.Progress progress = new Hunter.Progress();
        Optional<Finding> finding = Hunter.hunt("liveness under GPU-block pressure", Profile.livenessUnderGpuPressure(), Set.of(),
                HuntSupport.SEED, 1_500, (schedule, result) -> true, progress, System::nanoTime);
        System.out.printf("liveness under GPU-block pressure: %d schedules, %d steps%n", progress.schedules, progress.steps);
        assertTrue(finding.isEmpty(), () -> HuntSupport.describe(finding.orElseThrow()));
    }

    @Test
    void storeLevelLeaseChurnDrainsWithNothingLeftOver() {
        Optional<Finding> finding = HuntSupport.hunt("store lease churn", Profile.forRace("R5"), Set.of(), 1_000,
                (schedule, result) -> result.violation().check() == Check.I10);
        assertTrue(finding.isEmpty(), () -> HuntSupport.describe(finding.orElseThrow()));
    }
}
