package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A clamped coefficient and a fit that did not converge are warnings of the calibration that ran them. */
class FitWarningsTest {

    @Test
    void aNegativeCoefficientIsClampedWithAWarning() {
        try (FitWarnings.Scope scope = FitWarnings.open()) {
            assertEquals(0, FitWarnings.atLeastZero("host.copyCallNs", -15_875.5));
            assertEquals(12.5, FitWarnings.atLeastZero("host.copyNsPerMiB", 12.5));
            assertEquals(List.of("host.copyCallNs fitted at -15875.5, clamped to 0"), scope.lines());
        }
    }

    @Test
    void warningsOutsideAScopeAreNotCollectedAndScopesNest() {
        FitWarnings.warn("lost");
        try (FitWarnings.Scope outer = FitWarnings.open()) {
            FitWarnings.warn("outer");
            try (FitWarnings.Scope inner = FitWarnings.open()) {
                FitWarnings.warn("inner");
                assertEquals(List.of("inner"), inner.lines());
            }
            FitWarnings.warn("outer again");
            assertEquals(List.of("outer", "outer again"), outer.lines());
        }
    }

    @Test
    void aPcieSweepThatFellBackToThePresetIsAFailure() {
        Calibration.Plan sweep = new Calibration.Plan(null, new Calibration.PciePlan.Sweep(null, null), null, null);
        List<String> failures = Calibration.failures(sweep, new PcieCalibration.NotMeasured("no CUDA device"));
        assertEquals(1, failures.size());
        assertTrue(failures.getFirst().contains("no CUDA device") && failures.getFirst().contains("preset"), failures.toString());
        Calibration.Plan host = new Calibration.Plan(null, new Calibration.PciePlan.HostBuffers(), null, null);
        assertEquals(List.of(), Calibration.failures(host, new PcieCalibration.NotMeasured("none (host buffers)")));
    }
}
