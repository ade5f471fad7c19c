package tierlab.experiments.validate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.metrics.PassMetric;
import tierlab.metrics.PassMetrics;
import tierlab.metrics.Percentiles;

/**
 * One workload's live runs against its simulation: every metric beside the live run-to-run spread,
 * the paired per-request TTFT errors, and the per-request hit/miss decisions.
 */
final class Comparison {

    /** The per-pass metrics compared, in table order. */
    static final List<PassMetric> METRICS = List.of(PassMetric.ELAPSED_S, PassMetric.TTFT_MEAN_MS, PassMetric.TTFT_P50_MS,
            PassMetric.TTFT_P90_MS, PassMetric.TTFT_P99_MS, PassMetric.PROMPT_TOKENS_PER_S, PassMetric.L2_READ_GIB,
            PassMetric.L2_READ_OPS, PassMetric.L2_WRITE_GIB, PassMetric.L2_WRITE_OPS, PassMetric.L1_HIT_RATIO,
            PassMetric.IO_URING_ENTERS);

    /**
     * One row of validation.csv.
     *
     * @param liveSpread     (max − min) / median of the live runs: how far live moves between repeats
     * @param relativeError  (sim − live median) / live median; for the paired rows, the error itself
     * @param simDriveAfter  the simulation on the profile capped by the drive replay taken after the live runs
     *                       (NaN without one); {@code sim} is the one capped by the replay taken before them
     * @param relativeErrorDriveAfter (simDriveAfter − live median) / live median
     */
    record Row(String workload, String pass, String metric, String unit, double liveMedian, double liveMin, double liveMax,
               double liveSpread, double sim, double relativeError, double simDriveAfter, double relativeErrorDriveAfter) {

        Row(String workload, String pass, String metric, String unit, double liveMedian, double liveMin, double liveMax,
            double liveSpread, double sim, double relativeError) {
            this(workload, pass, metric, unit, liveMedian, liveMin, liveMax, liveSpread, sim, relativeError, Double.NaN, Double.NaN);
        }

        boolean withinLiveRange() {
            return sim >= liveMin && sim <= liveMax;
        }
    }

    /** The decisions compared: how many requests got the same hit/miss decision, and the first that did not. */
    record Decisions(int requests, int identical, boolean sameOrder, String firstDivergence, int liveRepeatsAgreeing,
                     long simLookupCalls, long liveLookupCalls, String kindsThatDiffer) {}

    private Comparison() {
    }

    /** Every metric of every pass; {@code simDriveAfter} (null for none) is the simulation on the after-replay profile. */
    static List<Row> rows(String workload, List<Observation> live, Observation sim, Observation simDriveAfter) {
        List<Row> rows = new ArrayList<>();
        for (PassMetrics simPass : sim.passes()) {
            PassMetrics afterPass = simDriveAfter == null ? null : passOf(simDriveAfter, simPass.pass());
            for (PassMetric metric : METRICS) {
                // The GiB metrics are bytes / 2^30: shown as bytes, so small runs keep every digit.
                boolean gib = metric.unit().equals("GiB");
                double scale = gib ? 1L << 30 : 1;
                String name = gib ? metric.metricName().replace("GiB", "Bytes") : metric.metricName();
                double[] values = live.stream().map(o -> passOf(o, simPass.pass()))
                        .filter(p -> p != null).mapToDouble(p -> Math.round(p.value(metric) * scale * 1e3) / 1e3).toArray();
                Row row = row(workload, simPass.pass(), name, gib ? "bytes" : metric.unit(), values,
                        Math.round(simPass.value(metric) * scale * 1e3) / 1e3);
                if (afterPass != null) {
                    double after = Math.round(afterPass.value(metric) * scale * 1e3) / 1e3;
                    row = new Row(row.workload(), row.pass(), row.metric(), row.unit(), row.liveMedian(), row.liveMin(), row.liveMax(),
                            row.liveSpread(), row.sim(), row.relativeError(), after, relative(after - row.liveMedian(), row.liveMedian()));
                }
                rows.add(row);
            }
        }
        rows.addAll(pairedTtft(workload, live, sim));
        return rows;
    }

    private static PassMetrics passOf(Observation observation, String pass) {
        return observation.passes().stream().filter(p -> p.pass().equals(pass)).findFirst().orElse(null);
    }

    static Row row(String workload, String pass, String metric, String unit, double[] liveValues, double sim) {
        double median = Percentiles.medianMidpoint(liveValues);
        double min = Arrays.stream(liveValues).min().orElse(Double.NaN);
        double max = Arrays.stream(liveValues).max().orElse(Double.NaN);
        return new Row(workload, pass, metric, unit, median, min, max, relative(max - min, median), sim,
                relative(sim - median, median));
    }

    /**
     * Per request: the simulated TTFT against the median of its live TTFTs. Rows: the median and
     * p90 of |error|, and beside them the same figures of the live runs against their own median
     * (how far a live repeat lands from the others, request by request).
     */
    static List<Row> pairedTtft(String workload, List<Observation> live, Observation sim) {
        List<Double> simErrors = new ArrayList<>();
        List<Double> liveErrors = new ArrayList<>();
        for (Map.Entry<Long, Long> entry : sim.ttftNsByRequest().entrySet()) {
            double[] liveTtfts = live.stream().map(o -> o.ttftNsByRequest().get(entry.getKey())).filter(v -> v != null)
                    .mapToDouble(Long::doubleValue).toArray();
            if (liveTtfts.length == 0) {
                continue;
            }
            double median = Percentiles.medianMidpoint(liveTtfts);
            simErrors.add(Math.abs(relative(entry.getValue() - median, median)));
            for (double value : liveTtfts) {
                liveErrors.add(Math.abs(relative(value - median, median)));
            }
        }
        double[] simAbs = simErrors.stream().mapToDouble(Double::doubleValue).filter(Double::isFinite).toArray();
        double[] liveAbs = liveErrors.stream().mapToDouble(Double::doubleValue).filter(Double::isFinite).toArray();
        return List.of(
                new Row(workload, "all", "ttftPerRequestAbsErrorP50", "ratio", Double.NaN, Double.NaN, Double.NaN,
                        Percentiles.nearestRankWithMidpointMedian(liveAbs, 50), Double.NaN,
                        Percentiles.nearestRankWithMidpointMedian(simAbs, 50)),
                new Row(workload, "all", "ttftPerRequestAbsErrorP90", "ratio", Double.NaN, Double.NaN, Double.NaN,
                        Percentiles.nearestRankWithMidpointMedian(liveAbs, 90), Double.NaN,
                        Percentiles.nearestRankWithMidpointMedian(simAbs, 90)));
    }

    /** The sim's per-request decisions against the first live run's, and how many live runs agree with the sim. */
    static Decisions decisions(List<Observation> live, Observation sim) {
        Observation first = live.getFirst();
        int identical = 0;
        String divergence = null;
        for (Observation.Decision simDecision : sim.lookups().values()) {
            Observation.Decision liveDecision = first.lookups().get(simDecision.requestId());
            if (simDecision.equals(liveDecision)) {
                identical++;
            } else if (divergence == null) {
                divergence = "request " + simDecision.requestId() + ": sim " + simDecision + ", live "
                        + (liveDecision == null ? "no lookup" : liveDecision) + " (" + cause(simDecision, liveDecision) + ")";
            }
        }
        for (Observation.Decision liveDecision : first.lookups().values()) {
            if (!sim.lookups().containsKey(liveDecision.requestId()) && divergence == null) {
                divergence = "request " + liveDecision.requestId() + ": looked up live only";
            }
        }
        boolean sameOrder = new ArrayList<>(sim.lookups().keySet()).equals(new ArrayList<>(first.lookups().keySet()));
        int agreeing = (int) live.stream().filter(o -> o.lookups().equals(sim.lookups())).count();
        return new Decisions(sim.lookups().size(), identical, sameOrder, divergence, agreeing, sim.lookupCalls(), first.lookupCalls(),
                kindsThatDiffer(sim.decisionKinds(), first.decisionKinds()));
    }

    /**
     * The decision kinds (beyond lookups) whose counts differ between the simulation and the first
     * live run, "kind sim/live" each; empty when every count agrees. Op records ("op-read") count
     * the operations issued, so a differing count names the step where the runs parted.
     */
    static String kindsThatDiffer(Map<String, Long> sim, Map<String, Long> live) {
        java.util.TreeSet<String> kinds = new java.util.TreeSet<>(sim.keySet());
        kinds.addAll(live.keySet());
        StringBuilder text = new StringBuilder();
        for (String kind : kinds) {
            long simCount = sim.getOrDefault(kind, 0L);
            long liveCount = live.getOrDefault(kind, 0L);
            if (simCount != liveCount) {
                text.append(text.isEmpty() ? "" : "; ").append(kind).append(' ').append(simCount).append('/').append(liveCount);
            }
        }
        return text.toString();
    }

    /** One decision kind's count in the simulation beside the live runs'. */
    record KindCount(String kind, long sim, double liveMedian, double liveMin, double liveMax, double relativeError) {}

    /** Every decision kind any run made, in name order, with its counts. */
    static List<KindCount> kindCounts(List<Observation> live, Observation sim) {
        java.util.TreeSet<String> kinds = new java.util.TreeSet<>(sim.decisionKinds().keySet());
        live.forEach(o -> kinds.addAll(o.decisionKinds().keySet()));
        List<KindCount> counts = new ArrayList<>();
        for (String kind : kinds) {
            double[] values = live.stream().mapToDouble(o -> o.decisionKinds().getOrDefault(kind, 0L)).toArray();
            double median = Percentiles.medianMidpoint(values);
            long simCount = sim.decisionKinds().getOrDefault(kind, 0L);
            counts.add(new KindCount(kind, simCount, median, Arrays.stream(values).min().orElse(Double.NaN),
                    Arrays.stream(values).max().orElse(Double.NaN), relative(simCount - median, median)));
        }
        return counts;
    }

    /** What a differing decision says about its cause. */
    static String cause(Observation.Decision sim, Observation.Decision live) {
        if (live == null) {
            return "the request was not looked up live: the run did not finish it";
        }
        if (sim.startBlock() != live.startBlock()) {
            return "the request had computed a different number of blocks before its lookup: it was preempted or its"
                    + " admission was deferred in one run and not the other, an order that timing decides";
        }
        if (sim.hitBlocks() != live.hitBlocks()) {
            return "a different prefix was indexed when it looked up: an earlier request's save had committed in one run and"
                    + " was still in flight in the other (write completion times differ)";
        }
        if (sim.hitClass() != live.hitClass()) {
            boolean l1Lost = sim.hitClass() == HitClass.L1 || live.hitClass() == HitClass.L2;
            return l1Lost ? "the same blocks were hit, but in one run part of them had left L1: evictions follow the order"
                    + " in which loads, promotions and saves completed" : "the same blocks were hit from different tiers";
        }
        return "same decision";
    }

    static double relative(double difference, double base) {
        if (base == 0) {
            return difference == 0 ? 0 : Double.NaN;
        }
        return difference / base;
    }
}
