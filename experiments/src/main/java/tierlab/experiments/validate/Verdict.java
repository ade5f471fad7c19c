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
    /**
     * The metrics the accuracy tables show, in their column order, with their short headings; those
     * marked {@code headline} are the ones the headline scores, in every pass of every held-out workload.
     */
    record Column(String metric, String heading, boolean headline) {}

    static final List<Column> COLUMNS = List.of(new Column("elapsedS", "elapsed", true),
            new Column("ttftMeanMs", "TTFT mean", false), new Column("ttftP50Ms", "p50", true), new Column("ttftP90Ms", "p90", true),
            new Column("ttftP99Ms", "p99", false), new Column("promptTokensPerS", "tok/s", false),
            new Column("l2ReadBytes", "L2 read B", false), new Column("l2ReadOps", "ops", false),
            new Column("l2WriteBytes", "L2 write B", false), new Column("l2WriteOps", "ops", false),
            new Column("l1HitRatio", "L1 hits", false), new Column("ioUringEnters", "enters", false));
    /** The metrics the headline scores: the {@code headline} columns of {@link #COLUMNS}. */
    static final List<String> HEADLINE_METRICS = COLUMNS.stream().filter(Column::headline).map(Column::metric).toList();

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
