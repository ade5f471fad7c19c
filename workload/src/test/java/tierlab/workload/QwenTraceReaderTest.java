package tierlab.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QwenTraceReaderTest {

    /** The tierlab-made sample in the Qwen-Bailian format (data/README.md says how it was made). */
    static final Path SAMPLE = Path.of("../data/qwen_format_sample.jsonl");

    private static final String GOOD_LINE = "{\"chat_id\": 1, \"parent_chat_id\": -1, \"timestamp\": 0.5, \"input_length\": 33,"
            + " \"output_length\": 7, \"type\": \"text\", \"turn\": 1, \"hash_ids\": [4, 5, 6]}";

    @TempDir
    Path folder;

    @Test
    void readsSecondsAsNanosecondsAndSixteenTokenBlocks() throws IOException {
        Path file = write("t.jsonl", GOOD_LINE, "",
                "{\"chat_id\": 2, \"parent_chat_id\": 1, \"timestamp\": 61.114, \"input_length\": 64, \"output_length\": 0,"
                        + " \"turn\": 2, \"hash_ids\": [4, 5, 6, 9], \"extra\": 1}");

        RequestTrace trace = QwenTraceReader.read(file);

        assertEquals("qwen", trace.format());
        assertEquals(16, trace.blockTokens());
        assertEquals(2, trace.requests().size());
        TraceRequest first = trace.requests().get(0);
        assertEquals(500_000_000L, first.arrivalNs());
        assertEquals(33, first.inputTokens());
        assertEquals(7, first.outputTokens());
        TraceRequest second = trace.requests().get(1);
        assertEquals(3, second.lineNumber(), "the blank line counts");
        assertEquals(61_114_000_000L, second.arrivalNs());
        assertArrayEquals(new long[] {4, 5, 6, 4, 5, 6, 9}, trace.flattenedReferences());
    }

    @Test
    void theShippedSampleHasTheCountsDataReadmeStates() {
        RequestTrace trace = QwenTraceReader.read(SAMPLE);

        assertEquals(600, trace.requests().size());
        assertEquals(31_571, trace.references());
        assertEquals(17_048, Arrays.stream(trace.flattenedReferences()).distinct().count());
        for (TraceRequest request : trace.requests()) {
            assertEquals(Math.ceilDiv(request.inputTokens(), 16), request.hashIds().length, "line " + request.lineNumber());
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            missing chat_id      | {"parent_chat_id": -1, "timestamp": 0, "input_length": 1, "output_length": 1, "turn": 1, "hash_ids": [1]} | missing field "chat_id"
            parent below -1      | {"chat_id": 3, "parent_chat_id": -2, "timestamp": 0, "input_length": 1, "output_length": 1, "turn": 1, "hash_ids": [1]} | field "parent_chat_id" must be an integer >= -1, found a number -2
            own parent           | {"chat_id": 3, "parent_chat_id": 3, "timestamp": 0, "input_length": 1, "output_length": 1, "turn": 1, "hash_ids": [1]} | parent_chat_id 3 is the request's own chat_id
            turn 0               | {"chat_id": 3, "parent_chat_id": -1, "timestamp": 0, "input_length": 1, "output_length": 1, "turn": 0, "hash_ids": [1]} | field "turn" must be an integer >= 1, found a number 0
            string timestamp     | {"chat_id": 3, "parent_chat_id": -1, "timestamp": "0", "input_length": 1, "output_length": 1, "turn": 1, "hash_ids": [1]} | field "timestamp" must be a number of seconds >= 0, found a string "0"
            negative timestamp   | {"chat_id": 3, "parent_chat_id": -1, "timestamp": -0.5, "input_length": 1, "output_length": 1, "turn": 1, "hash_ids": [1]} | field "timestamp" must be a number of seconds >= 0
            type not a string    | {"chat_id": 3, "parent_chat_id": -1, "timestamp": 0, "input_length": 1, "output_length": 1, "turn": 1, "type": 5, "hash_ids": [1]} | field "type" must be a string
            hash_ids short       | {"chat_id": 3, "parent_chat_id": -1, "timestamp": 0, "input_length": 33, "output_length": 1, "turn": 1, "hash_ids": [1, 2]} | hash_ids cover 32 tokens (2 blocks of 16) but input_length is 33; it needs at least 3 hash_ids
            output too long      | {"chat_id": 3, "parent_chat_id": -1, "timestamp": 0, "input_length": 1, "output_length": 99999999999999, "turn": 1, "hash_ids": [1]} | field "output_length" is 99,999,999,999,999 tokens; a request's prompt or output may have at most 100,000,000
            not JSON             | {"chat_id": 3,                                         | not valid JSON
            """)
    void rejectsAMalformedLineNamingFileAndLine(String name, String badLine, String expectedProblem) throws IOException {
        Path file = write("bad.jsonl", GOOD_LINE, badLine);

        TraceFormatException error = assertThrows(TraceFormatException.class, () -> QwenTraceReader.read(file));

        assertEquals(2, error.lineNumber(), name);
        assertTrue(error.getMessage().startsWith(file + ":2: " + expectedProblem), () -> name + ": " + error.getMessage());
        assertEquals(1, error.getMessage().lines().count());
    }

    /** A line of chat {@code chatId} continuing {@code parent} (-1: a root) at {@code seconds}. */
    private static String chat(long chatId, long parent, String seconds) {
        return "{\"chat_id\": " + chatId + ", \"parent_chat_id\": " + parent + ", \"timestamp\": " + seconds
                + ", \"input_length\": 16, \"output_length\": 1, \"turn\": " + (parent < 0 ? 1 : 2) + ", \"hash_ids\": [1]}";
    }

    @Test
    void aChatIdUsedTwiceIsRefusedNamingBothLines() throws IOException {
        Path file = write("t.jsonl", chat(1, -1, "0"), chat(2, 1, "1"), chat(1, -1, "2"));
        TraceFormatException error = assertThrows(TraceFormatException.class, () -> QwenTraceReader.read(file));
        assertEquals(file + ":3: chat_id 1 is already the chat_id of line 1; each request has its own", error.getMessage());
    }

    @Test
    void aCycleOfParentsIsRefusedNamingTheChain() throws IOException {
        // 5 continues 6, 6 continues 7, 7 continues 5: no request of the three is a conversation's start.
        Path file = write("t.jsonl", chat(1, -1, "0"), chat(5, 6, "1"), chat(6, 7, "2"), chat(7, 5, "3"));
        TraceFormatException error = assertThrows(TraceFormatException.class, () -> QwenTraceReader.read(file));
        assertEquals(file + ":2: parent_chat_id chain 5 -> 6 -> 7 -> 5 comes back to chat_id 5; a conversation's parents"
                + " end at a root request (parent_chat_id -1)", error.getMessage());
    }

    @Test
    void aMissingParentAndTimestampsGoingBackAreReadWithAWarningEach() throws IOException {
        Path file = write("t.jsonl", chat(1, -1, "0.5"), chat(2, 40, "1"), chat(3, 1, "0.25"), chat(4, 41, "2"),
                chat(5, -1, "1.5"));
        RequestTrace trace = QwenTraceReader.read(file);
        assertEquals(5, trace.requests().size());
        assertEquals(List.of(
                file + ":2: parent_chat_id 40 is not a chat_id of this trace (and 1 more requests' parents are missing);"
                        + " read as it is (a slice of a longer trace?)",
                file + ":3: timestamp 0.25 s is earlier than line 2's 1 s (2 lines in all go back in time); the requests"
                        + " are replayed in timestamp order, not file order"), trace.warnings());
    }

    @Test
    void theShippedSampleReadsWithoutWarnings() {
        assertEquals(List.of(), QwenTraceReader.read(SAMPLE).warnings());
    }

    @Test
    void aGzipFileIsNamedAsSuch() throws IOException {
        Path file = folder.resolve("t.jsonl.gz");
        Files.write(file, new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, 0});

        TraceException error = assertThrows(TraceException.class, () -> QwenTraceReader.read(file));

        assertTrue(error.getMessage().startsWith(file + ": gzip"), error.getMessage());
    }

    private Path write(String name, String... lines) throws IOException {
        Path file = folder.resolve(name);
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return file;
    }
}
