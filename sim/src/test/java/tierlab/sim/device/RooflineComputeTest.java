package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.ModelSection;
import tierlab.model.geometry.ModelShape;
import tierlab.model.io.StepShape;

/**
 * Roofline steps whose FLOPs and bytes are worked out by hand: Qwen3-8B (8,190,726,144 bf16 parameters,
 * 147,456 KV bytes per token, 4 × 36 layers × 32 heads × 128 = 589,824 attention FLOPs per token pair)
 * on an H100 (989 TFLOP/s, 3.35 TB/s) at 50% compute and 80% memory efficiency, 1 ms a step and 10 µs a
 * sequence.
 */
final class RooflineComputeTest {

    private static RooflineCompute qwen(String form) {
        return new RooflineCompute(GpuSpecs.H100, ModelShape.QWEN3_8B, form, 0.5, 0.8, 1_000_000, 10_000);
    }

    @Test
    void oneDecodeOverAThousandTokensIsMemoryBound() {
        RooflineCompute roofline = qwen(RooflineCompute.MAX);
        RooflineCompute.StepCost cost = roofline.cost(1, 1, 1000);
        // FLOPs: 2 × 8,190,726,144 × 1 = 16,381,452,288 linear + 589,824 × (1 × 1000 + 1 × 2 / 2) = 590,413,824.
        assertEquals(16_971_866_112.0, cost.flops());
        // Bytes: the weights once, 16,381,452,288, + 1000 × 147,456 of KV.
        assertEquals(16_528_908_288.0, cost.bytes());
        // Memory 16,528,908,288 / 2.68e12 s = 6,167,503.09 ns beats compute 16,971,866,112 / 4.945e14 s = 34,321.3 ns:
        // 1,000,000 + 10,000 + 6,167,503.09, rounded up.
        assertEquals(7_177_504, roofline.stepNs(cost));
        assertEquals(7_177_504, roofline.stepNs(new StepShape(List.of(new StepShape.Sequence(1, 1, 1000, true)))));
    }

    @Test
    void theSumFormAddsComputeToMemory() {
        // 1,010,000 + 6,167,503.09 + 34,321.27 = 7,211,824.36.
        assertEquals(7_211_825, qwen(RooflineCompute.SUM).stepNs(qwen(RooflineCompute.SUM).cost(1, 1, 1000)));
    }

    @Test
    void aLongPrefillIsComputeBoundAndCountsTheChunksCausalPairs() {
        RooflineCompute roofline = qwen(RooflineCompute.MAX);
        RooflineCompute.StepCost cost = roofline.cost(1, 2048, 0);
        // 2 × 8,190,726,144 × 2048 = 33,549,214,285,824 + 589,824 × 2048 × 2049 / 2 = 1,237,554,561,024.
        assertEquals(34_786_768_846_848.0, cost.flops());
        assertEquals(16_381_452_288.0, cost.bytes());
        // 34,786,768,846,848 / 4.945e14 s = 70,347,358.64 ns; + 1,010,000.
        assertEquals(71_357_359, roofline.stepNs(cost));
    }

    @Test
    void aBatchOfDecodesSharesOneReadOfTheWeights() {
        RooflineCompute roofline = qwen(RooflineCompute.MAX);
        RooflineCompute.StepCost cost = roofline.cost(64, 1, 1000);
        assertEquals(64 * 16_971_866_112.0, cost.flops());
        assertEquals(16_381_452_288.0 + 64 * 147_456_000.0, cost.bytes());
        // 25,818,636,288 / 2.68e12 s = 9,633,819.51 ns; + 1,000,000 + 64 × 10,000.
        assertEquals(11_273_820, roofline.stepNs(cost));
    }

    @Test
    void tensorParallelismDividesWeightsFlopsAndKvHeads() {
        RooflineCompute tp2 = new RooflineCompute(GpuSpecs.H100, ModelShape.QWEN3_8B.withTp(2), RooflineCompute.MAX,
                0.5, 0.8, 0, 0);
        RooflineCompute.StepCost cost = tp2.cost(1, 1, 1000);
        assertEquals(16_971_866_112.0 / 2, cost.flops());
        assertEquals(16_528_908_288.0 / 2, cost.bytes());
    }

    @Test
    void mlaReadsTheLatentOnEveryGpu() {
        // DeepSeek-V3 over 8 GPUs: 671e9 × 1 B / 8 of weights and 70,272 B of latent per context token.
        RooflineCompute roofline = new RooflineCompute(GpuSpecs.H200, ModelShape.DEEPSEEK_V3.withTp(8), RooflineCompute.MAX,
                1, 1, 0, 0);
        assertEquals(671e9 / 8 + 4096 * 70_272.0, roofline.cost(1, 1, 4096).bytes());
        // 2 × 37e9 / 8 per token + 4 × 61 × 128 × 192 / 8 = 749,568 per pair.
        assertEquals(2 * 37e9 / 8 + 749_568.0 * (4096 + 1), roofline.cost(1, 1, 4096).flops());
    }

    @Test
    void aShapeWithoutComputeFieldsIsRefusedNamingTheModel() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RooflineSection(null,
                ModelSection.ofPreset("tiny"), null, 0.5, 0.5, 0.0, 0.0, null).open(new GpuProfile("h100", 0, 0, 0, 0)));
        assertTrue(e.getMessage().contains("model 'tiny'"), e.getMessage());
    }

    @Test
    void efficienciesOutsideZeroToOneAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RooflineSection(null,
                ModelSection.ofPreset("qwen3-8b"), null, 1.5, 0.5, 0.0, 0.0, null));
        assertTrue(e.getMessage().startsWith("compute.computeEfficiency must be in (0, 1]"), e.getMessage());
    }

    @Test
    void aSectionWithoutAGpuTakesTheProfilesGpuByName() {
        RooflineSection section = new RooflineSection(null, ModelSection.ofPreset("qwen3-8b"), null, 0.5, 0.8, 1e6,
                1e4, null);
        assertEquals(GpuSpecs.H200, section.gpuOf(new GpuProfile("h200", 0, 0, 0, 0)));
        assertEquals(7_177_504, section.open(new GpuProfile("h100", 0, 0, 0, 0))
                .stepNs(new StepShape(List.of(new StepShape.Sequence(1, 1, 1000, true)))));
    }
}
