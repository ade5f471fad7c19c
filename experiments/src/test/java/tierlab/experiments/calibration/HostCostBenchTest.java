package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import tierlab.engine.IoUringBackend;
import tierlab.engine.cuda.FakeCuda;
import tierlab.model.geometry.Geometry;
import tierlab.model.testkit.TestDirectories;

/** The host-cost microbenchmarks produce usable figures (no timing target: only that each term is measured). */
class HostCostBenchTest {

    @Test
    void copiesCostTimePerByteAndStepsCostTimeEach() {
        Geometry geometry = Geometry.qwen3_8b();
        double[] copy = HostCostBench.copyCosts(geometry, 300);
        // Moving and checking 2.25 MiB lanes takes measurable time per byte on any machine.
        assertTrue(copy[1] > 0, "copy ns per MiB " + copy[1]);
        assertTrue(copy[0] >= 0 && Double.isFinite(copy[0]), "copy call ns " + copy[0]);
        long[] step = HostCostBench.engineStepCost(geometry, 300);
        assertTrue(step[0] > 0 && step[1] > 0, "engine step " + step[0] + " ns over " + step[1] + " steps");
    }

    @Test
    void theCudaCaseTimesTheCopyPortsEnqueueWithEveryCopyVerified() {
        // FakeCuda runs each copy at once in host memory: what is timed is the copy port's code path on
        // the calling thread, which is what the model thread runs live.
        FakeCuda fake = new FakeCuda(true);
        double[] copy = HostCostBench.cudaCopyCosts(fake, 0, Geometry.qwen3_8b(), true, 300);
        assertTrue(copy[0] + copy[1] > 0 && Double.isFinite(copy[0]) && Double.isFinite(copy[1]), "call " + copy[0]
                + " ns, per MiB " + copy[1]);
        assertTrue(copy[0] >= 0 && copy[1] >= 0);
        assertTrue(fake.leaksNothing(), fake.leftovers());
    }

    @Test
    void theRingThreadsCpuIsSplitIntoEntersAndOperations() throws Exception {
        Assumptions.assumeTrue(IoUringBackend.probe().available(), () -> "io_uring unavailable: " + IoUringBackend.probe().cause());
        Path dir = TestDirectories.underTarget("host-cost-bench");
        HostCostBench.SubmissionFit fit = HostCostBench.submissionCosts(dir, 600);
        assertTrue(fit.submissionNs() + fit.perOperationNs() > 0, fit.toString());
    }
}
