package tierlab.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.request.RequestSpec;

class TraceWorkloadTest {

    @ParameterizedTest(name = "blockTokens {0}")
    @ValueSource(ints = {16, 64, 512})
    void aMooncakeTraceGivesTheSameRequestsAsMooncakeWorkload(int blockTokens) {
        MooncakeTrace mooncake = MooncakeTraceReader.read(Path.of("../data/mooncake_synthetic_trace.jsonl"));
        Geometry geometry = new Geometry(ModelShape.QWEN3_8B, blockTokens, 1);
        MooncakeWorkload.Options options = new MooncakeWorkload.Options(300, 0.5);

        List<RequestSpec> expected = MooncakeWorkload.requests(mooncake, geometry, options);
        List<RequestSpec> actual = TraceWorkload.requests(RequestTrace.of(mooncake), geometry, options);

        assertEquals(expected, actual);
    }

    @Test
    void largerModelBlocksChainEveryTraceIdTheyCover() {
        // Qwen's 16-token ids to 32-token model blocks: block 0 = ids 10, 11; block 1 = ids 12, 13.
        List<BlockKey> chain = TraceWorkload.chain(new long[] {10, 11, 12, 13, 14}, 70, 16, 32);

        BlockKey k0 = BlockKey.fromTraceId(BlockKey.fromTraceId(BlockKey.ROOT, 10, 0), 11, 0);
        BlockKey k1 = BlockKey.fromTraceId(BlockKey.fromTraceId(k0, 12, 0), 13, 0);
        assertEquals(List.of(k0, k1), chain, "70 tokens: two full 32-token blocks; id 14 only covers the partial rest");
    }

    @Test
    void sharedIdPrefixesGiveSharedKeysUpToTheLastFullyCoveredModelBlock() {
        List<BlockKey> a = TraceWorkload.chain(new long[] {1, 2, 3, 4, 5, 6}, 96, 16, 32);
        List<BlockKey> b = TraceWorkload.chain(new long[] {1, 2, 3, 9, 5, 6}, 96, 16, 32);

        assertEquals(a.get(0), b.get(0), "ids 1, 2 shared");
        assertNotEquals(a.get(1), b.get(1), "id 4 vs 9");
        assertNotEquals(a.get(2), b.get(2), "chained through a different parent");
        assertTrue(b.stream().noneMatch(a.subList(1, 3)::contains));
    }

    @Test
    void objectTracesAndUnrelatedBlockSizesAreRefusedInWords() {
        RequestTrace objects = LibCacheSimTraces.readCsv(LibCacheSimTracesTest.CSV);
        Geometry geometry = new Geometry(ModelShape.QWEN3_8B, 16, 1);
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> TraceWorkload.requests(objects, geometry, MooncakeWorkload.Options.ALL));
        assertTrue(error.getMessage().contains("trace of cache objects without token counts"), error.getMessage());

        RequestTrace qwen = QwenTraceReader.read(QwenTraceReaderTest.SAMPLE);
        error = assertThrows(IllegalArgumentException.class,
                () -> TraceWorkload.requests(qwen, new Geometry(ModelShape.QWEN3_8B, 24, 1), MooncakeWorkload.Options.ALL));
        assertEquals("blockTokens: a qwen trace (16-token blocks) can only be re-blocked to a block size that divides 16"
                + " or is a multiple of it, but blockTokens is 24", error.getMessage());
    }

    @Test
    void theQwenSampleRunsAsRequestsSortedByArrival() {
        RequestTrace qwen = QwenTraceReader.read(QwenTraceReaderTest.SAMPLE);
        List<RequestSpec> requests = TraceWorkload.requests(qwen, new Geometry(ModelShape.QWEN3_8B, 16, 1),
                MooncakeWorkload.Options.ALL);

        assertEquals(600, requests.size());
        Workloads.checkOrderedAndUnique(requests);
        for (RequestSpec request : requests) {
            assertEquals(request.promptTokens() / 16, request.chain().size());
        }
    }
}
