package tierlab.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.LongSummaryStatistics;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.request.RequestSpec;
import tierlab.model.util.SeedTree;

class LongPrefillPassesTest {

    @Test
    void coldAndWarmPassesCarryIdenticalChainsInTheSameOrder() {
        LongPrefillPasses passes = LongPrefillPasses.e3();

        List<RequestSpec> cold = passes.coldPass();
        List<RequestSpec> warm = passes.warmPass(5_000_000_000L);

        assertEquals(200, cold.size());
        assertEquals(cold.stream().map(RequestSpec::chain).toList(), warm.stream().map(RequestSpec::chain).toList());
        assertEquals(cold.stream().map(RequestSpec::promptTokens).toList(), warm.stream().map(RequestSpec::promptTokens).toList());
        for (int i = 0; i < cold.size(); i++) {
            assertEquals(i, cold.get(i).requestId());
            assertEquals(200 + i, warm.get(i).requestId());
            assertEquals(0, cold.get(i).arrivalNs(), "all cold arrivals at once");
            assertEquals(5_000_000_000L, warm.get(i).arrivalNs(), "all warm arrivals at the start given");
        }
        Workloads.checkOrderedAndUnique(cold);
        Workloads.checkOrderedAndUnique(warm);
    }

    @Test
    void noTwoPromptsShareABlock() {
        List<RequestSpec> cold = LongPrefillPasses.e2().coldPass();

        long keys = cold.stream().mapToLong(r -> r.chain().size()).sum();
        assertEquals(keys, cold.stream().flatMap(r -> r.chain().stream()).distinct().count());
    }

    @Test
    void spacedArrivalsStartWhereTheyAreTold() {
        LongPrefillSettings settings = LongPrefillSettings.fixed("spaced", 5, 1024, 4).withArrivalSpacingNs(1_000);
        LongPrefillPasses passes = new LongPrefillPasses(settings, Geometry.qwen3_8b(), new SeedTree(1));

        assertEquals(List.of(0L, 1_000L, 2_000L, 3_000L, 4_000L),
                passes.coldPass().stream().map(RequestSpec::arrivalNs).toList());
        assertEquals(List.of(100L, 1_100L, 2_100L, 3_100L, 4_100L),
                passes.warmPass(100, 10).stream().map(RequestSpec::arrivalNs).toList());
        assertEquals(List.of(10L, 11L, 12L, 13L, 14L), passes.warmPass(100, 10).stream().map(RequestSpec::requestId).toList());
        assertEquals(4, passes.coldPass().getFirst().outputTokens());
    }

    @Test
    void aWarmPassMayNotReuseColdIds() {
        LongPrefillPasses passes = new LongPrefillPasses(LongPrefillSettings.fixed("small", 5, 64, 1),
                Geometry.qwen3_8b(), new SeedTree(1));

        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> passes.warmPass(0, 4));
        assertTrue(error.getMessage().startsWith("firstRequestId"), error.getMessage());
    }

    @Test
    void theE1PresetIs72point68GibOfQwen3KvWithin1Percent() {
        LongPrefillPasses e1 = LongPrefillPasses.e1();
        Geometry geometry = new Geometry(ModelShape.QWEN3_8B, 16, 1);
        assertEquals(geometry, e1.geometry());

        List<RequestSpec> cold = e1.coldPass();
        double kvGib = (double) Workloads.kvBytes(cold, geometry) / Workloads.GIB;
        double storedGib = (double) Workloads.storedKvBytes(cold, geometry) / Workloads.GIB;

        assertEquals(200, cold.size());
        assertEquals(LongPrefillPasses.E1_REFERENCE_KV_GIB, kvGib, 0.01 * LongPrefillPasses.E1_REFERENCE_KV_GIB);
        assertEquals(LongPrefillPasses.E1_REFERENCE_KV_GIB, storedGib, 0.01 * LongPrefillPasses.E1_REFERENCE_KV_GIB,
                "what the store holds (full blocks only) is within 1% too");
        assertEquals(529_200, e1.totalPromptTokens(), "the pinned total: 200 × 2,646");
        LongSummaryStatistics lengths = cold.stream().mapToLong(RequestSpec::promptTokens).summaryStatistics();
        assertTrue(lengths.getMin() < lengths.getMax(), "the prompts vary in length: " + lengths);
        assertTrue(lengths.getMin() >= 2_000 && lengths.getMax() <= 3_300, lengths.toString());
    }

    @Test
    void theE2AndE3PresetsHaveTheReferenceShape() {
        LongPrefillPasses e2 = LongPrefillPasses.e2();
        assertEquals(128, e2.geometry().blockTokens());
        for (RequestSpec request : e2.coldPass()) {
            assertEquals(10_000, request.promptTokens());
            assertEquals(1, request.outputTokens());
            assertEquals(10_000 / 128, request.chain().size());
        }
        LongPrefillPasses e3 = LongPrefillPasses.e3();
        assertEquals(16, e3.geometry().blockTokens());
        assertEquals(200L * 8_192, e3.totalPromptTokens());
        assertEquals(8_192 / 16, e3.coldPass().getFirst().chain().size());
    }

    @Test
    void presetsAreDeterministicAndTheSeedMatters() {
        assertEquals(LongPrefillPasses.e1().coldPass(), LongPrefillPasses.e1().coldPass());

        LongPrefillSettings settings = LongPrefillPasses.e1().settings();
        Geometry geometry = Geometry.qwen3_8b();
        assertNotEquals(new LongPrefillPasses(settings, geometry, new SeedTree(1)).coldPass(),
                new LongPrefillPasses(settings, geometry, new SeedTree(2)).coldPass());
    }

    @Test
    void pinningNeverTakesAPromptBelowOneToken() {
        // A wide range around a small mean: the nudges must stop at one token per prompt.
        LongPrefillSettings settings = new LongPrefillSettings("wide", 7, LengthDistribution.uniform(1, 1_000), true, 1, 0);

        for (long seed = 0; seed < 20; seed++) {
            LongPrefillPasses passes = new LongPrefillPasses(settings, Geometry.qwen3_8b(), new SeedTree(seed));
            assertEquals(Math.round(7 * 500.5), passes.totalPromptTokens());
            assertTrue(passes.coldPass().stream().allMatch(r -> r.promptTokens() >= 1));
        }
    }

    @Test
    void badSettingsNameTheirField() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LongPrefillSettings.fixed("x", 0, 10, 1))
                .getMessage().startsWith("prompts"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LongPrefillSettings.fixed("x", 1, 10, 0))
                .getMessage().startsWith("outputTokens"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> LongPrefillSettings.fixed("x", 1, 10, 1).withArrivalSpacingNs(-1)).getMessage().startsWith("arrivalSpacingNs"));
    }
}
