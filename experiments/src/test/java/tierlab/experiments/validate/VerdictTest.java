package tierlab.experiments.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Each verdict from hand-made rows: live median 10 s, the simulation before and after the drive replay. */
class VerdictTest {

    private static Comparison.Row row(double sim, double simAfter) {
        double live = 10;
        return new Comparison.Row("w", "cold", "elapsedS", "s", live, 9, 11, 0.2, sim, (sim - live) / live, simAfter,
                Double.isNaN(simAfter) ? Double.NaN : (simAfter - live) / live);
    }

    @Test
    void withinTenPercentBeforeIsWithin() {
        assertEquals(Verdict.WITHIN, Verdict.of(row(10.99, Double.NaN)));
        assertEquals(Verdict.WITHIN, Verdict.of(row(9.01, 20)));
    }

    @Test
    void outsideBeforeButWithinAfterIsTheDriveMoving() {
        assertEquals(Verdict.DRIVE_MOVED, Verdict.of(row(13, 10.5)));
    }

    @Test
    void simulationsOnEitherSideOfLiveAreTheDriveMoving() {
        // +30% before, −20% after: the drive's movement alone spans the live median.
        assertEquals(Verdict.DRIVE_MOVED, Verdict.of(row(13, 8)));
    }

    @Test
    void bothOnOneSideAndOutsideIsOutside() {
        assertEquals(Verdict.OUTSIDE, Verdict.of(row(13, 12)));
        assertEquals(Verdict.OUTSIDE, Verdict.of(row(13, Double.NaN)), "without an after-replay nothing proves the drive moved");
    }

    @Test
    void noLiveFigureIsNotCompared() {
        Comparison.Row zero = new Comparison.Row("w", "cold", "l2ReadOps", "ops", 0, 0, 0, Double.NaN, 5, Double.NaN);
        assertEquals(Verdict.NOT_COMPARED, Verdict.of(zero));
    }

    @Test
    void theHeadlineScoresElapsedAndTtftP50AndP90() {
        assertTrue(Verdict.headline(row(10, 10)));
        assertFalse(Verdict.headline(new Comparison.Row("w", "cold", "ttftP99Ms", "ms", 1, 1, 1, 0, 1, 0)));
    }
}
