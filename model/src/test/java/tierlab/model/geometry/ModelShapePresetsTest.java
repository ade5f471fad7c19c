package tierlab.model.geometry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The presets' sizes against figures worked out by hand from their config.json values (docs/models.md). */
final class ModelShapePresetsTest {

    @Test
    void denseParameterCountsMatchThePublishedSizes() {
        // Llama-3.1-8B: per layer 4096·128·(2·32 + 2·8) = 41,943,040 attention + 3·4096·14336 = 176,160,768 MLP
        // + 8,192 norms = 218,112,000; × 32 = 6,979,584,000; + 2·128256·4096 = 1,050,673,152 embeddings + 4,096.
        assertEquals(8_030_261_248L, ModelShape.LLAMA_3_1_8B.weightParameters());
        // Llama-3.1-70B: per layer 8192·128·(128 + 16) = 150,994,944 + 3·8192·28672 = 704,643,072 + 16,384
        // = 855,654,400; × 80 = 68,452,352,000; + 2·128256·8192 = 2,101,346,304 + 8,192.
        assertEquals(70_553_706_496L, ModelShape.LLAMA_3_1_70B.weightParameters());
        // Qwen3-8B: per layer 4096·128·(64 + 16) = 41,943,040 + 3·4096·12288 = 150,994,944 + 8,192 = 192,946,176;
        // × 36 = 6,946,062,336; + 2·151936·4096 = 1,244,659,712 + 4,096 (8.19B published).
        assertEquals(8_190_726_144L, ModelShape.QWEN3_8B.weightParameters());
        // Qwen3-32B: per layer 5120·128·(128 + 16) = 94,371,840 + 3·5120·25600 = 393,216,000 + 10,240
        // = 487,598,080; × 64 = 31,206,277,120; + 2·151936·5120 = 1,555,824,640 + 5,120 (32.8B published).
        assertEquals(32_762_106_880L, ModelShape.QWEN3_32B.weightParameters());
        assertEquals(ModelShape.QWEN3_32B.weightParameters(), ModelShape.QWEN3_32B.activeParameters());
    }

    @Test
    void mixtureOfExpertsUsesTheStatedCounts() {
        assertEquals(671_000_000_000L, ModelShape.DEEPSEEK_V3.weightParameters());
        assertEquals(37_000_000_000L, ModelShape.DEEPSEEK_V3.activeParameters());
    }

    @Test
    void kvBytesFollowTheShape() {
        // GQA: 2 · 32 layers · 8 heads · 128 · 2 B = 131,072 B; 80 layers: 327,680 B; Qwen3-32B 64 layers: 262,144 B.
        assertEquals(131_072, ModelShape.LLAMA_3_1_8B.kvBytesPerToken());
        assertEquals(327_680, ModelShape.LLAMA_3_1_70B.kvBytesPerToken());
        assertEquals(262_144, ModelShape.QWEN3_32B.kvBytesPerToken());
        // MLA: 61 layers · (512 + 64) · 2 B = 70,272 B, whatever the head count.
        assertEquals(70_272, ModelShape.DEEPSEEK_V3.kvBytesPerToken());
        // fp8 KV halves it; a 16-token Llama-3.1-8B block is 2 MiB in bf16, 1 MiB in fp8.
        ModelShape fp8 = ModelSection.ofPreset("llama-3.1-8b").withKvDtype("fp8").resolve("model");
        assertEquals(65_536, fp8.kvBytesPerToken());
        assertEquals(1L << 20, new Geometry(fp8, 16, 1).blockBytes());
    }

    @Test
    void aGpuOfATensorParallelGroupHoldsItsShareOfTheKvHeads() {
        // Llama-3.1-70B over 4 GPUs: 2 of 8 KV heads each; over 16, a head each (heads are not split).
        assertEquals(327_680 / 4, ModelShape.LLAMA_3_1_70B.withTp(4).kvBytesPerTokenPerGpu());
        assertEquals(327_680 / 8, ModelShape.LLAMA_3_1_70B.withTp(16).kvBytesPerTokenPerGpu());
        // MLA's latent is read by every head, so every GPU keeps all of it.
        assertEquals(70_272, ModelShape.DEEPSEEK_V3.withTp(8).kvBytesPerTokenPerGpu());
    }

    @Test
    void explicitFieldsResolveAndOverridesApply() {
        ModelShape explicit = new ModelSection(null, "mine", 2, 4, 2, 64, 256, 512, 1000, "bf16", "fp8", null, null, 2,
                null, null).resolve("model");
        assertEquals(2L * 2 * 2 * 64 * 2, explicit.kvBytesPerToken());
        assertEquals(1, explicit.weightBytes());
        assertEquals(2, explicit.tp());
        ModelShape tp4 = new ModelSection("qwen3-8b", null, null, null, null, null, null, null, null, null, null, null,
                null, 4, null, null).resolve("model");
        assertEquals(ModelShape.QWEN3_8B.withTp(4), tp4);
        assertEquals(ModelShape.QWEN3_8B, ModelSection.of(ModelShape.QWEN3_8B).resolve("model"));
        assertEquals(ModelShape.DEEPSEEK_V3, ModelSection.of(ModelShape.DEEPSEEK_V3).resolve("model"));
    }

    @Test
    void badFieldsNameTheField() {
        assertMessage("model.layers: missing", () -> new ModelSection(null, "x", null, null, 8, 128, null, null, null,
                null, null, null, null, null, null, null).resolve("model"));
        assertMessage("model.kvDtype: unknown dtype 'int3'", () -> ModelSection.ofPreset("qwen3-8b").withKvDtype("int3")
                .resolve("model"));
        assertMessage("model.preset: unknown model 'gpt-9'", () -> ModelSection.ofPreset("gpt-9").resolve("model"));
        assertMessage("model.kvHeads: 3 must divide queryHeads", () -> new ModelSection("qwen3-8b", null, null, null, 3,
                null, null, null, null, null, null, null, null, null, null, null).resolve("model"));
        assertMessage("model.tp must be > 0", () -> new ModelSection("qwen3-8b", null, null, null, null, null, null, null,
                null, null, null, null, null, 0, null, null).resolve("model"));
    }

    private static void assertMessage(String start, org.junit.jupiter.api.function.Executable executable) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, executable);
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
    }
}
