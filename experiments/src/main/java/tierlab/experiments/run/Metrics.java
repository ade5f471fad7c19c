package tierlab.experiments.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import tierlab.sim.metrics.PassMetrics;

/**
 * The metric columns of {@code results.csv}. Per-pass figures are named {@code PASS.metric}
 * ({@code warm.l1HitRatio}); figures of the whole run are {@code run.metric}. Charts and reference
 * rows name metrics the same way, and the loader refuses a name that is not here.
 */
public final class Metrics {

    private static final double GIB = 1L << 30;

    /** Per-pass metrics in column order. */
    public static final Map<String, ToDoubleFunction<PassMetrics>> PASS = passMetrics();

    /** Whole-run metrics in column order (filled by {@link RunResult#runMetrics()}). */
    public static final List<String> RUN = List.of("run.failed", "run.unfinished", "run.leftovers", "run.mismatches",
            "run.l2Disagreements", "run.realMatches", "run.realMismatches", "run.simulatedS", "run.events");

    private Metrics() {
    }

    private static Map<String, ToDoubleFunction<PassMetrics>> passMetrics() {
        Map<String, ToDoubleFunction<PassMetrics>> metrics = new LinkedHashMap<>();
        metrics.put("requests", PassMetrics::requests);
        metrics.put("elapsedS", m -> m.elapsedNs() / 1e9);
        metrics.put("promptTokensPerS", PassMetrics::promptTokensPerSecond);
        metrics.put("ttftMeanMs", PassMetrics::ttftMeanMs);
        metrics.put("ttftP50Ms", PassMetrics::ttftP50Ms);
        metrics.put("ttftP90Ms", PassMetrics::ttftP90Ms);
        metrics.put("ttftP99Ms", PassMetrics::ttftP99Ms);
        metrics.put("externalHitRatio", PassMetrics::externalHitRatio);
        metrics.put("l1HitRatio", PassMetrics::l1HitRatio);
        metrics.put("l1HitGiB", m -> m.l1HitBytes() / GIB);
        metrics.put("l2HitGiB", m -> m.l2HitBytes() / GIB);
        metrics.put("l2ReadOps", PassMetrics::l2ReadOps);
        metrics.put("l2ReadGiB", m -> m.l2ReadBytes() / GIB);
        metrics.put("l2WriteOps", PassMetrics::l2WriteOps);
        metrics.put("l2WriteGiB", m -> m.l2WriteBytes() / GIB);
        metrics.put("ioUringEnters", PassMetrics::ioSubmissions);
        metrics.put("prefetchCalls", PassMetrics::prefetchCalls);
        metrics.put("deferrals", PassMetrics::deferrals);
        metrics.put("computedPromptTokens", PassMetrics::computedPromptTokens);
        metrics.put("mismatches", PassMetrics::mismatches);
        // Insertion order is the column order, so no Map.copyOf (which does not keep it).
        return java.util.Collections.unmodifiableMap(metrics);
    }

    /** Every metric name for runs with these passes, in column order. */
    public static List<String> names(List<String> passes) {
        List<String> names = new ArrayList<>();
        for (String pass : passes) {
            for (String metric : PASS.keySet()) {
                names.add(pass + "." + metric);
            }
        }
        names.addAll(RUN);
        return names;
    }
}
