package tierlab.experiments.validate;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.Table;
import tech.tablesaw.io.csv.CsvReadOptions;
import tierlab.engine.persist.AtomicFiles;
import tierlab.engine.persist.CallerPaths;
import tierlab.experiments.CommandException;
import tierlab.workload.TextFiles;

/**
 * {@code tierlab accuracy [LABEL=]DIR...}: the accuracy tables of the README and docs, generated from
 * committed {@code validate} outputs ({@code validation.csv} and the {@code Host:} and {@code Command:}
 * lines of {@code report.md}), never typed by hand. The short table has one row per run, workload and
 * pass with the error of every metric; the full one lists every row of every run. With
 * {@code --update FILE} the blocks between {@code <!-- accuracy:begin -->} and
 * {@code <!-- accuracy:end -->} (short) and {@code <!-- accuracy-full:begin -->} and
 * {@code <!-- accuracy-full:end -->} (full) in FILE are replaced; without it the short table is printed.
 */
@Command(name = "accuracy", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Writes the accuracy tables of validate runs (each DIR an output folder of tierlab validate, with its"
                + " validation.csv and report.md; LABEL=DIR names the run) as Markdown: one row per run, workload and pass with"
                + " every metric's error, and the verdicts of elapsed time and TTFT p50/p90. --update FILE replaces the blocks"
                + " between <!-- accuracy:begin --> and <!-- accuracy:end --> (and accuracy-full) in FILE."})
public final class AccuracyCommand implements Callable<Integer> {

    static final String BEGIN = "<!-- accuracy:begin -->";
    static final String END = "<!-- accuracy:end -->";
    static final String FULL_BEGIN = "<!-- accuracy-full:begin -->";
    static final String FULL_END = "<!-- accuracy-full:end -->";
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0..*", arity = "1..*", paramLabel = "[LABEL=]DIR", description = "A validate output folder, optionally labelled.")
    private List<String> runs = new ArrayList<>();

    @Option(names = "--update", paramLabel = "FILE", description = "Replace the accuracy blocks in FILE (repeatable).")
    private List<Path> update = new ArrayList<>();

    /** One validate output folder as read: its label, folder, host and command lines, and its rows. */
    record Run(String label, Path folder, String host, String command, List<Row> rows) {}

    /** One row of validation.csv, every cell as written. */
    record Row(Map<String, String> cells) {
        String getString(String column) {
            return cells.getOrDefault(column, "");
        }
    }

    @Override
    public Integer call() throws IOException {
        List<Run> read = new ArrayList<>();
        for (String run : runs) {
            read.add(read(run));
        }
        String shortTable = shortTable(read, true);
        String fullTable = shortTable(read, false) + "\n" + fullTable(read);
        PrintWriter out = spec.commandLine().getOut();
        if (update.isEmpty()) {
            out.print(shortTable);
        }
        for (Path file : update) {
            Path target = CallerPaths.resolve(file);
            String text = readText(target);
            String updated = replace(target, text, BEGIN, END, shortTable, true);
            updated = replace(target, updated, FULL_BEGIN, FULL_END, fullTable, false);
            String result = updated;
            AtomicFiles.write(target, path -> Files.writeString(path, result));
            out.println("tierlab accuracy: updated " + target);
        }
        out.flush();
        return 0;
    }

    static Run read(String argument) {
        int equals = argument.indexOf('=');
        String label = equals > 0 ? argument.substring(0, equals) : null;
        Path folder = CallerPaths.resolve(Path.of(equals > 0 ? argument.substring(equals + 1) : argument));
        Path csv = folder.resolve(ValidationReport.CSV);
        if (!Files.isRegularFile(csv)) {
            throw new CommandException(folder + ": no " + ValidationReport.CSV + " (give the output folder of tierlab validate)");
        }
        Table table;
        try {
            // A byte-order mark (a spreadsheet's re-save) would otherwise become part of the first column's name.
            try (java.io.Reader text = TextFiles.newReader(csv)) {
                table = Table.read().usingOptions(CsvReadOptions.builder(text).columnTypes(column -> ColumnType.STRING)
                        .missingValueIndicator(new String[0]));
            }
        } catch (IOException e) {
            throw new CommandException(csv + ": cannot read it (" + CommandException.describe(e) + ")", e);
        } catch (RuntimeException e) {
            throw new CommandException(csv + ": cannot read it as CSV (" + e.getMessage() + ")", e);
        }
        for (String column : List.of("workload", "role", "pass", "metric", "liveMedian", "sim", "relativeError", "simDriveAfter",
                "relativeErrorDriveAfter", "verdict")) {
            if (!table.columnNames().contains(column)) {
                throw new CommandException(csv + ": no column '" + column + "' (written by an older tierlab validate?)");
            }
        }
        List<Row> rows = new ArrayList<>();
        for (int index = 0; index < table.rowCount(); index++) {
            Map<String, String> cells = new LinkedHashMap<>();
            for (String column : table.columnNames()) {
                cells.put(column, table.stringColumn(column).get(index));
            }
            rows.add(new Row(cells));
        }
        String report = readText(folder.resolve(ValidationReport.REPORT));
        return new Run(label != null ? label : folder.getFileName().toString(), folder, line(report, "Host: "),
                line(report, "Command: ").replace("`", ""), rows);
    }

    private static String readText(Path file) {
        try {
            return TextFiles.readString(file);
        } catch (IOException e) {
            throw new CommandException(file + ": cannot read it (" + CommandException.describe(e) + ")", e);
        }
    }

    private static String line(String report, String prefix) {
        return report.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()).strip()).findFirst()
                .orElse("not stated");
    }

    /**
     * The runs, then one row per run, workload and pass: every metric's error and the headline
     * verdict; {@code heldOutOnly} keeps the held-out workloads' rows (the headline) and counts the others.
     */
    static String shortTable(List<Run> runs, boolean heldOutOnly) {
        StringBuilder md = new StringBuilder();
        md.append("Generated by `tierlab accuracy` from each run's `validation.csv`: the simulation's error against the live")
                .append(" median, in percent, on the profile the drive replay measured before the live runs. ")
                .append(heldOutOnly ? "Held-out workloads only (no term was fitted or tuned on them); the tuned ones are in"
                        + " docs/accuracy.md." : "Role *tuned*: a term was fitted or tuned on the workload; *held-out*: none was.")
                .append(" Verdict: the worst of elapsed and TTFT p50/p90 (within 10%, drive-moved, outside).\n\n");
        for (Run run : runs) {
            int cut = run.host().indexOf("; live backend");
            md.append("- **").append(run.label()).append("**: `").append(run.folder().getFileName()).append("`, ")
                    .append(cut > 0 ? run.host().substring(0, cut) : run.host()).append("; `").append(run.command()).append("`\n");
        }
        md.append("\n| run | workload | role | pass | verdict |");
        Verdict.COLUMNS.forEach(column -> md.append(' ').append(column.heading()).append(" |"));
        md.append("\n|---|---|---|---|---|").append("---:|".repeat(Verdict.COLUMNS.size())).append('\n');
        for (Run run : runs) {
            Map<String, Map<String, Row>> byWorkloadPass = new LinkedHashMap<>();
            for (Row row : run.rows()) {
                boolean shown = !heldOutOnly || row.getString("role").equals(ValidationFile.HELD_OUT);
                if (shown && !row.getString("metric").startsWith("ttftPerRequest")) {
                    byWorkloadPass.computeIfAbsent(row.getString("workload") + "\u0000" + row.getString("pass"), k -> new LinkedHashMap<>())
                            .put(row.getString("metric"), row);
                }
            }
            byWorkloadPass.forEach((key, metrics) -> {
                Row any = metrics.values().iterator().next();
                md.append("| ").append(run.label()).append(" | ").append(any.getString("workload")).append(" | ")
                        .append(any.getString("role")).append(" | ").append(any.getString("pass")).append(" | ")
                        .append(headlineVerdict(metrics)).append(" |");
                Verdict.COLUMNS.forEach(column -> md.append(' ').append(percent(metrics.get(column.metric()))).append(" |"));
                md.append('\n');
            });
        }
        return md.toString();
    }

    /** The worst verdict of the pass's elapsed time and TTFT p50 and p90. */
    static String headlineVerdict(Map<String, Row> metrics) {
        List<String> verdicts = Verdict.HEADLINE_METRICS.stream().map(metrics::get).filter(r -> r != null)
                .map(r -> r.getString("verdict")).toList();
        for (Verdict worst : List.of(Verdict.OUTSIDE, Verdict.DRIVE_MOVED, Verdict.NOT_COMPARED)) {
            if (verdicts.contains(worst.label())) {
                return worst == Verdict.OUTSIDE ? "**outside**" : worst.label();
            }
        }
        return verdicts.isEmpty() ? "–" : Verdict.WITHIN.label();
    }

    private static String percent(Row row) {
        if (row == null || row.getString("relativeError").isEmpty()) {
            return "–";
        }
        double value = Double.parseDouble(row.getString("relativeError"));
        if (Double.isNaN(value)) {
            return "–";
        }
        String text = String.format(Locale.ROOT, "%+.1f", value * 100);
        return Math.abs(value) > Verdict.TOLERANCE ? "**" + text + "**" : text;
    }

    /** Every row of every run: live median, simulation before and after the drive replay, errors and verdict. */
    static String fullTable(List<Run> runs) {
        StringBuilder md = new StringBuilder();
        for (Run run : runs) {
            md.append("#### ").append(run.label()).append(" (`").append(run.folder().getFileName()).append("`)\n\n")
                    .append(run.host()).append("; `").append(run.command()).append("`\n\n")
                    .append("| workload | role | pass | metric | live median | sim | error | sim, drive after | error | verdict |\n")
                    .append("|---|---|---|---|---:|---:|---:|---:|---:|---|\n");
            for (Row row : run.rows()) {
                md.append("| ").append(row.getString("workload")).append(" | ").append(row.getString("role")).append(" | ")
                        .append(row.getString("pass")).append(" | ").append(row.getString("metric")).append(" | ")
                        .append(number(row.getString("liveMedian"))).append(" | ").append(number(row.getString("sim"))).append(" | ")
                        .append(percentCell(row.getString("relativeError"))).append(" | ").append(number(row.getString("simDriveAfter")))
                        .append(" | ").append(percentCell(row.getString("relativeErrorDriveAfter"))).append(" | ")
                        .append(row.getString("verdict")).append(" |\n");
            }
            md.append('\n');
        }
        return md.toString();
    }

    private static String number(String cell) {
        return cell.isEmpty() ? "–" : ValidationReport.fmt(Double.parseDouble(cell));
    }

    private static String percentCell(String cell) {
        return cell.isEmpty() ? "–" : ValidationReport.pct(Double.parseDouble(cell));
    }

    /**
     * {@code text} with the block between {@code begin} and {@code end} replaced by {@code block};
     * a file without the markers is refused when {@code required}, else left as it is.
     */
    static String replace(Path file, String text, String begin, String end, String block, boolean required) {
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        if (from < 0 || to < from) {
            if (required && !text.contains(FULL_BEGIN)) {
                throw new CommandException(file + ": no " + begin + " … " + end + " block to replace");
            }
            return text;
        }
        return text.substring(0, from + begin.length()) + "\n" + block + text.substring(to);
    }
}
