package tierlab.workload;

import static tierlab.workload.MooncakeTraceReader.field;
import static tierlab.workload.MooncakeTraceReader.kind;
import static tierlab.workload.MooncakeTraceReader.nonNegativeLong;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a Qwen-Bailian KVCache trace (alibaba-edu/qwen-bailian-usagetraces-anon, README "Data
 * Specification of the Traces"): JSON Lines, one request per line with
 *
 * <ul>
 *   <li>{@code chat_id} (integer &gt;= 0) and {@code parent_chat_id} (the request this one continues,
 *       -1 for a root request), {@code turn} (integer &gt;= 1): the session structure. The store does
 *       not need it (a follow-up's {@code hash_ids} already start with its parent's), so it is
 *       checked but not kept;</li>
 *   <li>{@code timestamp}: seconds since the start of the trace, a decimal number &gt;= 0;</li>
 *   <li>{@code input_length}, {@code output_length}: integer tokens &gt;= 0;</li>
 *   <li>{@code type}: {@code text}, {@code search}, {@code image} or {@code file} (any string is
 *       accepted; it is optional);</li>
 *   <li>{@code hash_ids}: one id per 16-token block of the prompt, at least
 *       {@code ceil(input_length / 16)} of them.</li>
 * </ul>
 *
 * Blank lines are skipped; other fields are ignored. Every refusal names the file and line
 * ({@code FILE:LINE: what is wrong}), as {@link MooncakeTraceReader}'s do, and a half-read trace
 * is never returned.
 *
 * <p>The sessions are checked across lines: a {@code chat_id} used twice and a {@code parent_chat_id}
 * chain that comes back to itself are refused (no conversation can be either). A parent that is not in
 * the file (a slice of a longer trace) and timestamps that go backwards (the requests are replayed in
 * timestamp order, not file order) are read, with a warning naming the first such line and the count.
 */
public final class QwenTraceReader {

    /** Tokens per block of the published traces' {@code hash_ids} ({@code *_blksz_16.jsonl}). */
    public static final int TRACE_BLOCK_TOKENS = 16;

    /** Seconds a timestamp may reach before its nanoseconds overflow a long. */
    private static final double MAX_TIMESTAMP_S = Long.MAX_VALUE / 1e9;

    private QwenTraceReader() {
    }

    /** Reads the whole trace; {@code file} is named in messages as given. */
    public static RequestTrace read(Path file) {
        List<Line> lines = MooncakeTraceReader.readJsonLines(file, QwenTraceReader::parseLine);
        List<String> warnings = QwenSessions.check(file, lines);
        List<TraceRequest> requests = new ArrayList<>(lines.size());
        lines.forEach(line -> requests.add(line.request()));
        return new RequestTrace(file, "qwen", TRACE_BLOCK_TOKENS, requests, warnings);
    }

    /** One line as read: its request and its place in a session. */
    record Line(TraceRequest request, long chatId, long parentChatId) {}

    static Line parseLine(Path file, long lineNumber, String line) {
        JsonNode node = MooncakeTraceReader.parseObject(file, lineNumber, line);
        long chatId = nonNegativeLong(file, lineNumber, node, "chat_id");
        long parentChatId = integer(file, lineNumber, node, "parent_chat_id", -1);
        if (parentChatId == chatId) {
            throw new TraceFormatException(file, lineNumber, "parent_chat_id " + parentChatId
                    + " is the request's own chat_id; a root request has parent_chat_id -1");
        }
        integer(file, lineNumber, node, "turn", 1);
        JsonNode type = node.get("type");
        if (type != null && !type.isTextual()) {
            throw new TraceFormatException(file, lineNumber, "field \"type\" must be a string (text, search, image, file),"
                    + " found " + kind(type));
        }
        JsonNode timestamp = field(file, lineNumber, node, "timestamp");
        if (!timestamp.isNumber() || !(timestamp.asDouble() >= 0) || timestamp.asDouble() > MAX_TIMESTAMP_S) {
            throw new TraceFormatException(file, lineNumber, "field \"timestamp\" must be a number of seconds >= 0, found "
                    + kind(timestamp));
        }
        long arrivalNs = Math.round(timestamp.asDouble() * 1e9);
        long inputTokens = MooncakeTraceReader.tokenCount(file, lineNumber, node, "input_length");
        long outputTokens = MooncakeTraceReader.tokenCount(file, lineNumber, node, "output_length");
        long[] hashIds = MooncakeTraceReader.hashIds(file, lineNumber, node, inputTokens, TRACE_BLOCK_TOKENS);
        return new Line(new TraceRequest(lineNumber, arrivalNs, inputTokens, outputTokens, hashIds), chatId, parentChatId);
    }

    /** An integer field at least {@code least}. */
    private static long integer(Path file, long lineNumber, JsonNode node, String name, long least) {
        JsonNode value = field(file, lineNumber, node, name);
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < least) {
            throw new TraceFormatException(file, lineNumber, "field \"" + name + "\" must be an integer >= " + least
                    + ", found " + kind(value));
        }
        return value.longValue();
    }
}
