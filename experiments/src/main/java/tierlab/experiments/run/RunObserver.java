package tierlab.experiments.run;

import java.util.function.LongSupplier;
import tierlab.engine.live.LiveRuntime;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * Watches one run as {@link RunExecutor} drives it, in every mode, without changing it: its
 * decisions, its set-up and the end of each pass. {@code tierlab validate} records lookups and
 * the L2 timeline through it and {@code tierlab bench live} reads each live pass's L2 activity;
 * {@code tierlab run} watches nothing ({@link #NONE}). Every call comes on the thread running the run.
 */
public interface RunObserver {

    /** Watches nothing. */
    RunObserver NONE = new RunObserver() {
    };

    /**
     * Hears every decision of the run's trace; null (the default) for none. It only observes: the
     * decisions and their hash are the run's own.
     */
    default DecisionTrace.DecisionListener decisions() {
        return null;
    }

    /**
     * The run is set up and about to serve its first pass.
     *
     * @param store      the store serving the run (for a warm live start, the one recovered from its L2 file)
     * @param runClockNs the run's time since it started, across passes: virtual in sim and hybrid mode,
     *                   the wall clock's since the first pass began in live mode
     */
    default void started(TieredStore store, LongSupplier runClockNs) {
    }

    /** A pass has ended ({@code runClockNs}: the run's time at its end), whether or not all its requests finished. */
    default void passEnded(String pass, long runClockNs) {
    }

    /** A live pass's report from the live runtime (its totals count every pass so far). */
    default void livePass(LiveRuntime.Report report) {
    }
}
