package tierlab.model.drive;

import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;

/**
 * Turns a run that cannot end into a failed run with a message, in every mode (the {@link Driver}
 * asks it about every completion). Two rules, both counted in completions, never in time, so a
 * simulated run stops at the same event on every replay:
 * <ul>
 *   <li><b>Progress</b>: a compute step completing is progress (every step computes at least one
 *       token). After {@link #completionsWithoutProgress()} completions with no step completed, the
 *       run is a loop that moves nothing (failed prefetches retried forever did this once).</li>
 *   <li><b>A failing device</b>: after {@link #consecutiveFailures()} L2 reads in a row failed (or
 *       writes in a row), with not one success between them, the device is taken to fail
 *       everything, and the run ends naming the device's error rather than recomputing on forever.</li>
 * </ul>
 * Without faults neither rule ever fires on a run that ends, so it decides nothing in such a run.
 */
public final class ProgressWatchdog {

    /** Far above what any run between two compute steps completes (a step waits on at most a window of loads). */
    public static final long DEFAULT_COMPLETIONS_WITHOUT_PROGRESS = 1_000_000;
    /** A device with a 5% error rate fails 64 operations in a row once in 10^83 tries. */
    public static final int DEFAULT_CONSECUTIVE_FAILURES = 64;

    /** Thrown out of the driver when a rule fires; the runtime reports its message as the run's failure. */
    public static final class RunStopped extends RuntimeException {
        public RunStopped(String message) {
            super(message);
        }
    }

    private final long completionsWithoutProgressLimit;
    private final int consecutiveFailuresLimit;
    private long sinceProgress;
    private int failedReadsInARow;
    private int failedWritesInARow;

    public ProgressWatchdog(long completionsWithoutProgress, int consecutiveFailures) {
        if (completionsWithoutProgress < 1 || consecutiveFailures < 1) {
            throw new IllegalArgumentException("watchdog limits must be >= 1, were " + completionsWithoutProgress
                    + " and " + consecutiveFailures);
        }
        this.completionsWithoutProgressLimit = completionsWithoutProgress;
        this.consecutiveFailuresLimit = consecutiveFailures;
    }

    public static ProgressWatchdog defaults() {
        return new ProgressWatchdog(DEFAULT_COMPLETIONS_WITHOUT_PROGRESS, DEFAULT_CONSECUTIVE_FAILURES);
    }

    public long completionsWithoutProgress() {
        return completionsWithoutProgressLimit;
    }

    public int consecutiveFailures() {
        return consecutiveFailuresLimit;
    }

    /** One completion, before the engine sees it; throws {@link RunStopped} when a rule fires. */
    public void observe(IoOp op, IoCompletion completion) {
        switch (op) {
            case IoOp.Compute _ -> sinceProgress = 0;
            case IoOp.L2Read _ -> failedReadsInARow = completion.succeeded() ? 0 : failedReadsInARow + 1;
            case IoOp.L2Write _ -> failedWritesInARow = completion.succeeded() ? 0 : failedWritesInARow + 1;
            default -> { }
        }
        if (!(op instanceof IoOp.Compute) && ++sinceProgress > completionsWithoutProgressLimit) {
            throw new RunStopped("no progress: " + completionsWithoutProgressLimit
                    + " completions without a compute step (stopped by the progress watchdog)");
        }
        if (failedReadsInARow >= consecutiveFailuresLimit || failedWritesInARow >= consecutiveFailuresLimit) {
            throw new RunStopped("the L2 device failed every " + (failedReadsInARow >= consecutiveFailuresLimit ? "read" : "write")
                    + ": " + consecutiveFailuresLimit + " in a row, none succeeded (last error: " + completion.errorName() + ")");
        }
    }

    /** Its counters stay within their limits between completions (a rule that fired has thrown). */
    public void checkInvariants() {
        if (sinceProgress < 0 || sinceProgress > completionsWithoutProgressLimit) {
            throw new IllegalStateException("watchdog: " + sinceProgress + " completions since progress, limit "
                    + completionsWithoutProgressLimit);
        }
        if (failedReadsInARow < 0 || failedReadsInARow >= consecutiveFailuresLimit
                || failedWritesInARow < 0 || failedWritesInARow >= consecutiveFailuresLimit) {
            throw new IllegalStateException("watchdog: " + failedReadsInARow + " failed reads and " + failedWritesInARow
                    + " failed writes in a row, limit " + consecutiveFailuresLimit);
        }
    }
}
