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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MooncakeTraceReaderTest {

    private static final String GOOD_LINE =
            "{\"timestamp\": 0, \"input_length\": 1024, \"output_length\": 7, \"hash_ids\": [0, 1]}";

    @TempDir
    Path folder;

    @Test
    void readsEveryRequestInFileOrderAndSkipsBlankLines() throws IOException {
        Path file = write("trace.jsonl",
                GOOD_LINE,
                "",
                "{\"timestamp\": 27, \"input_length\": 1536, \"output_length\": 3, \"hash_ids\": [0, 1, 2],"
                        + " \"extra\": \"ignored\"}",
                "  {\"hash_ids\": [], \"output_length\": 0, \"input_length\": 0, \"timestamp\": 30}  ");

        MooncakeTrace trace = MooncakeTraceReader.read(file);

        assertEquals(file, trace.file());
        assertEquals(3, trace.requests().size());
        MooncakeRequest second = trace.requests().get(1);
        assertEquals(3, second.lineNumber(), "the blank line still counts");
        assertEquals(27, second.timestampMs());
        assertEquals(1536, second.inputTokens());
        assertEquals(3, second.outputTokens());
        assertArrayEquals(new long[] {0, 1, 2}, second.hashIds());
        assertArrayEquals(new long[0], trace.requests().get(2).hashIds());
        assertEquals(5, trace.references());
        assertArrayEquals(new long[] {0, 1, 0, 1, 2}, trace.flattenedReferences());
        assertEquals(List.of(2, 3, 0), trace.blockRequests().stream().map(ids -> ids.length).toList());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            not JSON               | {"timestamp": 0, "input_length":           | not valid JSON
            plain text             | hello                                      | not valid JSON
            two objects on a line  | {"timestamp": 0} {"timestamp": 1}          | not valid JSON
            duplicated key         | {"timestamp": 0, "timestamp": 1, "input_length": 1, "output_length": 1, "hash_ids": []} | not valid JSON
            not an object          | [0, 1, 2]                                  | expected one JSON object per line, found an array
            missing timestamp      | {"input_length": 1, "output_length": 1, "hash_ids": [1]} | missing field "timestamp"
            missing hash_ids       | {"timestamp": 0, "input_length": 1, "output_length": 1} | missing field "hash_ids"
            string timestamp       | {"timestamp": "0", "input_length": 1, "output_length": 1, "hash_ids": [1]} | field "timestamp" must be an integer, found a string "0"
            fractional length      | {"timestamp": 0, "input_length": 1.5, "output_length": 1, "hash_ids": [1]} | field "input_length" must be an integer, found a number 1.5
            output too long        | {"timestamp": 0, "input_length": 1, "output_length": 99999999999999, "hash_ids": [1]} | field "output_length" is 99,999,999,999,999 tokens; a request's prompt or output may have at most 100,000,000
            input too long         | {"timestamp": 0, "input_length": 100000001, "output_length": 1, "hash_ids": [1]} | field "input_length" is 100,000,001 tokens; a request's prompt or output may have at most 100,000,000
            negative length        | {"timestamp": 0, "input_length": 1, "output_length": -1, "hash_ids": [1]} | field "output_length" must be an integer >= 0, found -1
            hash_ids not an array  | {"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": 5} | field "hash_ids" must be an array of integers, found a number 5
            hash id not an integer | {"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [1, "b"]} | hash_ids[1] must be an integer, found a string "b"
            hash id too large      | {"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [99999999999999999999]} | hash_ids[0] = 99999999999999999999 does not fit in 64 bits
            hash_ids short of input | {"timestamp": 0, "input_length": 1025, "output_length": 1, "hash_ids": [1, 2]} | hash_ids cover 1024 tokens (2 blocks of 512) but input_length is 1025; it needs at least 3 hash_ids
            hash_ids empty         | {"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": []} | hash_ids cover 0 tokens (0 blocks of 512) but input_length is 600; it needs at least 2 hash_ids
            """)
    void rejectsAMalformedLineNamingFileAndLine(String name, String badLine, String expectedProblem) throws IOException {
        Path file = write("bad.jsonl", GOOD_LINE, GOOD_LINE, badLine, GOOD_LINE);

        TraceFormatException error = assertThrows(TraceFormatException.class, () -> MooncakeTraceReader.read(file));

        assertEquals(3, error.lineNumber(), name);
        assertEquals(file, error.file(), name);
        String prefix = file + ":3: ";
        assertTrue(error.getMessage().startsWith(prefix + expectedProblem),
                () -> name + ": expected '" + prefix + expectedProblem + "...' but was '" + error.getMessage() + "'");
        assertEquals(1, error.getMessage().lines().count(), "the message is one line");
    }

    @Test
    void aMissingFileIsNamedInTheMessage() {
        Path missing = folder.resolve("no-such-trace.jsonl");

        TraceException error = assertThrows(TraceException.class, () -> MooncakeTraceReader.read(missing));

        assertEquals("trace file " + missing + ": no such file", error.getMessage());
        assertEquals(missing, error.file());
    }

    @Test
    void aTraceWithoutRequestsIsRejected() throws IOException {
        Path empty = write("empty.jsonl", "", "   ");

        TraceException error = assertThrows(TraceException.class, () -> MooncakeTraceReader.read(empty));

        assertEquals(empty + ": the trace holds no requests", error.getMessage());
    }

    private Path write(String name, String... lines) throws IOException {
        Path file = folder.resolve(name);
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return file;
    }
}
