package tierlab.sim.device;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measured or asked-for engine steps as CSV: {@code kind,batch,new_tokens,context_tokens,ms}, one
 * uniform step a row ({@code batch} sequences, each with {@code new_tokens} new tokens over
 * {@code context_tokens} cached ones; {@code kind} is {@code prefill} or {@code decode}, a decode row
 * has one new token). A bad row is one line naming the file, the line and the column.
 */
public final class StepRows {

    public static final String PREFILL = "prefill";
    public static final String DECODE = "decode";
    public static final List<String> COLUMNS = List.of("kind", "batch", "new_tokens", "context_tokens", "ms");

    /** One row; {@code ms} is NaN where the file has no ms column. */
    public record Row(String kind, int batch, long newTokens, long contextTokens, double ms) {
        public boolean decode() {
            return DECODE.equals(kind);
        }
    }

    private StepRows() {
    }

    /**
     * The rows of {@code file}; {@code msRequired}: the {@code ms} column must be there (a measured
     * table), else an {@code ms} column is ignored (shapes to predict) and every row's ms is NaN.
     */
    public static List<Row> read(Path file, boolean msRequired) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read the step table (" + e.getMessage() + ")", e);
        }
        if (lines.isEmpty() || lines.getFirst().isBlank()) {
            throw new IllegalArgumentException(file + ": line 1: the step table needs a header " + String.join(",", COLUMNS));
        }
        List<String> header = List.of(lines.getFirst().strip().split(",", -1)).stream().map(String::strip).toList();
        int[] at = columnIndexes(file, header, msRequired);
        List<Row> rows = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (!line.isEmpty()) {
                rows.add(row(file, i + 1, line.split(",", -1), header.size(), at));
            }
        }
        if (rows.isEmpty()) {
            throw new IllegalArgumentException(file + ": the step table has a header and no rows");
        }
        return List.copyOf(rows);
    }

    private static int[] columnIndexes(Path file, List<String> header, boolean msRequired) {
        int[] at = new int[COLUMNS.size()];
        for (int c = 0; c < COLUMNS.size(); c++) {
            boolean optional = c == COLUMNS.size() - 1 && !msRequired;
            at[c] = optional ? -1 : header.indexOf(COLUMNS.get(c));
            if (at[c] < 0 && !optional) {
                throw new IllegalArgumentException(file + ": line 1: missing column '" + COLUMNS.get(c) + "' (the header is "
                        + String.join(",", COLUMNS) + ")");
            }
        }
        return at;
    }

    private static Row row(Path file, int lineNumber, String[] cells, int width, int[] at) {
        if (cells.length != width) {
            throw new IllegalArgumentException(file + ": line " + lineNumber + ": " + cells.length + " columns, the header has "
                    + width);
        }
        String kind = cells[at[0]].strip().toLowerCase(Locale.ROOT);
        if (!kind.equals(PREFILL) && !kind.equals(DECODE)) {
            throw bad(file, lineNumber, "kind", "must be prefill or decode, was '" + cells[at[0]].strip() + "'");
        }
        long batch = whole(file, lineNumber, "batch", cells[at[1]]);
        long newTokens = whole(file, lineNumber, "new_tokens", cells[at[2]]);
        long context = whole(file, lineNumber, "context_tokens", cells[at[3]]);
        if (batch < 1 || batch > Integer.MAX_VALUE) {
            throw bad(file, lineNumber, "batch", "must be at least 1, was " + batch);
        }
        if (newTokens < 1) {
            throw bad(file, lineNumber, "new_tokens", "must be at least 1, was " + newTokens);
        }
        if (kind.equals(DECODE) && newTokens != 1) {
            throw bad(file, lineNumber, "new_tokens", "a decode step has 1 new token per sequence, was " + newTokens);
        }
        if (context < 0) {
            throw bad(file, lineNumber, "context_tokens", "must be >= 0, was " + context);
        }
        double ms = Double.NaN;
        if (at[4] >= 0) {
            String text = cells[at[4]].strip();
            try {
                ms = Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw bad(file, lineNumber, "ms", "not a number: '" + text + "'");
            }
            if (!(ms > 0) || Double.isInfinite(ms)) {
                throw bad(file, lineNumber, "ms", "must be a finite time > 0, was " + text);
            }
        }
        return new Row(kind, (int) batch, newTokens, context, ms);
    }

    private static long whole(Path file, int lineNumber, String column, String cell) {
        String text = cell.strip();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw bad(file, lineNumber, column, "not a whole number: '" + text + "'");
        }
    }

    private static IllegalArgumentException bad(Path file, int lineNumber, String column, String what) {
        return new IllegalArgumentException(file + ": line " + lineNumber + ", column " + column + ": " + what);
    }

    /** {@code rows} as CSV text with their ms, the header first ({@code ms} with microsecond precision). */
    public static String format(List<Row> rows) {
        StringBuilder text = new StringBuilder(String.join(",", COLUMNS)).append('\n');
        for (Row row : rows) {
            text.append(row.kind()).append(',').append(row.batch()).append(',').append(row.newTokens()).append(',')
                    .append(row.contextTokens()).append(',').append(String.format(Locale.ROOT, "%.6f", row.ms())).append('\n');
        }
        return text.toString();
    }
}
