package tierlab.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tierlab.workload.MooncakeTrace;
import tierlab.workload.MooncakeTraceReader;
import tierlab.workload.RequestTrace;
import tierlab.workload.TraceFormats;

/**
 * The policies against their references: on every trace shipped in data/ (the Mooncake trace here; the others,
 * one format each, in {@link #everyShippedTraceMatchesTheReferencesOfItsFormat}), the replay path of
 * {@code tierlab replay} ({@link MissRatioSweep} over {@code CacheReplay}) gives exactly the hits and
 * misses of independent reference implementations ({@link ReferenceCaches}) for lru, fifo, arc,
 * s3-fifo (default knobs) and sieve, at capacities from well below to above the working set.
 */
class ReferenceReplayComparisonTest {

    private static final Path TRACE = Path.of("../data/mooncake_synthetic_trace.jsonl");
    private static final List<Long> CAPACITIES = List.of(100L, 1_000L, 4_000L, 16_000L, 64_000L);

    private static MissRatioCurves curves;
    private static long[] references;

    @BeforeAll
    static void replayOnce() {
        MooncakeTrace trace = MooncakeTraceReader.read(TRACE);
        references = trace.flattenedReferences();
        curves = MissRatioSweep.run(trace, List.of("lru", "fifo", "arc", "s3-fifo", "sieve"), CAPACITIES);
    }

    private interface Reference {
        long hits(long[] stream, int capacity);
    }

    private static void assertMatches(String policy, Reference reference) {
        for (long capacity : CAPACITIES) {
            long expectedHits = reference.hits(references, (int) capacity);
            MissRatioPoint point = curves.point(policy, capacity);
            assertEquals(expectedHits, point.result().hits(), policy + " hits at " + capacity + " blocks");
            assertEquals(references.length - expectedHits, point.result().misses(),
                    policy + " misses at " + capacity + " blocks");
        }
    }

    @Test
    void lruEqualsALinkedHashMapInAccessOrder() {
        assertMatches("lru", ReferenceCaches::lruHits);
    }

    @Test
    void fifoEqualsAQueueAndASet() {
        assertMatches("fifo", ReferenceCaches::fifoHits);
    }

    @Test
    void arcEqualsThePapersArcInTheOrderAStoreDrivesIt() {
        assertMatches("arc", (stream, capacity) -> ReferenceCaches.arcHits(stream, capacity, true));
    }

    @Test
    void s3FifoAtItsDefaultsEqualsAStraightforwardS3Fifo() {
        assertMatches("s3-fifo", ReferenceCaches::s3FifoHits);
    }

    @Test
    void sieveEqualsAStraightforwardSieve() {
        assertMatches("sieve", ReferenceCaches::sieveHits);
    }

    /** The replacement policies against brute-force references of their documented rules. */
    @Test
    void lfuSlruAndTwoQueueEqualBruteForceReferencesOfTheirDocumentedRules() {
        List<Long> capacities = List.of(100L, 1_000L);
        MissRatioCurves newPolicies = MissRatioSweep.run(MooncakeTraceReader.read(TRACE),
                List.of("lfu", "lfu:agingFactor=0", "lfu:agingFactor=1", "slru", "slru:protectedRatio=0.5", "2q",
                        "2q:kin=0.5:kout=1"), capacities);
        for (long capacity : capacities) {
            int blocks = (int) capacity;
            assertEquals(ReferenceCaches.lfuHits(references, blocks, 10), hits(newPolicies, "lfu", capacity));
            assertEquals(ReferenceCaches.lfuHits(references, blocks, 0), hits(newPolicies, "lfu:agingFactor=0.0", capacity));
            assertEquals(ReferenceCaches.lfuHits(references, blocks, 1), hits(newPolicies, "lfu:agingFactor=1.0", capacity));
            assertEquals(ReferenceCaches.slruHits(references, blocks, 0.8), hits(newPolicies, "slru", capacity));
            assertEquals(ReferenceCaches.slruHits(references, blocks, 0.5),
                    hits(newPolicies, "slru:protectedRatio=0.5", capacity));
            assertEquals(ReferenceCaches.twoQueueHits(references, blocks, 0.25, 0.5), hits(newPolicies, "2q", capacity));
            assertEquals(ReferenceCaches.twoQueueHits(references, blocks, 0.5, 1.0),
                    hits(newPolicies, "2q:kin=0.5:kout=1.0", capacity));
        }
    }

    private static long hits(MissRatioCurves curves, String label, long capacity) {
        return curves.point(label, capacity).result().hits();
    }

    /** Every other trace in data/, read by its format's reader as {@code tierlab replay --format} reads it. */
    static Stream<Arguments> shippedTraces() {
        return Stream.of(
                Arguments.of("qwen", "../data/qwen_format_sample.jsonl"),
                Arguments.of("azure", "../data/azure_llm_inference_2023_code_first1000.csv"),
                Arguments.of("azure", "../data/azure_llm_inference_2023_conv_first1000.csv"),
                Arguments.of("oracle-general", "../data/mooncake_first500.oracleGeneral.bin"),
                Arguments.of("lcs-csv", "../data/mooncake_first500.lcs.csv"));
    }

    /**
     * lru, fifo, arc, s3-fifo (default knobs) and sieve against the references at 1%, 5%, 20% and 50%
     * of the trace's distinct blocks and at all of them (where every policy misses only first
     * references), so each curve is checked from far below to beyond the working set.
     */
    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("shippedTraces")
    void everyShippedTraceMatchesTheReferencesOfItsFormat(String format, String file) {
        RequestTrace trace = TraceFormats.FORMATS.get("format", format).read(Path.of(file));
        long[] stream = trace.flattenedReferences();
        long distinct = Arrays.stream(stream).distinct().count();
        List<Long> capacities = java.util.stream.LongStream.of(distinct / 100, distinct / 20, distinct / 5, distinct / 2, distinct)
                .map(capacity -> Math.max(1, capacity)).distinct().boxed().toList();
        MissRatioCurves traceCurves = MissRatioSweep.run(trace.blockRequests(),
                List.of("lru", "fifo", "arc", "s3-fifo", "sieve"), capacities);
        Map<String, Reference> references = new LinkedHashMap<>();
        references.put("lru", ReferenceCaches::lruHits);
        references.put("fifo", ReferenceCaches::fifoHits);
        references.put("arc", (refs, capacity) -> ReferenceCaches.arcHits(refs, capacity, true));
        references.put("s3-fifo", ReferenceCaches::s3FifoHits);
        references.put("sieve", ReferenceCaches::sieveHits);
        for (Map.Entry<String, Reference> entry : references.entrySet()) {
            for (long capacity : capacities) {
                long expected = entry.getValue().hits(stream, (int) capacity);
                assertEquals(expected, traceCurves.point(entry.getKey(), capacity).result().hits(),
                        format + " " + file + ": " + entry.getKey() + " hits at " + capacity + " blocks");
            }
            assertEquals(stream.length - distinct, traceCurves.point(entry.getKey(), distinct).result().hits(),
                    entry.getKey() + " with room for every block misses only first references");
        }
    }

    @Test
    void theReferencesAgreeWithEachOtherWhereTheyMust() {
        // Sanity of the references themselves: with room for every block, every policy only misses
        // the first reference of each block; and the paper-exact ARC stays within 1% of references of
        // the store-ordered one (they differ only in when p adapts and in the tie rule).
        long distinct = java.util.Arrays.stream(references).distinct().count();
        int everything = (int) distinct;
        for (Reference reference : List.<Reference>of(ReferenceCaches::lruHits, ReferenceCaches::fifoHits,
                ReferenceCaches::s3FifoHits, ReferenceCaches::sieveHits,
                (stream, capacity) -> ReferenceCaches.arcHits(stream, capacity, false),
                (stream, capacity) -> ReferenceCaches.arcHits(stream, capacity, true))) {
            assertEquals(references.length - distinct, reference.hits(references, everything));
        }
        for (long capacity : CAPACITIES) {
            long paper = ReferenceCaches.arcHits(references, (int) capacity, false);
            long storeOrder = ReferenceCaches.arcHits(references, (int) capacity, true);
            System.out.printf("arc at %d blocks: paper-exact %d hits, store order %d hits (tierlab)%n",
                    capacity, paper, storeOrder);
            assertEquals(paper, storeOrder, references.length / 100.0, "arc variants at " + capacity);
        }
    }
}
