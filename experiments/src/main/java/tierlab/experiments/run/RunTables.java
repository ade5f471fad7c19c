package tierlab.experiments.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.math3.stat.descriptive.SummaryStatistics;
import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.io.csv.CsvReadOptions;
import tierlab.experiments.CommandException;

/**
 * An experiment's output read back from the files a run wrote: {@code results.csv} (parameters and
 * metrics per run), {@code requests.csv} (per-request TTFT), {@code timeseries.csv} (sampled
 * quantities), {@code summary.json} (the sweep cells, metric names, failure examples) and
 * {@code run.json} (labels, seeds, the command, wall time). Charts and the report are drawn from
 * this and only this, both at the end of a run and by {@code tierlab plot}, so re-plotting an
 * unchanged folder gives the same charts and report.
 *
 * <p>Every column is read as text and typed here, the way {@link ResultFiles} wrote it: a column
 * of {@code true}/{@code false} is a flag, one of whole numbers a {@code Long}, one of numbers with
 * a point a {@code Double} (Tablesaw writes doubles with {@link Double#toString}, which reads back
 * exactly), anything else text.
 */
public record RunTables(Path folder, String name, String mode, List<String> axes, List<String> metricNames,
                        List<String> passes, List<Long> seeds, RunRecord record, List<Row> runs, List<Cell> cells) {

    /** What {@code run.json} says about how the output was made, for the report's "How to reproduce". */
    public record RunRecord(String command, String gitCommit, double wallSeconds, int threads) {}

    /**
     * One run: its parameters and metrics as in {@code results.csv}, its per-request TTFT by pass
     * (ms, request order) and its sampled quantities (column name → values, with {@code timeS}).
     */
    public record Row(int index, String label, long seed, Map<String, Object> parameters, Map<String, Double> metrics,
                      String failure, List<String> examples, Map<String, double[]> ttftMsByPass,
                      Map<String, double[]> samples) {
        public boolean failed() {
            return failure != null;
        }
    }

    /** One sweep cell: its parameters (its first seed's, less the seed), its axis values and its runs. */
    public record Cell(Map<String, Object> parameters, Map<String, JsonNode> axisValues, List<Row> runs) {

        public SummaryStatistics statistics(String metric) {
            return Aggregates.statistics(runs.stream().map(Row::metrics).toList(), metric);
        }

        public double mean(String metric) {
            SummaryStatistics statistics = statistics(metric);
            return statistics.getN() == 0 ? Double.NaN : statistics.getMean();
        }

        /** True if every {@code where} entry equals this cell's parameter of that name. */
        public boolean matches(Map<String, JsonNode> where) {
            if (where == null) {
                return true;
            }
            for (Map.Entry<String, JsonNode> entry : where.entrySet()) {
                if (!Aggregates.sameValue(parameters.get(entry.getKey()), entry.getValue())) {
                    return false;
                }
            }
            return true;
        }

        public String label(String parameter) {
            return parameter == null ? "all runs" : Aggregates.format(parameters.get(parameter));
        }
    }

    /** Parameters of the first run, in column order (what charts and reference rows may name). */
    public Set<String> parameterNames() {
        return runs.isEmpty() ? Set.of() : runs.getFirst().parameters().keySet();
    }

    /** Reads the tables of {@code folder}; a missing or unreadable file is one line naming it. */
    public static RunTables read(Path folder) {
        JsonNode summary = json(folder.resolve(ResultFiles.SUMMARY));
        JsonNode runJson = json(folder.resolve(RunCommand.RUN_INFO));
        List<String> metricNames = strings(summary, "metrics", folder.resolve(ResultFiles.SUMMARY));
        List<String> passes = strings(summary, "passes", folder.resolve(ResultFiles.SUMMARY));
        List<String> axes = new ArrayList<>();
        summary.path("axes").forEach(axis -> axes.add(axis.asText()));

        Map<Integer, String> labels = new LinkedHashMap<>();
        runJson.path("runs").forEach(run -> labels.put(run.path("run").asInt(), run.path("point").asText()));
        Map<Integer, List<String>> examples = examples(summary);

        Path resultsFile = folder.resolve(ResultFiles.RESULTS);
        Table results = csv(resultsFile, "run", "failure");
        Path requestsFile = folder.resolve(ResultFiles.REQUESTS);
        Map<Integer, Map<String, double[]>> ttft = perRunSeries(csv(requestsFile, "run", "pass", "ttftMs"), requestsFile,
                "pass", "ttftMs");
        Path timeseriesFile = folder.resolve(ResultFiles.TIMESERIES);
        Map<Integer, Map<String, double[]>> samples = samples(csv(timeseriesFile, "run"), timeseriesFile);
        Set<String> metricSet = new LinkedHashSet<>(metricNames);
        List<String> parameterColumns = results.columnNames().stream()
                .filter(c -> !c.equals("run") && !metricSet.contains(c) && !c.equals("decisionTraceHash") && !c.equals("failure")
                        && !c.equals(ResultFiles.FAILURE_KIND))
                .toList();
        Map<String, List<Object>> typed = new LinkedHashMap<>();
        for (String column : parameterColumns) {
            typed.put(column, typedColumn(results.stringColumn(column)));
        }
        List<Row> rows = new ArrayList<>();
        Map<Integer, Row> byIndex = new LinkedHashMap<>();
        for (int i = 0; i < results.rowCount(); i++) {
            int index = runIndex(results, resultsFile, i);
            Map<String, Object> parameters = new LinkedHashMap<>();
            for (String column : parameterColumns) {
                parameters.put(column, typed.get(column).get(i));
            }
            Map<String, Double> metrics = new LinkedHashMap<>();
            for (String metric : metricNames) {
                String text = results.containsColumn(metric) ? results.stringColumn(metric).get(i) : "";
                // An empty cell is a metric the run did not give (it failed, or the metric does not apply).
                metrics.put(metric, text.isEmpty() ? null : number(resultsFile, i, metric, text));
            }
            String failure = results.stringColumn("failure").get(i);
            Object seed = parameters.get("seed");
            Row row = new Row(index, labels.getOrDefault(index, "run " + index), seed instanceof Number n ? n.longValue() : 0,
                    parameters, metrics, failure.isEmpty() ? null : failure, examples.getOrDefault(index, List.of()),
                    ttft.getOrDefault(index, Map.of()), samples.getOrDefault(index, Map.of()));
            rows.add(row);
            byIndex.put(index, row);
        }

        List<Cell> cells = new ArrayList<>();
        for (JsonNode group : summary.path("groups")) {
            List<Row> members = new ArrayList<>();
            group.path("runs").forEach(run -> {
                Row row = byIndex.get(run.asInt());
                if (row == null) {
                    throw new CommandException(folder.resolve(ResultFiles.SUMMARY) + ": groups: run " + run.asInt()
                            + " is not in " + ResultFiles.RESULTS + " (the files come from different runs)");
                }
                members.add(row);
            });
            if (members.isEmpty()) {
                throw new CommandException(folder.resolve(ResultFiles.SUMMARY) + ": groups: a group without runs"
                        + " (written by an older tierlab; run the experiment again)");
            }
            Map<String, Object> parameters = new LinkedHashMap<>(members.getFirst().parameters());
            parameters.remove("seed");
            Map<String, JsonNode> axisValues = new LinkedHashMap<>();
            group.path("axes").properties().forEach(entry -> axisValues.put(entry.getKey(), entry.getValue()));
            cells.add(new Cell(parameters, axisValues, List.copyOf(members)));
        }
        List<Long> seeds = new ArrayList<>();
        runJson.path("seeds").forEach(seed -> seeds.add(seed.asLong()));
        RunRecord record = new RunRecord(runJson.path("command").asText(), runJson.path("gitCommit").asText(),
                runJson.path("wallSeconds").asDouble(), runJson.path("threads").asInt());
        return new RunTables(folder, summary.path("name").asText(), summary.path("mode").asText(), List.copyOf(axes),
                metricNames, passes, List.copyOf(seeds), record, List.copyOf(rows), List.copyOf(cells));
    }

    /** Each run's failure examples, as summary.json's groups list them. */
    private static Map<Integer, List<String>> examples(JsonNode summary) {
        Map<Integer, List<String>> examples = new LinkedHashMap<>();
        summary.path("groups").forEach(group -> group.path("examples").properties().forEach(entry -> {
            List<String> lines = new ArrayList<>();
            entry.getValue().forEach(line -> lines.add(line.asText()));
            examples.put(Integer.parseInt(entry.getKey()), lines);
        }));
        return examples;
    }

    private static JsonNode json(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new CommandException(file + ": missing; tierlab plot needs the folder a run wrote (run the experiment first)");
        }
        try {
            return new ObjectMapper().readTree(file.toFile());
        } catch (IOException e) {
            String where = e instanceof com.fasterxml.jackson.core.JacksonException json && json.getLocation() != null
                    && json.getLocation().getLineNr() > 0 ? ":" + json.getLocation().getLineNr() : "";
            String why = e instanceof com.fasterxml.jackson.core.JacksonException json
                    ? tierlab.workload.JsonProblems.words(json.getOriginalMessage()) : e.getMessage();
            throw new CommandException(file + where + ": cannot read it (" + why + ")", e);
        }
    }

    private static List<String> strings(JsonNode node, String field, Path file) {
        if (!node.path(field).isArray()) {
            throw new CommandException(file + ": " + field + ": missing (written by an older tierlab; run the experiment again)");
        }
        List<String> values = new ArrayList<>();
        node.path(field).forEach(value -> values.add(value.asText()));
        return List.copyOf(values);
    }

    /** The CSV file as text columns; one line naming the file when it is missing, unreadable or lacks a needed column. */
    private static Table csv(Path file, String... neededColumns) {
        if (!Files.isRegularFile(file)) {
            throw new CommandException(file + ": missing; tierlab plot needs the folder a run wrote (run the experiment first)");
        }
        Table table;
        // A table saved again by a spreadsheet may start with a byte-order mark: not part of the first column's name.
        try (java.io.Reader text = tierlab.workload.TextFiles.newReader(file)) {
            // Every column as text: the types are decided here, not guessed from a sample of rows.
            table = Table.read().usingOptions(CsvReadOptions.builder(text).columnTypes(column -> ColumnType.STRING)
                    .missingValueIndicator(new String[0]).maxCharsPerColumn(1 << 20));
        } catch (IOException | RuntimeException e) {
            throw new CommandException(file + ": cannot read it as CSV (" + e.getMessage() + ")", e);
        }
        for (String column : neededColumns) {
            if (!table.containsColumn(column)) {
                throw new CommandException(file + ": no column '" + column + "' in its header line (edited, or written by"
                        + " another program; run the experiment again)");
            }
        }
        return table;
    }

    /**
     * A cell that must hold a number, read back: one line naming the file, the line (the header is line 1),
     * the column and the text found, when it does not.
     */
    static double number(Path file, int row, String column, String text) {
        try {
            if (!text.isEmpty()) {
                return Double.parseDouble(text);
            }
        } catch (NumberFormatException notANumber) {
            // told below, with where it is
        }
        throw new CommandException(file + ":" + (row + 2) + ": column " + column + ": "
                + (text.isEmpty() ? "empty" : "'" + text + "'") + " where a number is needed (was the file edited?)");
    }

    /** The {@code run} column's whole number in row {@code row}; one line naming file, line and value otherwise. */
    private static int runIndex(Table table, Path file, int row) {
        String text = table.stringColumn("run").get(row);
        if (!text.matches("\\d{1,9}")) {
            throw new CommandException(file + ":" + (row + 2) + ": column run: " + (text.isEmpty() ? "empty" : "'" + text + "'")
                    + " where a run number (0, 1, 2, ...) is needed (was the file edited?)");
        }
        return Integer.parseInt(text);
    }

    /** A parameter column typed as {@link ResultFiles} wrote it: flags, whole numbers, numbers, else text. */
    private static List<Object> typedColumn(StringColumn column) {
        List<String> values = column.asList();
        List<String> present = values.stream().filter(v -> !v.isEmpty()).toList();
        List<Object> typed = new ArrayList<>(values.size());
        if (!present.isEmpty() && present.stream().allMatch(v -> v.equals("true") || v.equals("false"))) {
            values.forEach(v -> typed.add(v.isEmpty() ? null : Boolean.valueOf(v)));
        } else if (!present.isEmpty() && present.stream().allMatch(v -> v.matches("-?\\d{1,18}"))) {
            values.forEach(v -> typed.add(v.isEmpty() ? null : Long.valueOf(v)));
        } else if (!present.isEmpty() && present.stream().allMatch(RunTables::isDouble)) {
            values.forEach(v -> typed.add(v.isEmpty() ? null : Double.valueOf(v)));
        } else {
            typed.addAll(values);
        }
        return typed;
    }

    private static boolean isDouble(String text) {
        return text.matches("-?(\\d+(\\.\\d*)?([eE][-+]?\\d+)?|NaN|Infinity)");
    }

    /** Per run, per key column value, the value column in file order (requests.csv: TTFT by pass). */
    private static Map<Integer, Map<String, double[]>> perRunSeries(Table table, Path file, String keyColumn,
                                                                    String valueColumn) {
        Map<Integer, Map<String, List<Double>>> lists = new LinkedHashMap<>();
        StringColumn key = table.stringColumn(keyColumn);
        StringColumn value = table.stringColumn(valueColumn);
        for (int i = 0; i < table.rowCount(); i++) {
            lists.computeIfAbsent(runIndex(table, file, i), r -> new LinkedHashMap<>())
                    .computeIfAbsent(key.get(i), k -> new ArrayList<>()).add(number(file, i, valueColumn, value.get(i)));
        }
        Map<Integer, Map<String, double[]>> arrays = new LinkedHashMap<>();
        lists.forEach((r, byKey) -> {
            Map<String, double[]> converted = new LinkedHashMap<>();
            byKey.forEach((k, values) -> converted.put(k, values.stream().mapToDouble(Double::doubleValue).toArray()));
            arrays.put(r, converted);
        });
        return arrays;
    }

    /** Per run, every column of timeseries.csv but {@code run} as an array, in time order. */
    private static Map<Integer, Map<String, double[]>> samples(Table table, Path file) {
        Map<Integer, List<Integer>> rowsByRun = new LinkedHashMap<>();
        for (int i = 0; i < table.rowCount(); i++) {
            rowsByRun.computeIfAbsent(runIndex(table, file, i), r -> new ArrayList<>()).add(i);
        }
        Map<Integer, Map<String, double[]>> samples = new LinkedHashMap<>();
        rowsByRun.forEach((r, rows) -> {
            Map<String, double[]> columns = new LinkedHashMap<>();
            for (String name : table.columnNames()) {
                if (name.equals("run")) {
                    continue;
                }
                StringColumn column = table.stringColumn(name);
                columns.put(name, rows.stream().mapToDouble(i -> number(file, i, name, column.get(i))).toArray());
            }
            samples.put(r, columns);
        });
        return samples;
    }
}
