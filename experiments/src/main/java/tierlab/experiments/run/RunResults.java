package tierlab.experiments.run;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tierlab.model.trace.DecisionTrace;

/** What every mode's results share: the run's own metrics in column order, a run that never started, a failure in one line. */
final class RunResults {

    private RunResults() {
    }

    /**
     * The {@code run.*} metrics, in results.csv's column order; NaN where the mode does not measure
     * one (live runs have no payload ledger and no virtual clock: not measured, not zero).
     */
    static Map<String, Double> runMetrics(String failure, double unfinished, double leftovers, double mismatches,
                                          double l2Disagreements, double realMatches, double realMismatches,
                                          double simulatedS, double events) {
        Map<String, Double> run = new LinkedHashMap<>();
        run.put("run.failed", failure == null ? 0.0 : 1.0);
        run.put("run.unfinished", unfinished);
        run.put("run.leftovers", leftovers);
        run.put("run.mismatches", mismatches);
        run.put("run.l2Disagreements", l2Disagreements);
        run.put("run.realMatches", realMatches);
        run.put("run.realMismatches", realMismatches);
        run.put("run.simulatedS", simulatedS);
        run.put("run.events", events);
        return run;
    }

    /** The result of a run that failed before serving anything (no L1 memory, no L2 file, no CUDA device). */
    static RunResult notStarted(RunPoint point, DecisionTrace trace, String failure, long startNs) {
        Map<String, Double> run = runMetrics(failure, 0, 0, 0, Double.NaN, 0, 0, Double.NaN, Double.NaN);
        return new RunResult(point, List.of(), run, List.of(), Map.of(), hex(trace.hash()), trace.eventCount(), failure,
                List.of(), System.nanoTime() - startNs, RunFailure.host());
    }

    static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? "" : e.getMessage().strip().replaceAll("\\s*\\R\\s*", " ");
        return e.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
    }

    static String hex(long value) {
        return HexFormat.of().toHexDigits(value);
    }
}
