package tierlab.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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

class AzureTraceReaderTest {

    static final Path CODE = Path.of("../data/azure_llm_inference_2023_code_first1000.csv");
    static final Path CONV = Path.of("../data/azure_llm_inference_2023_conv_first1000.csv");

    @TempDir
    Path folder;

    @Test
    void readsTheShippedSamplesFirstRowsAsPublished() {
        List<AzureTraceReader.Row> rows = AzureTraceReader.rows(CODE);

        assertEquals(1000, rows.size());
        // Lines 2 and 3 of the file: 2023-11-16 18:17:03.9799600,4808,10 and 18:17:04.0319600,3180,8.
        assertEquals(new AzureTraceReader.Row(2, 0, 4808, 10), rows.get(0));
        assertEquals(new AzureTraceReader.Row(3, 52_000_000, 3180, 8), rows.get(1));
        assertEquals(1000, AzureTraceReader.rows(CONV).size());
    }

    @Test
    void crlfLinesAnOffsetAndShortFractionsAreRead() throws IOException {
        Path file = folder.resolve("t.csv");
        Files.writeString(file, "TIMESTAMP,ContextTokens,GeneratedTokens\r\n2024-05-10 00:00:00+00:00,10,1\r\n"
                + "2024-05-10 00:00:01.5+00:00,20,2\r\n", StandardCharsets.UTF_8);

        List<AzureTraceReader.Row> rows = AzureTraceReader.rows(file);

        assertEquals(List.of(new AzureTraceReader.Row(2, 0, 10, 1), new AzureTraceReader.Row(3, 1_500_000_000L, 20, 2)), rows);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            bad time        | 2023-11-16T18:17:04,1,1          | 3 | TIMESTAMP '2023-11-16T18:17:04' is not a date-time like 2023-11-16 18:17:03.9799600
            negative count  | 2023-11-16 18:17:04,-1,1         | 3 | ContextTokens must be an integer >= 0, found '-1'
            text count      | 2023-11-16 18:17:04,1,many       | 3 | GeneratedTokens must be an integer >= 0, found 'many'
            count too large | 2023-11-16 18:17:04,1,99999999999999 | 3 | GeneratedTokens is 99,999,999,999,999 tokens; a request's prompt or output may have at most 100,000,000
            year 2300       | 2300-01-01 00:00:00,1,1          | 3 | TIMESTAMP 2300-01-01 00:00:00 is out of range: arrivals are 64-bit nanoseconds since 1970, so a TIMESTAMP must lie from 1677-09-21 00:12:43.145224192 to 2262-04-11 23:47:16.854775807 UTC
            two fields      | 2023-11-16 18:17:04,1            | 3 | expected 3 fields (TIMESTAMP,ContextTokens,GeneratedTokens), found 2
            earlier time    | 2023-11-16 18:17:02,1,1          | 3 | TIMESTAMP 2023-11-16 18:17:02 is before the first row's
            """)
    void rejectsABadRowNamingFileAndLine(String name, String badRow, long line, String expected) throws IOException {
        Path file = folder.resolve("bad.csv");
        Files.writeString(file, String.join("\n", "TIMESTAMP,ContextTokens,GeneratedTokens", "2023-11-16 18:17:03,5,5",
                badRow, "2023-11-16 18:17:05,5,5") + "\n", StandardCharsets.UTF_8);

        TraceFormatException error = assertThrows(TraceFormatException.class, () -> AzureTraceReader.rows(file));

        assertEquals(line, error.lineNumber(), name);
        assertTrue(error.getMessage().startsWith(file + ":" + line + ": " + expected), () -> name + ": " + error.getMessage());
    }

    @Test
    void rowsFurtherApartThanArrivalsCanHoldNameTheRange() throws IOException {
        Path file = folder.resolve("wide.csv");
        Files.writeString(file, "TIMESTAMP,ContextTokens,GeneratedTokens\n1700-01-01 00:00:00,5,5\n2200-01-01 00:00:00,5,5\n",
                StandardCharsets.UTF_8);

        TraceFormatException error = assertThrows(TraceFormatException.class, () -> AzureTraceReader.rows(file));

        assertEquals(file + ":3: TIMESTAMP 2200-01-01 00:00:00 is out of range: arrivals are 64-bit nanoseconds after the first"
                + " row's, so a TIMESTAMP must lie within 9223372036854775807 ns (about 292 years) of it", error.getMessage());
    }

    @Test
    void aWrongHeaderIsNamed() throws IOException {
        Path file = folder.resolve("bad.csv");
        Files.writeString(file, "time,in,out\n2023-11-16 18:17:03,5,5\n", StandardCharsets.UTF_8);

        TraceFormatException error = assertThrows(TraceFormatException.class, () -> AzureTraceReader.rows(file));

        assertEquals(file + ":1: expected the header TIMESTAMP,ContextTokens,GeneratedTokens, found time,in,out",
                error.getMessage());
    }

    private static List<AzureTraceReader.Row> rows(long... contextTokens) {
        return java.util.stream.IntStream.range(0, contextTokens.length)
                .mapToObj(i -> new AzureTraceReader.Row(i + 2, i * 1_000_000L, contextTokens[i], 1)).toList();
    }

    @Test
    void withoutFollowUpsEveryPromptWithAFullBlockStartsWithItsGroupsBlocks() {
        // One group of exactly one block (maxSharedPrefixTokens = one block); no follow-ups.
        AzureSynthesis synthesis = new AzureSynthesis(7, 16, 1, 1.0, 16, 0.0, 0);
        RequestTrace trace = synthesis.apply(Path.of("t.csv"), rows(40, 100, 8));

        assertArrayEquals(new long[] {0, 1, 2}, trace.requests().get(0).hashIds(),
                "ceil(40 / 16) = 3 blocks: the group's block 0, then fresh ids");
        assertArrayEquals(new long[] {0, 3, 4, 5, 6, 7, 8}, trace.requests().get(1).hashIds(),
                "ceil(100 / 16) = 7 blocks: the group's block, then fresh ids continuing the sequence");
        assertArrayEquals(new long[] {9}, trace.requests().get(2).hashIds(),
                "8 tokens: no full block to share, one fresh id for the partial block");
    }

    @Test
    void aFollowUpStartsWithTheFullBlocksOfTheMostRecentShorterRequestNotYetContinued() {
        AzureSynthesis synthesis = new AzureSynthesis(7, 16, 1, 1.0, 16, 1.0, 4);
        // 40 tokens (2 full blocks + 1 partial), then 70 (4 full + 1): continues the first; then 75 (4 full + 1):
        // the second has 4 full blocks, not fewer, and the first is taken, so it is a group request.
        RequestTrace trace = synthesis.apply(Path.of("t.csv"), rows(40, 70, 75));

        long[] first = trace.requests().get(0).hashIds();
        long[] second = trace.requests().get(1).hashIds();
        long[] third = trace.requests().get(2).hashIds();
        assertArrayEquals(new long[] {0, 1, 2}, first, "the first request: group block 0, then fresh 1 and 2");
        assertArrayEquals(new long[] {0, 1, 3, 4, 5}, second, "the first's two full blocks, then fresh ids");
        assertArrayEquals(new long[] {0, 6, 7, 8, 9}, third, "the group's one block, then fresh ids");
    }

    @Test
    void theSameSeedGivesTheSameIdsAndAnotherSeedOthers() {
        RequestTrace a = AzureTraceReader.read(CONV, AzureSynthesis.DEFAULT);
        RequestTrace b = AzureTraceReader.read(CONV, AzureSynthesis.DEFAULT);
        RequestTrace c = AzureTraceReader.read(CONV, new AzureSynthesis(43, 16, 64, 1.0, 4096, 0.5, 32));

        assertArrayEquals(a.flattenedReferences(), b.flattenedReferences());
        assertNotEquals(java.util.Arrays.hashCode(a.flattenedReferences()), java.util.Arrays.hashCode(c.flattenedReferences()));
        for (TraceRequest request : a.requests()) {
            assertEquals(Math.ceilDiv(request.inputTokens(), 16), request.hashIds().length);
        }
    }
}
