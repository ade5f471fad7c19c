package tierlab.experiments.run;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tierlab.model.request.RequestOutcome;
import tierlab.metrics.PassMetric;
import tierlab.metrics.PassMetrics;
import tierlab.metrics.Sample;

/**
 * What one run produced. Everything here except {@code wallNs} is a function of the run's
 * configuration and seed in sim and hybrid modes, so re-running a file reproduces it.
 *
 * @param ttftNsByPass  every request's TTFT, by pass, in request-id order (for CDF charts)
 * @param decisionHash  the model's decision-trace hash (hex), the run's determinism fingerprint
 * @param failure       null, or what stopped the run (an invariant violated, a stall): one line
 * @param outcomesByPass every finished request, by pass, in the order of {@code ttftNsByPass} (the per-request
 *                       columns of requests.csv: where each prompt's tokens came from)
 * @param cause         null when the run did not fail; else what kind of failure it was (results.csv's
 *                      {@code run.failureKind}) and, for an exception, its stack trace
 */
public record RunResult(RunPoint point, List<PassMetrics> passes, Map<String, Double> runMetrics, List<Sample> samples,
                        Map<String, long[]> ttftNsByPass, String decisionHash, long decisionEvents, String failure,
                        List<String> examples, long wallNs, Map<String, List<RequestOutcome>> outcomesByPass,
                        RunFailure cause) {

    /** A run whose failure, if any, was not an exception (a stall or a leak at quiescence). */
    public RunResult(RunPoint point, List<PassMetrics> passes, Map<String, Double> runMetrics, List<Sample> samples,
                     Map<String, long[]> ttftNsByPass, String decisionHash, long decisionEvents, String failure,
                     List<String> examples, long wallNs, Map<String, List<RequestOutcome>> outcomesByPass) {
        this(point, passes, runMetrics, samples, ttftNsByPass, decisionHash, decisionEvents, failure, examples, wallNs,
                outcomesByPass, RunFailure.of(point.config(), failure, null));
    }

    /** A run without per-request outcomes (one that failed before serving: {@code cause} says why). */
    public RunResult(RunPoint point, List<PassMetrics> passes, Map<String, Double> runMetrics, List<Sample> samples,
                     Map<String, long[]> ttftNsByPass, String decisionHash, long decisionEvents, String failure,
                     List<String> examples, long wallNs, RunFailure cause) {
        this(point, passes, runMetrics, samples, ttftNsByPass, decisionHash, decisionEvents, failure, examples, wallNs,
                Map.of(), cause);
    }

    public boolean failed() {
        return failure != null;
    }

    /** Every metric by name ({@code warm.l1HitRatio}, {@code run.unfinished}), in column order. */
    public Map<String, Double> metrics() {
        Map<String, Double> metrics = new LinkedHashMap<>();
        for (PassMetrics pass : passes) {
            for (PassMetric metric : PassMetric.values()) {
                metrics.put(pass.pass() + "." + metric.metricName(), pass.value(metric));
            }
        }
        metrics.putAll(runMetrics);
        return metrics;
    }
}
