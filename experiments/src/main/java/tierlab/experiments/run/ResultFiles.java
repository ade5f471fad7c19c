package tierlab.experiments.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.math3.stat.descriptive.SummaryStatistics;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;
import tierlab.experiments.ColumnTable;
import tierlab.model.request.RequestOutcome;
import tierlab.metrics.Sample;

/**
 * The tables of an experiment: {@code results.csv} (one row per run: every parameter, the seed,
 * every metric, the decision-trace hash and any failure), {@code requests.csv} (every request's
 * TTFT), {@code timeseries.csv} (sampled L1 occupancy and queue depths) and {@code summary.json}.
 * None of them holds a wall-clock figure, so re-running a sim or hybrid file rewrites them identically.
 */
public final class ResultFiles {

    public static final String RESULTS = "results.csv";
    public static final String REQUESTS = "requests.csv";
    public static final String TIMESERIES = "timeseries.csv";
    public static final String SUMMARY = "summary.json";
    /** Bugs' stack traces (runs whose {@value #FAILURE_KIND} is {@code bug}); written only when there is one. */
    public static final String ERRORS_LOG = "errors.log";
    /** The column saying what kind of failure stopped a run ({@link RunFailure.Kind}); empty when none did. */
    public static final String FAILURE_KIND = "run.failureKind";
    private static final double GIB = 1L << 30;

    private ResultFiles() {
    }

    /**
     * The text of {@value #ERRORS_LOG}: for each run that a bug stopped, its label and the full stack
     * trace; null when no bug stopped any run (then the file is not written).
     */
    public static String errorsLog(List<RunResult> results) {
        StringBuilder text = new StringBuilder();
        for (RunResult result : results) {
            if (result.failed() && result.cause() != null && result.cause().kind() == RunFailure.Kind.BUG) {
                text.append("run ").append(result.point().index()).append(" (").append(result.point().label()).append("): ")
                        .append(result.failure()).append('\n').append(result.cause().stackTrace()).append('\n');
            }
        }
        return text.isEmpty() ? null : text.toString();
    }

    public static Table results(ExperimentLoader.Experiment experiment, List<RunResult> results) {
        Table table = Table.create("results");
        IntColumn run = IntColumn.create("run");
        results.forEach(r -> run.append(r.point().index()));
        table.addColumns(run);
        Set<String> parameters = new LinkedHashSet<>();
        results.forEach(r -> parameters.addAll(r.point().config().parameters().keySet()));
        for (String parameter : parameters) {
            table.addColumns(parameterColumn(parameter, results));
        }
        for (String metric : experiment.metricNames()) {
            DoubleColumn column = DoubleColumn.create(metric);
            results.forEach(r -> {
                Double value = r.metrics().get(metric);
                if (value == null) {
                    column.appendMissing();
                } else {
                    column.append(value);
                }
            });
            table.addColumns(column);
        }
        StringColumn hash = StringColumn.create("decisionTraceHash");
        StringColumn failure = StringColumn.create("failure");
        StringColumn failureKind = StringColumn.create(FAILURE_KIND);
        results.forEach(r -> {
            hash.append(r.decisionHash());
            failure.append(r.failure() == null ? "" : r.failure());
            failureKind.append(RunFailure.columnValue(r));
        });
        table.addColumns(hash, failure, failureKind);
        return table;
    }

    private static Column<?> parameterColumn(String name, List<RunResult> results) {
        Object first = null;
        for (RunResult r : results) {
            first = r.point().config().parameters().get(name);
            if (first != null) {
                break;
            }
        }
        if (first instanceof Boolean) {
            BooleanColumn column = BooleanColumn.create(name);
            results.forEach(r -> {
                Object value = r.point().config().parameters().get(name);
                if (value instanceof Boolean flag) {
                    column.append(flag);
                } else {
                    column.appendMissing();
                }
            });
            return column;
        }
        boolean allWhole = results.stream().map(r -> r.point().config().parameters().get(name))
                .allMatch(v -> v == null || v instanceof Integer || v instanceof Long);
        boolean allNumbers = results.stream().map(r -> r.point().config().parameters().get(name))
                .allMatch(v -> v == null || v instanceof Number);
        if (allWhole) {
            LongColumn column = LongColumn.create(name);
            results.forEach(r -> {
                Object value = r.point().config().parameters().get(name);
                if (value == null) {
                    column.appendMissing();
                } else {
                    column.append(((Number) value).longValue());
                }
            });
            return column;
        }
        if (allNumbers) {
            DoubleColumn column = DoubleColumn.create(name);
            results.forEach(r -> {
                Object value = r.point().config().parameters().get(name);
                if (value == null) {
                    column.appendMissing();
                } else {
                    column.append(((Number) value).doubleValue());
                }
            });
            return column;
        }
        StringColumn column = StringColumn.create(name);
        results.forEach(r -> column.append(Aggregates.format(r.point().config().parameters().get(name))));
        return column;
    }

    /** One request of one pass of one run; {@code outcome} null where the run recorded none for it. */
    private record RequestRow(int run, String pass, int request, long ttftNs, RequestOutcome outcome) {
        Long of(java.util.function.ToLongFunction<RequestOutcome> field) {
            return outcome == null ? null : field.applyAsLong(outcome);
        }
    }

    // Where each prompt's tokens came from (RequestOutcome): GPU prefix cache, L1, L2, computed; of the recomputed
    // tokens, those a prefetch stop or a failed read cost (what the stop policies trade); the rest were misses.
    private static final ColumnTable<RequestRow> REQUEST_TABLE = ColumnTable.<RequestRow>named("requests")
            .integer("run", RequestRow::run).text("pass", RequestRow::pass).integer("request", RequestRow::request)
            .decimal("ttftMs", r -> r.ttftNs() / 1e6)
            .wholeOrMissing("gpuCachedTokens", r -> r.of(RequestOutcome::gpuCachedTokens))
            .wholeOrMissing("l1Tokens", r -> r.of(RequestOutcome::l1Tokens))
            .wholeOrMissing("l2Tokens", r -> r.of(RequestOutcome::l2Tokens))
            .wholeOrMissing("recomputedTokens", r -> r.of(RequestOutcome::recomputedTokens))
            .wholeOrMissing("loadsWaited", r -> r.of(RequestOutcome::loadsWaited))
            .wholeOrMissing("recomputedTokensPrefetchTimeout", r -> r.of(RequestOutcome::prefetchTimeoutTokens))
            .wholeOrMissing("recomputedTokensFailedRead", r -> r.of(RequestOutcome::failedReadTokens));

    public static Table requests(List<RunResult> results) {
        List<RequestRow> rows = new java.util.ArrayList<>();
        for (RunResult result : results) {
            result.ttftNsByPass().forEach((name, values) -> {
                List<RequestOutcome> outcomes = result.outcomesByPass().getOrDefault(name, List.of());
                for (int i = 0; i < values.length; i++) {
                    rows.add(new RequestRow(result.point().index(), name, i, values[i], i < outcomes.size() ? outcomes.get(i) : null));
                }
            });
        }
        return REQUEST_TABLE.of(rows);
    }

    /** One sample of one run. */
    private record SampleRow(int run, Sample sample) {}

    private static final ColumnTable<SampleRow> TIMESERIES_TABLE = ColumnTable.<SampleRow>named("timeseries")
            .integer("run", SampleRow::run).decimal("timeS", r -> r.sample().atNs() / 1e9)
            .decimal("l1UsedGiB", r -> r.sample().l1UsedBytes() / GIB).decimal("leasedGiB", r -> r.sample().leasedBytes() / GIB)
            .integer("storeQueueDepth", r -> r.sample().storeQueueDepth()).integer("running", r -> r.sample().running())
            .integer("waiting", r -> r.sample().waiting()).integer("prefetching", r -> r.sample().prefetching())
            .integer("inflightOps", r -> r.sample().inflightOps());

    public static Table timeseries(List<RunResult> results) {
        List<SampleRow> rows = new java.util.ArrayList<>();
        for (RunResult result : results) {
            result.samples().forEach(sample -> rows.add(new SampleRow(result.point().index(), sample)));
        }
        return TIMESERIES_TABLE.of(rows);
    }

    public static void writeCsv(Table table, Path file) throws IOException {
        tierlab.experiments.CsvFiles.write(table, file);
    }

    /** Per sweep cell: the axes, the seeds, and mean/sd/min/max of every metric over the seeds. */
    public static ObjectNode summary(ExperimentLoader.Experiment experiment, List<RunResult> results,
                                     List<ReportWriter.ReferenceValue> reference) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("name", experiment.name());
        root.put("kind", experiment.kind());
        root.put("mode", experiment.mode());
        root.put("runs", results.size());
        root.put("failedRuns", results.stream().filter(RunResult::failed).count());
        ArrayNode axes = root.putArray("axes");
        experiment.axes().forEach(axes::add);
        // What tierlab plot needs to read results.csv back: which columns are metrics, the passes.
        ArrayNode metricNames = root.putArray("metrics");
        experiment.metricNames().forEach(metricNames::add);
        ArrayNode passes = root.putArray("passes");
        experiment.passes().forEach(passes::add);
        ArrayNode groups = root.putArray("groups");
        for (Aggregates.Group group : Aggregates.groups(results)) {
            ObjectNode node = groups.addObject();
            ObjectNode axisValues = node.putObject("axes");
            group.axisValues().forEach(axisValues::set);
            ArrayNode runs = node.putArray("runs");
            group.runs().forEach(r -> runs.add(r.point().index()));
            ArrayNode seeds = node.putArray("seeds");
            group.runs().forEach(r -> seeds.add(r.point().seed()));
            ArrayNode hashes = node.putArray("decisionTraceHashes");
            group.runs().forEach(r -> hashes.add(r.decisionHash()));
            ArrayNode failures = node.putArray("failures");
            group.runs().stream().filter(RunResult::failed).forEach(r -> failures.add(r.failure()));
            ObjectNode examples = node.putObject("examples");
            group.runs().stream().filter(r -> r.failed() && !r.examples().isEmpty()).forEach(r -> {
                ArrayNode lines = examples.putArray(Integer.toString(r.point().index()));
                r.examples().forEach(lines::add);
            });
            ObjectNode metrics = node.putObject("metrics");
            for (String metric : experiment.metricNames()) {
                SummaryStatistics statistics = group.statistics(metric);
                ObjectNode stats = metrics.putObject(metric);
                stats.put("mean", statistics.getMean());
                stats.put("sd", statistics.getN() > 1 ? statistics.getStandardDeviation() : 0.0);
                stats.put("min", statistics.getMin());
                stats.put("max", statistics.getMax());
                stats.put("n", statistics.getN());
            }
        }
        ArrayNode rows = root.putArray("reference");
        for (ReportWriter.ReferenceValue value : reference) {
            ObjectNode row = rows.addObject();
            row.put("label", value.row().label());
            row.put("reference", value.row().reference());
            if (value.row().metric() != null) {
                row.put("metric", value.row().metric());
                row.put("tierlab", value.value());
                row.put("runs", value.runs());
            }
        }
        return root;
    }

    public static String json(ObjectNode node) {
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(node) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException("a tree of plain values always serialises", e);
        }
    }
}
