package tierlab.workload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The checks of a Qwen trace that span lines (see {@link QwenTraceReader}): a repeated {@code chat_id}
 * and a cycle of {@code parent_chat_id}s are refused naming the line; parents not in the file and
 * timestamps that go backwards are warnings, one line each naming the first case and the count.
 */
final class QwenSessions {

    private QwenSessions() {
    }

    /** Refuses what no trace can hold; returns the warnings for what a slice or an edited trace may. */
    static List<String> check(Path file, List<QwenTraceReader.Line> lines) {
        Map<Long, QwenTraceReader.Line> byChatId = new HashMap<>();
        for (QwenTraceReader.Line line : lines) {
            QwenTraceReader.Line earlier = byChatId.putIfAbsent(line.chatId(), line);
            if (earlier != null) {
                throw new TraceFormatException(file, line.request().lineNumber(), "chat_id " + line.chatId()
                        + " is already the chat_id of line " + earlier.request().lineNumber() + "; each request has its own");
            }
        }
        refuseCycles(file, lines, byChatId);
        List<String> warnings = new ArrayList<>();
        missingParents(file, lines, byChatId, warnings);
        backwardTimestamps(file, lines, warnings);
        return List.copyOf(warnings);
    }

    /**
     * Follows each request's parents; a chain that reaches a request already on it is a cycle. Each request is
     * walked once (a chain stops at a request known to end at a root or a missing parent).
     */
    private static void refuseCycles(Path file, List<QwenTraceReader.Line> lines, Map<Long, QwenTraceReader.Line> byChatId) {
        Map<Long, Boolean> settled = new HashMap<>(); // chat_id -> its chain is known to end (true)
        for (QwenTraceReader.Line start : lines) {
            List<Long> chain = new ArrayList<>();
            Map<Long, Integer> onChain = new HashMap<>();
            QwenTraceReader.Line current = start;
            while (current != null && !settled.containsKey(current.chatId())) {
                Integer seenAt = onChain.putIfAbsent(current.chatId(), chain.size());
                if (seenAt != null) {
                    List<Long> cycle = new ArrayList<>(chain.subList(seenAt, chain.size()));
                    cycle.add(current.chatId());
                    throw new TraceFormatException(file, current.request().lineNumber(), "parent_chat_id chain "
                            + String.join(" -> ", cycle.stream().map(String::valueOf).toList())
                            + " comes back to chat_id " + current.chatId() + "; a conversation's parents end at a root"
                            + " request (parent_chat_id -1)");
                }
                chain.add(current.chatId());
                current = current.parentChatId() < 0 ? null : byChatId.get(current.parentChatId());
            }
            chain.forEach(chatId -> settled.put(chatId, Boolean.TRUE));
        }
    }

    private static void missingParents(Path file, List<QwenTraceReader.Line> lines, Map<Long, QwenTraceReader.Line> byChatId,
                                       List<String> warnings) {
        QwenTraceReader.Line first = null;
        long count = 0;
        for (QwenTraceReader.Line line : lines) {
            if (line.parentChatId() >= 0 && !byChatId.containsKey(line.parentChatId())) {
                first = first == null ? line : first;
                count++;
            }
        }
        if (first != null) {
            warnings.add(String.format(Locale.ROOT, "%s:%d: parent_chat_id %d is not a chat_id of this trace%s; read as"
                            + " it is (a slice of a longer trace?)", file, first.request().lineNumber(), first.parentChatId(),
                    count == 1 ? "" : String.format(Locale.ROOT, " (and %,d more requests' parents are missing)", count - 1)));
        }
    }

    private static void backwardTimestamps(Path file, List<QwenTraceReader.Line> lines, List<String> warnings) {
        QwenTraceReader.Line first = null;
        QwenTraceReader.Line firstBefore = null;
        long count = 0;
        QwenTraceReader.Line latest = null;
        for (QwenTraceReader.Line line : lines) {
            if (latest != null && line.request().arrivalNs() < latest.request().arrivalNs()) {
                if (first == null) {
                    first = line;
                    firstBefore = latest;
                }
                count++;
            }
            if (latest == null || line.request().arrivalNs() >= latest.request().arrivalNs()) {
                latest = line;
            }
        }
        if (first != null) {
            warnings.add(String.format(Locale.ROOT, "%s:%d: timestamp %s s is earlier than line %d's %s s%s; the requests"
                            + " are replayed in timestamp order, not file order", file, first.request().lineNumber(),
                    seconds(first), firstBefore.request().lineNumber(), seconds(firstBefore),
                    count == 1 ? "" : String.format(Locale.ROOT, " (%,d lines in all go back in time)", count)));
        }
    }

    private static String seconds(QwenTraceReader.Line line) {
        return java.math.BigDecimal.valueOf(line.request().arrivalNs(), 9).stripTrailingZeros().toPlainString();
    }
}
