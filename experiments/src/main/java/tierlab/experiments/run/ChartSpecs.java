package tierlab.experiments.run;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tierlab.experiments.CommandException;
import tierlab.experiments.run.ExperimentFile.ChartSection;
import tierlab.experiments.run.ExperimentFile.ReferenceRow;

/**
 * The parts of an experiment file that shape its charts and report (name, description,
 * {@code charts}, {@code reference}), read on their own for {@code tierlab plot}, and checked
 * against the tables a run wrote: every problem is one line naming the file, the line and the
 * field ({@code out/e1/experiment.yaml:42: charts[1].y: unknown metric 'warm.l1Hit' (metrics: ...)}).
 */
public record ChartSpecs(Path file, String text, String name, String description, List<ChartSection> charts,
                         ExperimentFile.ReferenceSection reference) {

    /** Reads {@code file} as an experiment file; a syntax or type error is one line with its line number. */
    public static ChartSpecs read(Path file) {
        String text;
        try {
            text = tierlab.workload.TextFiles.readString(file);
        } catch (IOException e) {
            throw new CommandException(file + ": cannot read the experiment file (" + e.getMessage() + ")", e);
        }
        ExperimentFile spec;
        try {
            spec = ExperimentParsing.mapperFor(file).readValue(text, ExperimentFile.class);
        } catch (JsonProcessingException e) {
            String line = e.getLocation() == null ? "" : ":" + e.getLocation().getLineNr();
            throw new CommandException(file + line + ": " + tierlab.workload.JsonProblems.words(e.getOriginalMessage()), e);
        }
        if (spec == null) {
            throw new CommandException(file + ": the experiment file is empty");
        }
        return of(file, text, spec);
    }

    /** The sections of an experiment already loaded (by {@code tierlab run}). */
    public static ChartSpecs of(Path file, String text, ExperimentFile spec) {
        return new ChartSpecs(file, text, spec.name(), spec.description(),
                spec.charts() == null ? List.of() : spec.charts(), spec.reference());
    }

    /** The text of {@code file}, or null when it cannot be read (messages then have no line numbers). */
    static String textOf(Path file) {
        try {
            return tierlab.workload.TextFiles.readString(file);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Every chart whose spec does not fit the tables, by chart index, as one line each; an empty map
     * when all can be drawn. A chart that names an unknown parameter, metric, pass or sampled
     * quantity, or whose {@code where} matches no run, is a problem.
     */
    public Map<Integer, String> problems(RunTables tables) {
        Map<Integer, String> problems = new LinkedHashMap<>();
        Set<String> parameters = tables.parameterNames();
        Set<String> files = new java.util.HashSet<>();
        for (int i = 0; i < charts.size(); i++) {
            ChartSection chart = charts.get(i);
            String problem = chart == null ? problem(i, null, "a chart is a mapping of fields (type, file, x, y, ...)")
                    : problem(i, chart, parameters, tables);
            if (problem == null && !files.add(chart.file())) {
                problem = problem(i, "file", "'" + chart.file() + "' is used by an earlier chart");
            }
            if (problem != null) {
                problems.put(i, problem);
            }
        }
        return problems;
    }

    /** The reference rows' problems (unknown metric or parameter), as one line each. */
    public List<String> referenceProblems(RunTables tables) {
        List<String> problems = new ArrayList<>();
        if (reference == null || reference.rows() == null) {
            return problems;
        }
        for (int i = 0; i < reference.rows().size(); i++) {
            ReferenceRow row = reference.rows().get(i);
            String at = "reference.rows[" + i + "]";
            if (row == null || row.label() == null || row.reference() == null) {
                problems.add(at(new Object[] {"reference", "rows", i}) + at + ": a row has a label and the reference's figure");
            } else if (row.fittedFrom() != null && !Boolean.TRUE.equals(row.fitted())) {
                problems.add(at(new Object[] {"reference", "rows", i, "fittedFrom"}) + at + ".fittedFrom: names what a fitted"
                        + " row was fitted to; set fitted: true");
            } else if (row.metric() != null && !tables.metricNames().contains(row.metric())) {
                problems.add(at(new Object[] {"reference", "rows", i, "metric"}) + at + ".metric: unknown metric '"
                        + row.metric() + "' (metrics: " + String.join(", ", tables.metricNames()) + ")");
            } else if (row.where() != null) {
                for (String key : row.where().keySet()) {
                    if (!tables.parameterNames().contains(key)) {
                        problems.add(at(new Object[] {"reference", "rows", i, "where", key}) + at + ".where." + key
                                + ": unknown parameter '" + key + "' (parameters: " + String.join(", ", tables.parameterNames()) + ")");
                    }
                }
            }
        }
        problems.addAll(checkProblems(tables.parameterNames(), tables.metricNames()));
        return problems;
    }

    /**
     * The problems of {@code reference.checks} against the runs' parameters and metrics, one line each
     * ("FILE:LINE: reference.checks[i].FIELD: message"): a check's shape ({@link ReferenceChecks#shapeProblem}),
     * then every metric and {@code where} parameter it names, its own and its {@code ratioTo}'s or {@code differenceTo}'s.
     */
    public List<String> checkProblems(Set<String> parameters, List<String> metrics) {
        List<String> problems = new ArrayList<>();
        if (reference == null || reference.checks() == null) {
            return problems;
        }
        for (int i = 0; i < reference.checks().size(); i++) {
            ExperimentFile.ReferenceCheck check = reference.checks().get(i);
            String problem = check == null ? ": a check is a mapping of fields (claim, metric, where, and a bound)"
                    : checkProblem(check, parameters, metrics);
            if (problem != null) {
                String field = problem.startsWith(".") ? problem.substring(1, problem.indexOf(':')) : "";
                List<Object> path = new ArrayList<>(List.of("reference", "checks", i));
                if (!field.isEmpty()) {
                    path.addAll(List.of(field.split("\\.")));
                }
                problems.add(at(path.toArray()) + "reference.checks[" + i + "]" + problem);
            }
        }
        return problems;
    }

    /** ".FIELD: message" for a check's first problem, or null. */
    private static String checkProblem(ExperimentFile.ReferenceCheck check, Set<String> parameters, List<String> metrics) {
        String shape = ReferenceChecks.shapeProblem(check);
        if (shape != null) {
            return "." + shape;
        }
        String problem = selectionProblem("", check.metric(), check.where(), parameters, metrics);
        ExperimentFile.OtherRuns other = ReferenceChecks.other(check);
        if (problem == null && other != null) {
            problem = selectionProblem(ReferenceChecks.otherField(check) + ".", other.metric(), other.where(), parameters, metrics);
        }
        return problem;
    }

    private static String selectionProblem(String prefix, String metric, Map<String, JsonNode> where,
                                           Set<String> parameters, List<String> metrics) {
        if (metric != null && !metrics.contains(metric)) {
            return "." + prefix + "metric: unknown metric '" + metric + "' (metrics: " + String.join(", ", metrics) + ")";
        }
        if (where != null) {
            for (String key : where.keySet()) {
                if (!parameters.contains(key)) {
                    return "." + prefix + "where." + key + ": unknown parameter '" + key + "' (parameters: "
                            + String.join(", ", parameters) + ")";
                }
            }
        }
        return null;
    }

    private String problem(int index, ChartSection chart, Set<String> parameters, RunTables tables) {
        if (chart.type() == null || !ChartChecks.CHART_TYPES.contains(chart.type())) {
            return problem(index, "type", "one of " + String.join(", ", ChartChecks.CHART_TYPES.stream().sorted().toList()));
        }
        if (chart.file() == null || !ExperimentLoader.NAME.matcher(chart.file()).matches()) {
            return problem(index, "file", "a base name of lower-case letters, digits and dashes (the chart is written as"
                    + " FILE.png and FILE.svg)");
        }
        List<String> checks = new ArrayList<>();
        switch (chart.type()) {
            case "line", "bar" -> {
                checks.add(parameter(index, "x", chart.x(), parameters));
                checks.add(metric(index, "y", chart.y(), tables.metricNames()));
            }
            case "heatmap" -> {
                checks.add(parameter(index, "x", chart.x(), parameters));
                checks.add(parameter(index, "y", chart.y(), parameters));
                checks.add(metric(index, "z", chart.z(), tables.metricNames()));
            }
            case "cdf" -> checks.add(chart.pass() != null && tables.passes().contains(chart.pass()) ? null
                    : problem(index, "pass", "the pass whose per-request TTFT to plot, one of " + tables.passes()));
            default -> checks.add(chart.y() != null && ChartChecks.SAMPLE_SERIES.contains(chart.y()) ? null
                    : problem(index, "y", "one of " + String.join(", ", ChartChecks.SAMPLE_SERIES)));
        }
        if (chart.series() != null) {
            checks.add(parameter(index, "series", chart.series(), parameters));
        }
        if (chart.where() != null) {
            for (String key : chart.where().keySet()) {
                checks.add(parameters.contains(key) ? null : problem(index, "where." + key, "unknown parameter '" + key
                        + "' (parameters: " + String.join(", ", parameters) + ")"));
            }
        }
        String look = ChartChecks.lookProblem(chart);
        if (look != null) {
            checks.add(problem(index, look.substring(0, look.indexOf(':')), look.substring(look.indexOf(':') + 2)));
        }
        String first = checks.stream().filter(c -> c != null).findFirst().orElse(null);
        if (first != null) {
            return first;
        }
        String folded = ChartAggregation.problem(chart, tables.cells().stream()
                .map(c -> new ChartAggregation.Swept(c.parameters(), c.axisValues())).toList(), tables.axes());
        if (folded != null) {
            return problem(index, null, "(" + chart.file() + ") " + folded);
        }
        List<RunTables.Cell> selected = tables.cells().stream().filter(c -> c.matches(chart.where())).toList();
        if (selected.isEmpty()) {
            return problem(index, "where", "no run matches " + chart.where());
        }
        if (chart.type().equals("line")) {
            for (RunTables.Cell cell : selected) {
                Object x = cell.parameters().get(chart.x());
                if (!(x instanceof Number)) {
                    return problem(index, "x", "a line chart needs a numeric parameter, and " + chart.x() + " is '"
                            + Aggregates.format(x) + "' (use a bar chart)");
                }
            }
        }
        return null;
    }

    private String parameter(int index, String field, String name, Set<String> parameters) {
        if (name != null && parameters.contains(name)) {
            return null;
        }
        return problem(index, field, (name == null ? "missing" : "unknown parameter '" + name + "'")
                + " (parameters: " + String.join(", ", parameters) + ")");
    }

    private String metric(int index, String field, String name, List<String> metrics) {
        if (name != null && metrics.contains(name)) {
            return null;
        }
        return problem(index, field, (name == null ? "missing" : "unknown metric '" + name + "'")
                + " (metrics: " + String.join(", ", metrics) + ")");
    }

    /** "FILE:LINE: charts[i].FIELD: message", the line that of the field, else of the chart. */
    private String problem(int index, String field, String message) {
        List<Object> path = new ArrayList<>(List.of("charts", index));
        if (field != null) {
            path.addAll(List.of(field.split("\\.", 2)));
        }
        return at(path.toArray()) + "charts[" + index + "]" + (field == null ? "" : "." + field) + ": " + message;
    }

    /** "FILE:LINE: " for the deepest part of {@code path} found in the text; "FILE: " without one. */
    private String at(Object[] path) {
        for (int depth = path.length; depth > 0; depth--) {
            int line = lineOf(java.util.Arrays.copyOf(path, depth));
            if (line > 0) {
                return file + ":" + line + ": ";
            }
        }
        return file + ": ";
    }

    /**
     * The line where the value at {@code path} (field names and array indexes) starts in the file's
     * text, or 0. Walks the token stream, since a tree of nodes keeps no locations.
     */
    int lineOf(Object[] path) {
        if (text == null) {
            return 0;
        }
        try (JsonParser parser = ExperimentParsing.mapperFor(file).getFactory().createParser(text)) {
            // The keys of the containers we are inside (the root's is skipped), and for each an
            // array's next index (null for an object).
            List<Object> keys = new ArrayList<>();
            List<int[]> nextIndex = new ArrayList<>();
            String pendingField = null;
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
                if (token == JsonToken.FIELD_NAME) {
                    pendingField = parser.currentName();
                    continue;
                }
                if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
                    keys.removeLast();
                    nextIndex.removeLast();
                    continue;
                }
                Object key = nextIndex.isEmpty() ? null
                        : nextIndex.getLast() != null ? Integer.valueOf(nextIndex.getLast()[0]++) : pendingField;
                pendingField = null;
                if (!keys.isEmpty()) {
                    List<Object> here = new ArrayList<>(keys.subList(1, keys.size()));
                    here.add(key);
                    if (here.equals(List.of(path))) {
                        return parser.currentTokenLocation().getLineNr();
                    }
                }
                if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                    keys.add(key == null ? "" : key);
                    nextIndex.add(token == JsonToken.START_ARRAY ? new int[] {0} : null);
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }
}
