package tierlab.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.request.RequestSpec;

class MooncakeWorkloadTest {

    /** The trace that ships in the repository, from the module folder (tests run there): repo/data. */
    private static final Path SHARED_TRACE = Path.of("../data/mooncake_synthetic_trace.jsonl");

    @TempDir
    Path folder;

    @ParameterizedTest(name = "blockTokens {0}")
    @ValueSource(ints = {16, 32, 64, 128, 256, 512})
    void requestsSharingKHashIdsShareExactlyTheFirstKTimes512OverBtKeys(int blockTokens) {
        long[] first = {10, 11, 12, 13};
        long[] second = {10, 11, 20, 21};
        int sharedTraceBlocks = 2;

        List<BlockKey> a = MooncakeWorkload.chain(first, 4 * 512, blockTokens);
        List<BlockKey> b = MooncakeWorkload.chain(second, 4 * 512, blockTokens);

        int shared = sharedTraceBlocks * 512 / blockTokens;
        assertEquals(4 * 512 / blockTokens, a.size());
        assertEquals(a.size(), b.size());
        assertEquals(a.subList(0, shared), b.subList(0, shared), "the shared trace prefix gives the same keys");
        for (int block = shared; block < a.size(); block++) {
            assertNotEquals(a.get(block), b.get(block), "block " + block + " is past the shared prefix");
            assertTrue(!b.contains(a.get(block)), "key of block " + block + " appears nowhere in the other chain");
        }
    }

    @Test
    void equalIdsAfterADifferenceStillGiveDifferentKeys() {
        List<BlockKey> a = MooncakeWorkload.chain(new long[] {1, 2, 3}, 3 * 512, 128);
        List<BlockKey> b = MooncakeWorkload.chain(new long[] {1, 9, 3}, 3 * 512, 128);

        assertEquals(a.subList(0, 4), b.subList(0, 4));
        assertNotEquals(a.get(8), b.get(8), "keys chain through their parents: the trace's id 3 alone is not enough");
    }

    @Test
    void aLongerPromptExtendsTheShorterOnesChain() {
        List<BlockKey> shorter = MooncakeWorkload.chain(new long[] {5, 6}, 700, 16);
        List<BlockKey> longer = MooncakeWorkload.chain(new long[] {5, 6, 7}, 1500, 16);

        assertEquals(shorter, longer.subList(0, shorter.size()));
    }

    @Test
    void aPartialTrailingBlockGetsNoKey() {
        // 1,000 tokens = 62 full 16-token blocks and 8 tokens over; one full 512-token block.
        assertEquals(62, MooncakeWorkload.chain(new long[] {1, 2}, 1000, 16).size());
        assertEquals(1, MooncakeWorkload.chain(new long[] {1, 2}, 1000, 512).size());
        assertEquals(0, MooncakeWorkload.chain(new long[] {1}, 15, 16).size());
        // Exactly full: no partial block, every block keyed.
        assertEquals(64, MooncakeWorkload.chain(new long[] {1, 2}, 1024, 16).size());
    }

    @Test
    void onlyBlocksCoveredByHashIdsGetKeys() {
        // The prompt says 2,048 tokens but the trace only names two 512-token blocks.
        assertEquals(1024 / 16, MooncakeWorkload.chain(new long[] {1, 2}, 2048, 16).size());
        assertEquals(0, MooncakeWorkload.chain(new long[0], 2048, 16).size());
    }

    @Test
    void aSubBlockIsKeyedByItsTraceIdAndIndex() {
        List<BlockKey> chain = MooncakeWorkload.chain(new long[] {7, 8}, 1024, 256);

        BlockKey expected = BlockKey.ROOT;
        long[][] parts = {{7, 0}, {7, 1}, {8, 0}, {8, 1}};
        for (int block = 0; block < parts.length; block++) {
            expected = BlockKey.fromTraceId(expected, parts[block][0], (int) parts[block][1]);
            assertEquals(expected, chain.get(block), "block " + block);
        }
    }

    @ParameterizedTest(name = "blockTokens {0}")
    @ValueSource(ints = {48, 96, 100, 1024})
    void aBlockSizeThatDoesNotDivide512IsRefusedNamingBlockTokens(int blockTokens) throws IOException {
        Path trace = write("t.jsonl", line(0, 1024, 1, 1, 2));
        Geometry geometry = new Geometry(ModelShape.QWEN3_8B, blockTokens, 1);

        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> MooncakeWorkload.load(trace, geometry, MooncakeWorkload.Options.ALL));

        assertTrue(error.getMessage().startsWith("blockTokens"), error.getMessage());
        assertTrue(error.getMessage().contains("blockTokens is " + blockTokens), error.getMessage());
    }

    @Test
    void mapsTimestampsLengthsAndIdsAndSortsByArrival() throws IOException {
        Path trace = write("t.jsonl",
                line(0, 1024, 7, 1, 2),
                line(3, 600, 0, 1, 3),
                line(3, 512, 2, 1),
                line(1_500, 100, 5, 4));

        List<RequestSpec> requests = MooncakeWorkload.load(trace, Geometry.qwen3_8b(), MooncakeWorkload.Options.ALL);

        assertEquals(4, requests.size());
        Workloads.checkOrderedAndUnique(requests);
        assertEquals(List.of(0L, 1L, 2L, 3L), requests.stream().map(RequestSpec::requestId).toList());
        assertEquals(List.of(0L, 3_000_000L, 3_000_000L, 1_500_000_000L),
                requests.stream().map(RequestSpec::arrivalNs).toList());
        assertEquals(600, requests.get(1).promptTokens());
        assertEquals(1, requests.get(1).outputTokens(), "an output_length of 0 still produces one token");
        assertEquals(7, requests.get(0).outputTokens());
        assertEquals(600 / 16, requests.get(1).chain().size());
        assertEquals(requests.get(0).chain().subList(0, 32), requests.get(1).chain().subList(0, 32));
        assertEquals(requests.get(0).chain().subList(0, 32), requests.get(2).chain());
        assertEquals(6, requests.get(3).chain().size());
    }

    @Test
    void timeScaleStretchesArrivalsAndTheLimitKeepsTheFirstRequests() throws IOException {
        Path trace = write("t.jsonl", line(0, 512, 1, 1), line(10, 512, 1, 2), line(20, 512, 1, 3));

        List<RequestSpec> faster = MooncakeWorkload.load(trace, Geometry.qwen3_8b(),
                MooncakeWorkload.Options.ALL.withTimeScale(0.5).withRequestLimit(2));

        assertEquals(List.of(0L, 5_000_000L), faster.stream().map(RequestSpec::arrivalNs).toList());
        assertEquals(List.of(0L, 1L), faster.stream().map(RequestSpec::requestId).toList());
    }

    @Test
    void anUnsortedTraceComesOutSortedWithItsFileIds() throws IOException {
        Path trace = write("t.jsonl", line(50, 512, 1, 1), line(10, 512, 1, 2));

        List<RequestSpec> requests = MooncakeWorkload.load(trace, Geometry.qwen3_8b(), MooncakeWorkload.Options.ALL);

        assertEquals(List.of(1L, 0L), requests.stream().map(RequestSpec::requestId).toList());
        assertEquals(10_000_000L, requests.getFirst().arrivalNs());
    }

    @Test
    void anEmptyPromptIsRefusedNamingFileAndLine() throws IOException {
        Path trace = write("t.jsonl", line(0, 512, 1, 1), "", line(1, 0, 1));

        TraceFormatException error = assertThrows(TraceFormatException.class,
                () -> MooncakeWorkload.load(trace, Geometry.qwen3_8b(), MooncakeWorkload.Options.ALL));

        assertEquals(3, error.lineNumber());
        assertTrue(error.getMessage().startsWith(trace + ":3: input_length is 0"), error.getMessage());
    }

    @Test
    void badOptionsNameTheField() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new MooncakeWorkload.Options(-1, 1))
                .getMessage().startsWith("requestLimit"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new MooncakeWorkload.Options(0, 0))
                .getMessage().startsWith("timeScale"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new MooncakeWorkload.Options(0, Double.NaN))
                .getMessage().startsWith("timeScale"));
    }

    @Test
    void theSharedTraceLoadsWithItsDocumentedCounts() {
        MooncakeTrace trace = MooncakeTraceReader.read(SHARED_TRACE);

        assertEquals(3_993, trace.requests().size());
        assertEquals(121_877, trace.references());
    }

    @Test
    void theSharedTraceReblocksWithItsPrefixStructureIntact() {
        MooncakeTrace trace = MooncakeTraceReader.read(SHARED_TRACE);

        // At 512-token blocks every full trace block is one key: ids and keys must map one to one,
        // because in this trace each id stands for one prefix.
        List<RequestSpec> whole = MooncakeWorkload.requests(trace, new Geometry(ModelShape.QWEN3_8B, 512, 1),
                MooncakeWorkload.Options.ALL);
        Map<Long, BlockKey> keyOfId = new HashMap<>();
        Map<BlockKey, Long> idOfKey = new HashMap<>();
        for (RequestSpec request : whole) {
            long[] ids = trace.requests().get((int) request.requestId()).hashIds();
            for (int block = 0; block < request.chain().size(); block++) {
                BlockKey key = request.chain().get(block);
                long id = ids[block];
                assertEquals(key, keyOfId.computeIfAbsent(id, i -> key), "one key per trace id");
                assertEquals(id, idOfKey.computeIfAbsent(key, k -> id), "one trace id per key");
            }
        }

        // At the reference block size every request keeps all of its full 16-token blocks.
        List<RequestSpec> reblocked = MooncakeWorkload.requests(trace, Geometry.qwen3_8b(), MooncakeWorkload.Options.ALL);
        assertEquals(3_993, reblocked.size());
        Workloads.checkOrderedAndUnique(reblocked);
        long keys = 0;
        for (RequestSpec request : reblocked) {
            MooncakeRequest source = trace.requests().get((int) request.requestId());
            assertEquals(Math.min(source.inputTokens() / 16, source.hashIds().length * 32L), request.chain().size());
            assertEquals(source.timestampMs() * 1_000_000, request.arrivalNs());
            keys += request.chain().size();
        }
        assertEquals(3_822_794, keys);
    }

    private static String line(long timestampMs, long inputLength, long outputLength, long... hashIds) {
        StringBuilder ids = new StringBuilder();
        for (long id : hashIds) {
            ids.append(ids.isEmpty() ? "" : ", ").append(id);
        }
        return "{\"timestamp\": " + timestampMs + ", \"input_length\": " + inputLength + ", \"output_length\": "
                + outputLength + ", \"hash_ids\": [" + ids + "]}";
    }

    private Path write(String name, String... lines) throws IOException {
        Path file = folder.resolve(name);
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return file;
    }
}
