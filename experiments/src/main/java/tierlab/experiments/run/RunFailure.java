package tierlab.experiments.run;

import java.io.PrintWriter;
import java.io.Serializable;
import java.io.StringWriter;
import java.util.Locale;
import tierlab.model.drive.ProgressWatchdog;

/**
 * What kind of failure stopped a run, beyond its one line ({@link RunResult#failure()}): the
 * {@code run.failureKind} column of results.csv, and for a bug its stack trace, which goes to
 * stderr and to the output folder's {@code errors.log}. Without it a null pointer in a policy and
 * an ablated race fix breaking as intended read alike in the tables.
 *
 * @param stackTrace the full stack trace of the exception that stopped the run; null when no exception did
 *                   (a stall or a leak found at quiescence, a host that could not give the run what it needs)
 */
public record RunFailure(Kind kind, String stackTrace) implements Serializable {

    /** The kinds, in the words of the {@code run.failureKind} column. */
    public enum Kind {
        /**
         * A run with a race fix switched off ({@code store.knownBugs}) that broke the way an ablation
         * is meant to: an invariant, a stall or a leak. The race-ablation experiment expects these.
         */
        ABLATION,
        /**
         * A violated invariant with every race fix on: thrown out of a {@code checkInvariants()} or by
         * the progress watchdog, or a stall or a leak found at quiescence (I10).
         */
        INVARIANT,
        /** Any other exception: a defect in tierlab, whatever the run's settings; its stack trace is kept. */
        BUG,
        /**
         * The host could not give the run what it needs (L1 memory, the L2 file, CUDA), or its files or
         * its GPU failed under the run.
         */
        HOST,
        /**
         * A live run loaded bytes that are not its keys' ({@code run.realMismatches} > 0): whatever
         * else it measured, its figures rest on wrong data, and it saved no L2 index.
         */
        WRONG_BYTES;

        /** The column's word: {@code ablation}, {@code invariant}, {@code bug}, {@code host}, {@code wrong-bytes}. */
        public String columnValue() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** The name of the method whose exceptions are invariant violations (docs/design.md, "Habits"). */
    private static final String INVARIANT_CHECK = "checkInvariants";

    /**
     * The failure of a run of {@code config} whose one line is {@code failure} (null: it did not
     * fail), stopped by {@code thrown} (null: it stopped without an exception, at quiescence).
     */
    public static RunFailure of(RunConfig config, String failure, Throwable thrown) {
        if (failure == null) {
            return null;
        }
        if (thrown != null && isHostFailure(thrown)) {
            return new RunFailure(Kind.HOST, stackTrace(thrown));
        }
        if (thrown != null && !isInvariantViolation(thrown)) {
            return new RunFailure(Kind.BUG, stackTrace(thrown));
        }
        Kind kind = config.store().knownBugs().isEmpty() ? Kind.INVARIANT : Kind.ABLATION;
        return new RunFailure(kind, thrown == null ? null : stackTrace(thrown));
    }

    /** An input/output failure of the host's files or a CUDA error: the machine's, not tierlab's. */
    private static boolean isHostFailure(Throwable thrown) {
        return thrown instanceof java.io.IOException || thrown instanceof java.io.UncheckedIOException
                || thrown instanceof tierlab.engine.cuda.CudaException;
    }

    /** A live run that served wrong bytes. */
    public static RunFailure wrongBytes() {
        return new RunFailure(Kind.WRONG_BYTES, null);
    }

    /** A run the host refused before it served anything. */
    public static RunFailure host() {
        return new RunFailure(Kind.HOST, null);
    }

    /** The {@code run.failureKind} cell of a result: empty when the run did not fail. */
    public static String columnValue(RunResult result) {
        return result.failed() && result.cause() != null ? result.cause().kind().columnValue() : "";
    }

    /**
     * True when {@code thrown} (or an exception it wraps) came out of a {@code checkInvariants()}
     * frame, or is the progress watchdog stopping a run that cannot end: the model saying that a
     * rule it checks is broken, as opposed to code that failed on its own.
     */
    static boolean isInvariantViolation(Throwable thrown) {
        for (Throwable cause = thrown; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof ProgressWatchdog.RunStopped) {
                return true;
            }
            // Only the innermost exception was thrown where the check failed; a wrapper's frames are its catcher's.
            if (cause.getCause() == null || cause.getCause() == cause) {
                for (StackTraceElement frame : cause.getStackTrace()) {
                    if (frame.getMethodName().equals(INVARIANT_CHECK)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** The frame of the executor's entry point: what lies below it belongs to whoever ran the point. */
    private static final String RUN_ENTRY_FRAME = "\tat " + RunExecutor.class.getName() + ".run(";

    /**
     * {@code thrown}'s stack trace as {@link Throwable#printStackTrace()} writes it, causes included,
     * down to the executor's entry point. The frames below it are the sweep executor's (a local thread
     * pool, a Spark task), so errors.log reads the same whichever executor ran the point; for the
     * same reason a cause's "... N more" line, whose count follows those frames, names no count.
     */
    public static String stackTrace(Throwable thrown) {
        StringWriter text = new StringWriter();
        try (PrintWriter writer = new PrintWriter(text)) {
            thrown.printStackTrace(writer);
        }
        StringBuilder trace = new StringBuilder();
        boolean inEntry = false;
        boolean skipping = false;
        for (String line : text.toString().split("\\R")) {
            boolean frame = line.startsWith("\tat ") || line.startsWith("\t... ");
            if (!frame) {
                inEntry = false;
                skipping = false;
            } else if (skipping) {
                continue;
            } else if (line.startsWith(RUN_ENTRY_FRAME)) {
                inEntry = true;
            } else if (inEntry || line.startsWith("\t... ")) {
                trace.append("\t... the frames of the executor that ran this point\n");
                skipping = true;
                continue;
            }
            trace.append(line).append('\n');
        }
        return trace.toString();
    }
}
