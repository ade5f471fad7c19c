package tierlab.model.geometry;

import tierlab.model.Registry;
import tierlab.model.Settings;

/**
 * The shape of a transformer as the store and the GPU's compute model see it: what one token of
 * context costs in KV bytes, and what one step reads and computes (docs/models.md lists the presets
 * and the public configuration each is taken from).
 *
 * <p>The first five fields are all the store needs; a shape built with the five-argument constructor
 * has no compute fields (0) and only the {@code linear} and {@code table} compute models run on it.
 *
 * @param layers           transformer layers
 * @param queryHeads       attention (query) heads per layer
 * @param kvHeads          key/value heads per layer (after grouped-query sharing); ignored for KV size
 *                         when {@code kvLatentDim} is set
 * @param headDim          dimension of one attention head (query and key)
 * @param dtypeBytes       bytes per KV element (2 for bf16, 1 for fp8)
 * @param hiddenSize       the residual stream's width (0: unknown)
 * @param intermediateSize the dense MLP's inner width (0: unknown)
 * @param vocabSize        vocabulary entries; embedding and output head are counted as untied (0: unknown)
 * @param weightBytes      bytes per weight parameter (2 for bf16, 1 for fp8)
 * @param kvLatentDim      MLA: the compressed KV latent's width per layer, cached instead of per-head K and V (0: not MLA)
 * @param kvRopeDim        MLA: the decoupled rotary key's width per layer, cached beside the latent
 * @param tp               tensor-parallel degree: the weights, heads and FLOPs one GPU of the group holds
 * @param parameterCount   weight parameters read per step, when the dense formula does not apply
 *                         (mixture-of-experts models); 0: {@link #denseParameters()}
 * @param activeParameterCount parameters one token passes through (an MoE's routed share); 0: all of them
 */
public record ModelShape(String name, int layers, int queryHeads, int kvHeads, int headDim, int dtypeBytes,
                         int hiddenSize, int intermediateSize, int vocabSize, int weightBytes, int kvLatentDim,
                         int kvRopeDim, int tp, long parameterCount, long activeParameterCount) {

    /**
     * Qwen3-8B in bf16: 36 layers, 32 query and 8 KV heads of 128 dims, the reference system's model
     * (huggingface.co/Qwen/Qwen3-8B, config.json).
     */
    public static final ModelShape QWEN3_8B = new ModelShape("qwen3-8b", 36, 32, 8, 128, 2, 4096, 12288, 151_936, 2,
            0, 0, 1, 0, 0);

    /** One layer, one head: 512 B of KV per token, so hybrid runs and hunts move real bytes quickly. */
    public static final ModelShape TINY = new ModelShape("tiny", 1, 1, 128, 2);

    /** Llama-3.1-8B in bf16 (huggingface.co/meta-llama/Llama-3.1-8B, config.json). */
    public static final ModelShape LLAMA_3_1_8B = new ModelShape("llama-3.1-8b", 32, 32, 8, 128, 2, 4096, 14336,
            128_256, 2, 0, 0, 1, 0, 0);

    /** Llama-3.1-70B in bf16 (huggingface.co/meta-llama/Llama-3.1-70B, config.json). */
    public static final ModelShape LLAMA_3_1_70B = new ModelShape("llama-3.1-70b", 80, 64, 8, 128, 2, 8192, 28672,
            128_256, 2, 0, 0, 1, 0, 0);

    /** Qwen3-32B in bf16 (huggingface.co/Qwen/Qwen3-32B, config.json): 64 query heads of 128 dims over a 5,120 residual. */
    public static final ModelShape QWEN3_32B = new ModelShape("qwen3-32b", 64, 64, 8, 128, 2, 5120, 25600, 151_936, 2,
            0, 0, 1, 0, 0);

    /**
     * DeepSeek-V3 (huggingface.co/deepseek-ai/DeepSeek-V3, config.json and its model card): MLA with a
     * 512-wide latent and a 64-wide rotary key cached per layer, 128 heads whose query/key dimension is
     * 128 + 64, fp8 weights; a mixture of experts of 671B parameters of which 37B are active per token.
     */
    public static final ModelShape DEEPSEEK_V3 = new ModelShape("deepseek-v3", 61, 128, 128, 192, 2, 7168, 18432,
            129_280, 1, 512, 64, 1, 671_000_000_000L, 37_000_000_000L);

    /** The shapes an experiment file can name ({@code model.preset} or {@code workload.model}), by their names. */
    public static final Registry<ModelShape> PRESETS = Registry.<ModelShape>of("model")
            .add(QWEN3_8B.name(), QWEN3_8B)
            .add(TINY.name(), TINY)
            .add(LLAMA_3_1_8B.name(), LLAMA_3_1_8B)
            .add(LLAMA_3_1_70B.name(), LLAMA_3_1_70B)
            .add(QWEN3_32B.name(), QWEN3_32B)
            .add(DEEPSEEK_V3.name(), DEEPSEEK_V3)
            .build();

    public ModelShape {
        Settings.positive("model.layers", layers);
        Settings.positive("model.kvHeads", kvHeads);
        Settings.positive("model.queryHeads", queryHeads);
        Settings.positive("model.headDim", headDim);
        Settings.positive("model.dtypeBytes", dtypeBytes);
        Settings.nonNegative("model.hiddenSize", hiddenSize);
        Settings.nonNegative("model.intermediateSize", intermediateSize);
        Settings.nonNegative("model.vocabSize", vocabSize);
        Settings.positive("model.weightBytes", weightBytes);
        Settings.nonNegative("model.kvLatentDim", kvLatentDim);
        Settings.nonNegative("model.kvRopeDim", kvRopeDim);
        Settings.positive("model.tp", tp);
        Settings.nonNegative("model.parameters", parameterCount);
        Settings.nonNegative("model.activeParameters", activeParameterCount);
        if (kvRopeDim > 0 && kvLatentDim == 0) {
            throw new IllegalArgumentException("model.kvRopeDim: set only with kvLatentDim (an MLA model), was " + kvRopeDim);
        }
        if (queryHeads % kvHeads != 0) {
            throw new IllegalArgumentException("model.kvHeads: " + kvHeads + " must divide queryHeads (" + queryHeads + ")");
        }
        if (activeParameterCount > 0 && parameterCount > 0 && activeParameterCount > parameterCount) {
            throw new IllegalArgumentException("model.activeParameters: " + activeParameterCount
                    + " exceeds the model's parameters (" + parameterCount + ")");
        }
    }

    /** A KV-only shape (no compute fields): what the store needs and every shape before compute models had. */
    public ModelShape(String name, int layers, int kvHeads, int headDim, int dtypeBytes) {
        this(name, layers, kvHeads, kvHeads, headDim, dtypeBytes, 0, 0, 0, 2, 0, 0, 1, 0, 0);
    }

    /** The same model split over {@code newTp} GPUs. */
    public ModelShape withTp(int newTp) {
        return newTp == tp ? this : new ModelShape(name, layers, queryHeads, kvHeads, headDim, dtypeBytes, hiddenSize,
                intermediateSize, vocabSize, weightBytes, kvLatentDim, kvRopeDim, newTp, parameterCount, activeParameterCount);
    }

    /** Whether the KV cache holds MLA latents rather than per-head keys and values. */
    public boolean latentKv() {
        return kvLatentDim > 0;
    }

    /**
     * KV bytes of one token over the whole model: K and V for every layer and head
     * ({@code 2 × layers × kvHeads × headDim × dtypeBytes}), or for MLA the latent and the rotary key
     * of every layer ({@code layers × (kvLatentDim + kvRopeDim) × dtypeBytes}).
     */
    public long kvBytesPerToken() {
        return latentKv() ? (long) layers * (kvLatentDim + kvRopeDim) * dtypeBytes
                : 2L * layers * kvHeads * headDim * dtypeBytes;
    }

    /**
     * KV bytes of one token that one GPU of the tensor-parallel group holds and reads: its share of
     * the KV heads (a head is never split, so beyond {@code tp = kvHeads} each GPU keeps one), or the
     * whole latent for MLA, which every GPU of the group keeps because all heads read it.
     */
    public long kvBytesPerTokenPerGpu() {
        if (latentKv()) {
            return kvBytesPerToken();
        }
        return 2L * layers * Math.ceilDiv(kvHeads, tp) * headDim * dtypeBytes;
    }

    /** Whether the compute fields a roofline needs are set (hidden, intermediate and vocabulary sizes, or a parameter count). */
    public boolean hasComputeFields() {
        return parameterCount > 0 || (hiddenSize > 0 && intermediateSize > 0 && vocabSize > 0);
    }

    /**
     * Weight parameters of a dense decoder: per layer the Q, K, V and O projections
     * ({@code hidden × heads × headDim} each, K and V over the KV heads), a gated MLP
     * ({@code 3 × hidden × intermediate}) and two norms ({@code 2 × hidden}); an untied input embedding
     * and output head ({@code 2 × vocab × hidden}) and the final norm. Per-head query/key norms and
     * biases are left out (under 0.001% of any preset).
     */
    public long denseParameters() {
        long attention = (long) hiddenSize * headDim * (2L * queryHeads + 2L * kvHeads);
        long mlp = 3L * hiddenSize * intermediateSize;
        long perLayer = attention + mlp + 2L * hiddenSize;
        return layers * perLayer + 2L * vocabSize * hiddenSize + hiddenSize;
    }

    /** The parameters read from memory once per step, whole model: the stated count, else the dense formula. */
    public long weightParameters() {
        return parameterCount > 0 ? parameterCount : denseParameters();
    }

    /** The parameters one token's linear layers multiply through, whole model. */
    public long activeParameters() {
        return activeParameterCount > 0 ? activeParameterCount : weightParameters();
    }
}
