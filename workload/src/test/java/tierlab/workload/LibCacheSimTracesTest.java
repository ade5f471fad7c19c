package tierlab.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LibCacheSimTracesTest {

    static final Path ORACLE = Path.of("../data/mooncake_first500.oracleGeneral.bin");
    static final Path CSV = Path.of("../data/mooncake_first500.lcs.csv");
    private static final Path MOONCAKE = Path.of("../data/mooncake_synthetic_trace.jsonl");

    @TempDir
    Path folder;

    @Test
    void bothSamplesHoldTheBlockReferencesOfTheFirst500MooncakeRequestsInReplayOrder() {
        List<MooncakeRequest> first500 = MooncakeTraceReader.read(MOONCAKE).requests().subList(0, 500);
        long[] expected = first500.stream().flatMapToLong(request -> java.util.Arrays.stream(request.hashIds())).toArray();

        RequestTrace oracle = LibCacheSimTraces.readOracleGeneral(ORACLE);
        RequestTrace csv = LibCacheSimTraces.readCsv(CSV);

        assertArrayEquals(expected, oracle.flattenedReferences());
        assertArrayEquals(expected, csv.flattenedReferences());
        assertEquals(0, oracle.blockTokens(), "a trace of cache objects");
        assertEquals(expected.length, oracle.requests().size(), "one reference per request");
        assertEquals(first500.getLast().timestampMs() / 1000 * 1_000_000_000L, oracle.requests().getLast().arrivalNs());
        assertEquals(csv.requests().getLast().arrivalNs(), oracle.requests().getLast().arrivalNs());
    }

    @Test
    void readsLittleEndianRecordsWithAnUnsignedId() throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(48).order(ByteOrder.LITTLE_ENDIAN);
        bytes.putInt(7).putLong(-2L).putInt(4096).putLong(1);
        bytes.putInt(9).putLong(42).putInt(1).putLong(-1);
        Path file = folder.resolve("t.bin");
        Files.write(file, bytes.array());

        RequestTrace trace = LibCacheSimTraces.readOracleGeneral(file);

        assertArrayEquals(new long[] {-2L, 42}, trace.flattenedReferences(), "id 2^64 - 2 is kept as its 64 bits");
        assertEquals(7_000_000_000L, trace.requests().get(0).arrivalNs());
        assertEquals(2, trace.requests().get(1).lineNumber(), "records are numbered from 1");
    }

    @Test
    void aTruncatedBinaryFileNamesTheRecordCutShort() throws IOException {
        Path file = folder.resolve("t.bin");
        Files.write(file, new byte[24 * 2 + 5]);

        TraceException error = assertThrows(TraceException.class, () -> LibCacheSimTraces.readOracleGeneral(file));

        assertEquals(file + ": 53 bytes is not a whole number of 24-byte oracleGeneral records (record 3 at byte 48 is"
                + " cut short; a truncated file, or another format)", error.getMessage());
    }

    @Test
    void theReservedIdIsRefusedWithItsRecord() throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN).putInt(0).putLong(Long.MIN_VALUE);
        Path file = folder.resolve("t.bin");
        Files.write(file, bytes.array());

        TraceFormatException error = assertThrows(TraceFormatException.class, () -> LibCacheSimTraces.readOracleGeneral(file));

        assertTrue(error.getMessage().startsWith(file + ":1: record 1 (byte 0): obj_id 9223372036854775808 is reserved"),
                error.getMessage());
    }

    @Test
    void csvRowsAreCheckedFieldByField() throws IOException {
        Path file = folder.resolve("t.csv");
        Files.writeString(file, "clock_time,obj_id,obj_size\n1,2,3\n1,x,3\n", StandardCharsets.UTF_8);
        TraceFormatException error = assertThrows(TraceFormatException.class, () -> LibCacheSimTraces.readCsv(file));
        assertEquals(file + ":3: obj_id must be an unsigned integer, found 'x'", error.getMessage());

        Files.writeString(file, "clock_time,obj_id,obj_size\n1,2\n", StandardCharsets.UTF_8);
        error = assertThrows(TraceFormatException.class, () -> LibCacheSimTraces.readCsv(file));
        assertEquals(file + ":2: expected 3 fields (clock_time,obj_id,obj_size), found 2", error.getMessage());

        Files.writeString(file, "clock_time,obj_id,obj_size\n4294967296,2,3\n", StandardCharsets.UTF_8);
        error = assertThrows(TraceFormatException.class, () -> LibCacheSimTraces.readCsv(file));
        assertEquals(file + ":2: clock_time 4294967296 does not fit in 32 bits, as libCacheSim keeps it", error.getMessage());

        Files.writeString(file, "time,id,size\n1,2,3\n", StandardCharsets.UTF_8);
        error = assertThrows(TraceFormatException.class, () -> LibCacheSimTraces.readCsv(file));
        assertTrue(error.getMessage().startsWith(file + ":1: expected the header clock_time,obj_id,obj_size"), error.getMessage());
    }

    @Test
    void everyFormatIsInTheRegistryAndReadsItsSample() {
        assertEquals(List.of("mooncake", "qwen", "azure", "oracle-general", "lcs-csv"), TraceFormats.FORMATS.names());
        assertEquals(ORACLE, TraceFormats.FORMATS.get("format", "oracle-general").read(ORACLE).file());
        assertEquals("lcs-csv", TraceFormats.FORMATS.get("format", "lcs-csv").read(CSV).format());
        assertEquals(QwenTraceReaderTest.SAMPLE, TraceFormats.FORMATS.get("format", "qwen").read(QwenTraceReaderTest.SAMPLE).file());
        assertEquals(1000, TraceFormats.FORMATS.get("format", "azure").read(AzureTraceReaderTest.CODE).requests().size());
        RequestTrace mooncake = TraceFormats.FORMATS.get("format", "mooncake").read(MOONCAKE);
        assertEquals(121_877, mooncake.references());
        assertEquals(512, mooncake.blockTokens());
    }
}
