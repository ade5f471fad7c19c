package tierlab.workload;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tierlab.model.policy.ReplacementPolicy;

/**
 * Reads a Mooncake JSONL trace: one JSON object per line with {@code timestamp} (integer ms),
 * {@code input_length} and {@code output_length} (integer tokens, at least 0) and {@code hash_ids}
 * (an array of integer block ids, one per 512 input tokens: at least {@code ceil(input_length / 512)}
 * of them). Blank lines are skipped; other fields are ignored.
 *
 * <p>Any other line fails the whole read with a {@link TraceFormatException} whose message names
 * the file and line ({@code FILE:LINE: what is wrong}); a missing, unreadable or empty file fails
 * with a {@link TraceException} naming the file. A half-read trace is never returned.
 */
public final class MooncakeTraceReader {

    // Strict about what a line is: one object, no duplicated keys, nothing after it.
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private MooncakeTraceReader() {
    }

    /** Reads the whole trace; {@code file} is named in messages as given. */
    public static MooncakeTrace read(Path file) {
        return new MooncakeTrace(file, readJsonLines(file, MooncakeTraceReader::parseLine));
    }

    /**
     * Reads a JSON Lines file whole, one value per non-blank line through {@code parser}; blank lines
     * are skipped but counted. The checks every JSON Lines trace shares (missing, not a file, binary or
     * compressed, not UTF-8, empty) fail with a {@link TraceException} naming the file; {@code parser}
     * names the line of what it refuses.
     */
    static <T> List<T> readJsonLines(Path file, LineParser<T> parser) {
        TraceFiles.checkReadable(file);
        binaryCheck(file, 8, "a trace is JSON Lines text");
        List<T> requests = new ArrayList<>();
        long lineNumber = 0;
        try (BufferedReader reader = TextFiles.newReader(file)) {
            String line;
            while ((line = reader.readLine()) != null) {
                lineNumber++;
                if (!line.isBlank()) {
                    requests.add(parser.parse(file, lineNumber, line));
                }
            }
        } catch (CharacterCodingException e) {
            // The reader decodes ahead of the line it returns: find the line of the bad bytes by reading again.
            binaryCheck(file, Long.MAX_VALUE, "a trace is JSON Lines text");
            throw new TraceException(file, file + ": not UTF-8 text (near line " + (lineNumber + 1) + ")", e);
        } catch (IOException e) {
            throw new TraceException(file, "cannot read trace file " + file + ": " + e.getMessage(), e);
        }
        if (requests.isEmpty()) {
            throw new TraceException(file, file + ": the trace holds no requests");
        }
        return requests;
    }

    /** Parses one non-blank line of a JSON Lines trace. */
    @FunctionalInterface
    interface LineParser<T> {
        T parse(Path file, long lineNumber, String line);
    }

    /**
     * Refuses a compressed or binary trace with one line saying so and where the text stops. Only
     * the first {@code headBytes} are looked at before reading (enough for a compression magic
     * number); the whole file once a line fails to decode.
     */
    static void binaryCheck(Path file, long headBytes, String expected) {
        String problem;
        try {
            if (headBytes >= Files.size(file)) {
                problem = BinaryContent.describe(file);
            } else {
                byte[] head;
                try (var in = Files.newInputStream(file)) {
                    head = in.readNBytes((int) headBytes);
                }
                problem = BinaryContent.describeStart(head);
            }
        } catch (IOException e) {
            return; // the read itself reports what is wrong with the file
        }
        if (problem != null) {
            throw new TraceException(file, file + ": " + problem + "; " + expected);
        }
    }

    /** Parses one non-blank line (1-based {@code lineNumber}) into a request. */
    static MooncakeRequest parseLine(Path file, long lineNumber, String line) {
        JsonNode node = parseObject(file, lineNumber, line);
        long timestampMs = nonNegativeLong(file, lineNumber, node, "timestamp");
        long inputTokens = tokenCount(file, lineNumber, node, "input_length");
        long outputTokens = tokenCount(file, lineNumber, node, "output_length");
        long[] hashIds = hashIds(file, lineNumber, node, inputTokens, MooncakeWorkload.TRACE_BLOCK_TOKENS);
        return new MooncakeRequest(lineNumber, timestampMs, inputTokens, outputTokens, hashIds);
    }

    /** One line as one JSON object, or a {@link TraceFormatException} saying what the line is instead. */
    static JsonNode parseObject(Path file, long lineNumber, String line) {
        int nul = line.indexOf('\u0000');
        if (nul >= 0) {
            throw new TraceFormatException(file, lineNumber, "binary data, not text (a NUL byte at column " + (nul + 1) + ")");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(line);
        } catch (JacksonException e) {
            JsonLocation location = e.getLocation();
            String column = location == null || location.getColumnNr() < 1 ? "" : " at column " + location.getColumnNr();
            String problem = e.getOriginalMessage();
            if (problem != null && problem.startsWith("Trailing token")) {
                // Jackson's wording names its own binding classes; say what is wrong with the line instead.
                problem = "more than one JSON value on the line";
            } else {
                problem = JsonProblems.words(problem);
            }
            throw new TraceFormatException(file, lineNumber, "not valid JSON" + column + ": " + problem);
        }
        if (node == null || !node.isObject()) {
            throw new TraceFormatException(file, lineNumber,
                    "expected one JSON object per line, found " + kind(node));
        }
        return node;
    }

    /**
     * The {@code hash_ids} array of a line: integers, none the policies' reserved value, at least one
     * per {@code blockTokens} of {@code inputTokens} (the last block possibly partial).
     */
    static long[] hashIds(Path file, long lineNumber, JsonNode node, long inputTokens, int blockTokens) {
        JsonNode ids = field(file, lineNumber, node, "hash_ids");
        if (!ids.isArray()) {
            throw new TraceFormatException(file, lineNumber,
                    "field \"hash_ids\" must be an array of integers, found " + kind(ids));
        }
        long[] hashIds = new long[ids.size()];
        for (int index = 0; index < hashIds.length; index++) {
            JsonNode id = ids.get(index);
            String name = "hash_ids[" + index + "]";
            if (!id.isIntegralNumber()) {
                throw new TraceFormatException(file, lineNumber, name + " must be an integer, found " + kind(id));
            }
            if (!id.canConvertToLong()) {
                throw new TraceFormatException(file, lineNumber, name + " = " + id + " does not fit in 64 bits");
            }
            hashIds[index] = id.longValue();
            if (hashIds[index] == ReplacementPolicy.NO_VICTIM) {
                // The policies reserve this one value as their "no victim" answer.
                throw new TraceFormatException(file, lineNumber, name + " = " + id + " is reserved and cannot be a block id");
            }
        }
        long coveredTokens = (long) hashIds.length * blockTokens;
        if (inputTokens > coveredTokens) {
            // One id per block of input tokens, the last block possibly partial: fewer ids leave prompt
            // blocks without a key, which no run can serve.
            throw new TraceFormatException(file, lineNumber, "hash_ids cover " + coveredTokens + " tokens ("
                    + hashIds.length + " blocks of " + blockTokens + ") but input_length is "
                    + inputTokens + "; it needs at least " + Math.ceilDiv(inputTokens, blockTokens)
                    + " hash_ids");
        }
        return hashIds;
    }

    static JsonNode field(Path file, long lineNumber, JsonNode object, String name) {
        JsonNode value = object.get(name);
        if (value == null) {
            throw new TraceFormatException(file, lineNumber, "missing field \"" + name + "\"");
        }
        return value;
    }

    static long nonNegativeLong(Path file, long lineNumber, JsonNode object, String name) {
        JsonNode value = field(file, lineNumber, object, name);
        if (!value.isIntegralNumber()) {
            throw new TraceFormatException(file, lineNumber,
                    "field \"" + name + "\" must be an integer, found " + kind(value));
        }
        if (!value.canConvertToLong() || value.longValue() < 0) {
            throw new TraceFormatException(file, lineNumber,
                    "field \"" + name + "\" must be an integer >= 0, found " + value);
        }
        return value.longValue();
    }

    /** A token count: an integer from 0 to {@link RequestTrace#MAX_REQUEST_TOKENS}. */
    static long tokenCount(Path file, long lineNumber, JsonNode object, String name) {
        long tokens = nonNegativeLong(file, lineNumber, object, name);
        String problem = RequestTrace.tokenCountProblem("field \"" + name + "\"", tokens);
        if (problem != null) {
            throw new TraceFormatException(file, lineNumber, problem);
        }
        return tokens;
    }

    /** How a JSON value reads in a message: its type, and the value itself when it is short. */
    static String kind(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "nothing";
        }
        String type = switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case STRING -> "a string";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            case NUMBER -> "a number";
            default -> node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
        if (node.isValueNode() && !node.isNull()) {
            String text = node.toString();
            return type + " " + (text.length() <= 40 ? text : text.substring(0, 37) + "...");
        }
        return type;
    }
}
