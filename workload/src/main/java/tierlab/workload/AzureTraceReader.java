package tierlab.workload;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import java.io.IOException;
import java.io.BufferedReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an Azure LLM inference trace (Azure/AzurePublicDataset, {@code AzureLLMInferenceDataset2023.md}
 * and {@code AzureLLMInferenceDataset2024.md}, "Schema"): CSV with the header
 * {@code TIMESTAMP,ContextTokens,GeneratedTokens} and one request per row. {@code TIMESTAMP} is a
 * date-time such as {@code 2023-11-16 18:17:03.9799600} (any number of fraction digits, an optional
 * UTC offset such as {@code +00:00}); arrivals are measured from the first row's. The two token
 * counts are integers &gt;= 0. The trace holds no prompt contents, so {@link AzureSynthesis} gives
 * every prompt block ids by a documented, seeded model (docs/traces.md).
 *
 * <p>Every refusal names the file and line ({@code FILE:LINE: what is wrong}), a row before the
 * first row's time included; a missing, binary, compressed or empty file names the file.
 */
public final class AzureTraceReader {

    /** The header the published files start with. */
    public static final List<String> HEADER = List.of("TIMESTAMP", "ContextTokens", "GeneratedTokens");

    private static final CsvMapper CSV = CsvMapper.builder().enable(CsvParser.Feature.WRAP_AS_ARRAY)
            .enable(CsvParser.Feature.TRIM_SPACES).build();

    private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .optionalStart().appendOffset("+HH:MM", "Z").optionalEnd()
            .toFormatter();

    /** The first and last instants a 64-bit count of nanoseconds since 1970 holds, as a TIMESTAMP reads. */
    static final String MIN_TIMESTAMP = "1677-09-21 00:12:43.145224192";
    static final String MAX_TIMESTAMP = "2262-04-11 23:47:16.854775807";

    /** One data row as read: its line, its time and its token counts. */
    public record Row(long lineNumber, long arrivalNs, long contextTokens, long generatedTokens) {
    }

    private AzureTraceReader() {
    }

    /** Reads the trace and gives its prompts block ids with {@code synthesis}. */
    public static RequestTrace read(Path file, AzureSynthesis synthesis) {
        return synthesis.apply(file, rows(file));
    }

    /** The rows of the file, in file order, with arrivals from the first row's time. */
    public static List<Row> rows(Path file) {
        TraceFiles.checkReadable(file);
        MooncakeTraceReader.binaryCheck(file, 8, "an Azure LLM inference trace is CSV text");
        List<Row> rows = new ArrayList<>();
        long lineNumber = 0;
        ObjectReader cellsReader = CSV.readerFor(String[][].class);
        try (BufferedReader reader = TextFiles.newReader(file)) {
            long firstNs = 0;
            String line;
            // Line by line (the files quote nothing and no field spans lines), so every refusal names its line.
            while ((line = reader.readLine()) != null) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                String[] cells;
                try {
                    String[][] parsed = cellsReader.readValue(line);
                    cells = parsed.length == 0 ? new String[0] : parsed[0];
                } catch (JacksonException e) {
                    throw new TraceFormatException(file, lineNumber, "not valid CSV: " + e.getOriginalMessage());
                }
                if (lineNumber == 1) {
                    if (!List.of(cells).equals(HEADER)) {
                        throw new TraceFormatException(file, lineNumber, "expected the header "
                                + String.join(",", HEADER) + ", found " + String.join(",", cells));
                    }
                    continue;
                }
                if (cells.length != HEADER.size()) {
                    throw new TraceFormatException(file, lineNumber, "expected " + HEADER.size() + " fields ("
                            + String.join(",", HEADER) + "), found " + cells.length);
                }
                long timeNs = epochNs(file, lineNumber, cells[0]);
                if (rows.isEmpty()) {
                    firstNs = timeNs;
                }
                if (timeNs < firstNs) {
                    throw new TraceFormatException(file, lineNumber, "TIMESTAMP " + cells[0]
                            + " is before the first row's; arrivals are measured from the first row");
                }
                if (rows.size() >= RequestTrace.MAX_REFERENCES) {
                    throw new TraceException(file, file + ": more than " + RequestTrace.MAX_REFERENCES
                            + " rows are too many to replay at once");
                }
                rows.add(new Row(lineNumber, arrivalNs(file, lineNumber, cells[0], timeNs, firstNs), count(file, lineNumber, HEADER.get(1), cells[1]),
                        count(file, lineNumber, HEADER.get(2), cells[2])));
            }
        } catch (CharacterCodingException e) {
            MooncakeTraceReader.binaryCheck(file, Long.MAX_VALUE, "an Azure LLM inference trace is CSV text");
            throw new TraceException(file, file + ": not UTF-8 text (near line " + (lineNumber + 1) + ")", e);
        } catch (IOException e) {
            throw new TraceException(file, "cannot read trace file " + file + ": " + e.getMessage(), e);
        }
        if (rows.isEmpty()) {
            throw new TraceException(file, file + ": the trace holds no requests");
        }
        return rows;
    }

    private static long epochNs(Path file, long lineNumber, String text) {
        TemporalAccessor parsed;
        try {
            parsed = TIMESTAMP.parse(text);
        } catch (DateTimeParseException e) {
            throw new TraceFormatException(file, lineNumber, "TIMESTAMP '" + text
                    + "' is not a date-time like 2023-11-16 18:17:03.9799600");
        }
        LocalDateTime local = LocalDateTime.from(parsed);
        ZoneOffset offset = parsed.isSupported(ChronoField.OFFSET_SECONDS) ? ZoneOffset.from(parsed) : ZoneOffset.UTC;
        try {
            return Duration.ofSeconds(local.toEpochSecond(offset), local.getNano()).toNanos();
        } catch (ArithmeticException e) {
            throw new TraceFormatException(file, lineNumber, "TIMESTAMP " + text + " is out of range: arrivals are"
                    + " 64-bit nanoseconds since 1970, so a TIMESTAMP must lie from " + MIN_TIMESTAMP + " to " + MAX_TIMESTAMP
                    + " UTC");
        }
    }

    /** Nanoseconds after the first row; rows spread over more than 64-bit nanoseconds can hold are refused naming the range. */
    private static long arrivalNs(Path file, long lineNumber, String text, long timeNs, long firstNs) {
        try {
            return Math.subtractExact(timeNs, firstNs);
        } catch (ArithmeticException e) {
            throw new TraceFormatException(file, lineNumber, "TIMESTAMP " + text + " is out of range: arrivals are 64-bit"
                    + " nanoseconds after the first row's, so a TIMESTAMP must lie within " + Long.MAX_VALUE
                    + " ns (about 292 years) of it");
        }
    }

    private static long count(Path file, long lineNumber, String field, String text) {
        try {
            long value = Long.parseLong(text);
            String problem = RequestTrace.tokenCountProblem(field, value);
            if (problem != null) {
                throw new TraceFormatException(file, lineNumber, problem);
            }
            if (value >= 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // the message below says what the field must be
        }
        throw new TraceFormatException(file, lineNumber, field + " must be an integer >= 0, found '" + text + "'");
    }
}
