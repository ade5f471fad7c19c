package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.ModelSection;
import tierlab.model.geometry.ModelShape;
import tierlab.model.io.StepShape;
import tierlab.sim.device.KernelRooflineCompute.Kernel;

/**
 * Kernel-roofline steps worked out by hand: Qwen3-8B (36 layers, hidden 4,096, 32 query and 8 KV heads of
 * 128, intermediate 12,288, vocabulary 151,936) on an H200 (989 TFLOP/s, 4.8 TB/s) with GEMMs at 50%,
 * attention at 40% and memory at 80% of the peak, 10 µs a layer, 5 µs a sequence, 1 ms a step. A layer's
 * GEMMs (in × out): qkv 4,096 × 6,144, o 4,096 × 4,096, gate_up 4,096 × 24,576, down 12,288 × 4,096.
 */
final class KernelRooflineComputeTest {

    private static final KernelRooflineCompute.Rates RATES =
            new KernelRooflineCompute.Rates(0.5, 0.4, 0.8, 10_000, 5_000, 1_000_000);

    private static KernelRooflineCompute qwen() {
        return new KernelRooflineCompute(GpuSpecs.H200, ModelShape.QWEN3_8B, RATES);
    }

    @Test
    void oneDecodeIsBoundByItsWeightsAndItsKvKernelByKernel() {
        KernelRooflineCompute.StepCost cost = qwen().cost(1, 1, 1000);
        // qkv: 36 × 2 × 1 × 4,096 × 6,144 FLOPs; 36 × (4,096 × 6,144 × 2 B of weights + 1 × (4,096 + 6,144) × 2 B).
        assertEquals(1_811_939_328.0, cost.flops(Kernel.QKV));
        assertEquals(1_812_676_608.0, cost.bytes(Kernel.QKV));
        // The LM head once, over the one last token: 2 × 4,096 × 151,936; 4,096 × 151,936 × 2 + (4,096 + 151,936) × 2.
        assertEquals(1_244_659_712.0, cost.flops(Kernel.LM_HEAD));
        assertEquals(1_244_971_776.0, cost.bytes(Kernel.LM_HEAD));
        // Attention over 1,000 cached tokens and itself: 36 × 4 × 4,096 × 1,001 FLOPs;
        // 36 × (1,001 × 2 × 8 × 128 × 2 B of KV + 1 × 2 × 4,096 × 2 B of query and output).
        assertEquals(590_413_824.0, cost.flops(Kernel.ATTENTION));
        assertEquals(148_193_280.0, cost.bytes(Kernel.ATTENTION));
        // Norms, residual adds, the gated activation, the KV write: 36 × ((10 × 4,096 + 3 × 12,288) × 2 + 4,096).
        assertEquals(0.0, cost.flops(Kernel.ELEMENTWISE));
        assertEquals(5_750_784.0, cost.bytes(Kernel.ELEMENTWISE));
        // Every kernel memory-bound at 3.84e12 B/s: the four GEMMs 3,618,777.6 ns, the LM head 324,211.4, attention
        // 38,592.0, element-wise 1,497.6 = 3,983,078.6 ns; + 1,000,000 + 36 × 10,000 + 5,000, rounded up.
        assertEquals(5_348_079, qwen().stepNs(cost));
        assertEquals(5_348_079, qwen().stepNs(new StepShape(List.of(new StepShape.Sequence(1, 1, 1000, true)))));
    }

    @Test
    void aLongPrefillsGemmsAreComputeBoundAndItsLmHeadReadsItsWeightsOnce() {
        KernelRooflineCompute.StepCost cost = qwen().cost(1, 2048, 0);
        // gate_up: 36 × 2 × 2,048 × 4,096 × 24,576 = 14,843,406,974,976 FLOPs at 4.945e14/s = 30,017,001.0 ns,
        // above its 11,475,615,744 B at 3.84e12 B/s = 2,988,441.6 ns.
        assertEquals(14_843_406_974_976.0, cost.flops(Kernel.GATE_UP));
        assertEquals(11_475_615_744.0, cost.bytes(Kernel.GATE_UP));
        // The causal pairs inside the chunk: 2,048 × 2,049 / 2 × 36 × 4 × 4,096 FLOPs.
        assertEquals(1_237_554_561_024.0, cost.flops(Kernel.ATTENTION));
        // The LM head over the one last token, as for a decode.
        assertEquals(1_244_659_712.0, cost.flops(Kernel.LM_HEAD));
        // GEMMs 7,504,250.2 + 5,002,833.5 + 30,017,001.0 + 15,008,500.5 ns (compute), the LM head 324,211.4 (memory),
        // attention 1,237,554,561,024 / 3.956e14 = 3,128,297.7 (compute), element-wise 11,777,605,632 B = 3,067,084.8
        // = 64,052,179.1 ns; + 1,365,000.
        assertEquals(65_417_180, qwen().stepNs(cost));
    }

    @Test
    void aBatchSharesTheWeightsAndAMixedStepIsTheSumOfItsSequencesTokens() {
        KernelRooflineCompute.StepCost one = qwen().cost(1, 1, 1000);
        KernelRooflineCompute.StepCost batch = qwen().cost(64, 1, 1000);
        // 64 decodes: 64 × the FLOPs, but the weights once (only the activations grow).
        assertEquals(64 * one.flops(Kernel.DOWN), batch.flops(Kernel.DOWN));
        assertEquals(36 * (12_288.0 * 4_096 * 2 + 64 * (12_288 + 4_096) * 2), batch.bytes(Kernel.DOWN));
        assertEquals(64 * one.bytes(Kernel.ATTENTION), batch.bytes(Kernel.ATTENTION));
        StepShape mixed = new StepShape(List.of(new StepShape.Sequence(1, 512, 2048, false),
                new StepShape.Sequence(2, 1, 4096, true)));
        KernelRooflineCompute.StepCost cost = qwen().cost(mixed);
        // GEMMs over 513 tokens; attention over 512 × 2,048 + 512 × 513 / 2 + 4,096 + 1 pairs.
        assertEquals(36 * 2 * 513 * 4096.0 * 4096, cost.flops(Kernel.O));
        assertEquals(36 * 4 * 4096.0 * (512 * 2048 + 512 * 513 / 2 + 4097), cost.flops(Kernel.ATTENTION));
        assertEquals(2.0 * 2 * 4096 * 151_936, cost.flops(Kernel.LM_HEAD));
        assertEquals(2, cost.sequences());
    }

    @Test
    void tensorParallelismSplitsTheGemmsAndHeadsButNotTheResidual() {
        KernelRooflineCompute tp2 = new KernelRooflineCompute(GpuSpecs.H200, ModelShape.QWEN3_8B.withTp(2), RATES);
        KernelRooflineCompute.StepCost cost = tp2.cost(1, 1, 1000);
        assertEquals(1_811_939_328.0 / 2, cost.flops(Kernel.QKV));
        assertEquals(590_413_824.0 / 2, cost.flops(Kernel.ATTENTION));
        // 36 × ((10 × 4,096 + 3 × 6,144) × 2 + 4 KV heads × 128 × 2 × 2 B).
        assertEquals(36 * ((10 * 4096.0 + 3 * 6144) * 2 + 2048), cost.bytes(Kernel.ELEMENTWISE));
    }

    @Test
    void modelsWhoseKernelsItDoesNotKnowAreRefusedNamingTheModel() {
        IllegalArgumentException moe = assertThrows(IllegalArgumentException.class,
                () -> new KernelRooflineCompute(GpuSpecs.H200, ModelShape.DEEPSEEK_V3, RATES));
        assertTrue(moe.getMessage().contains("model 'deepseek-v3' is an MLA model; use the roofline kind"), moe.getMessage());
        IllegalArgumentException tiny = assertThrows(IllegalArgumentException.class,
                () -> new KernelRooflineCompute(GpuSpecs.H200, ModelShape.TINY, RATES));
        assertTrue(tiny.getMessage().contains("model 'tiny' lacks one"), tiny.getMessage());
    }

    @Test
    void theSectionChecksItsFieldsAndPricesAnotherModel() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new KernelRooflineSection(null,
                ModelSection.ofPreset("qwen3-8b"), 0.5, 0.0, 0.8, null, null, null, null));
        assertTrue(e.getMessage().startsWith("compute.attentionEfficiency must be in (0, 1]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new KernelRooflineSection(null, ModelSection.ofPreset("qwen3-8b"),
                0.5, 0.4, 0.8, -1.0, null, null, null));
        KernelRooflineSection section = new KernelRooflineSection(null, ModelSection.ofPreset("qwen3-8b"), 0.5, 0.4, 0.8,
                10_000.0, 5_000.0, 1_000_000.0, null);
        StepShape decode = new StepShape(List.of(new StepShape.Sequence(1, 1, 1000, true)));
        assertEquals(5_348_079, section.open(new GpuProfile("h200", 0, 0, 0, 0)).stepNs(decode));
        long llama = section.forModel(ModelShape.LLAMA_3_1_8B).open(new GpuProfile("h200", 0, 0, 0, 0)).stepNs(decode);
        assertEquals(new KernelRooflineCompute(GpuSpecs.H200, ModelShape.LLAMA_3_1_8B, RATES).stepNs(decode), llama);
    }

    @Test
    void theH200PresetIsPricedByTheKernelRooflineOnAnH200() {
        GpuProfile gpu = DeviceProfile.preset("qwen3-8b-h200").gpu();
        assertEquals("h200", gpu.name());
        assertEquals("kernel-roofline", gpu.computeKind());
        KernelRooflineSection section = (KernelRooflineSection) gpu.compute();
        assertEquals(GpuSpecs.H200, section.gpu());
        assertEquals("torch-steps-qwen3-8b.csv", section.fit().table());
    }
}
