package tierlab.experiments.validate;

import java.util.List;

/**
 * What one compared metric shows, decided from the row's figures alone:
 * <ul>
 *   <li>{@code within}: the simulation on the profile measured before the live runs is within
 *       {@link #TOLERANCE} of the live median;</li>
 *   <li>{@code drive-moved}: it is not, but the drive replay taken after the live runs shows the
 *       drive moved by more than the gap: the simulation on the after-replay profile is within
 *       the tolerance, or the two simulations lie on either side of the live median;</li>
 *   <li>{@code outside}: neither; the model misses by more than the tolerance;</li>
 *   <li>{@code not-compared}: there is no live figure to compare with (zero or missing).</li>
 * </ul>
 */
enum Verdict {
    WITHIN("within"), DRIVE_MOVED("drive-moved"), OUTSIDE("outside"), NOT_COMPARED("not-compared");

    /** The accuracy the headline claims: relative error at most this. */
    static final double TOLERANCE = 0.10;
    /** The metrics the headline scores, in every pass of every held-out workload. */
    static final List<String> HEADLINE_METRICS = List.of("elapsedS", "ttftP50Ms", "ttftP90Ms");

    private final String label;

    Verdict(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }

    static Verdict of(Comparison.Row row) {
        if (!Double.isFinite(row.relativeError()) || !Double.isFinite(row.liveMedian()) || row.liveMedian() == 0) {
            return NOT_COMPARED;
        }
        if (Math.abs(row.relativeError()) <= TOLERANCE) {
            return WITHIN;
        }
        if (Double.isFinite(row.relativeErrorDriveAfter())) {
            boolean afterWithin = Math.abs(row.relativeErrorDriveAfter()) <= TOLERANCE;
            boolean bracketed = Math.signum(row.relativeError()) != Math.signum(row.relativeErrorDriveAfter());
            if (afterWithin || bracketed) {
                return DRIVE_MOVED;
            }
        }
        return OUTSIDE;
    }

    static boolean headline(Comparison.Row row) {
        return HEADLINE_METRICS.contains(row.metric());
    }
}
