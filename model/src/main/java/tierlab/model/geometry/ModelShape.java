package tierlab.model.geometry;

import tierlab.model.Registry;
import tierlab.model.Settings;

/**
 * The shape of a transformer's KV cache: what one token of context costs in bytes.
 *
 * @param layers       transformer layers
 * @param kvHeads      key/value heads per layer (after grouped-query sharing)
 * @param headDim      dimension of one head
 * @param dtypeBytes   bytes per element (2 for bf16)
 */
public record ModelShape(String name, int layers, int kvHeads, int headDim, int dtypeBytes) {

    /** Qwen3-8B in bf16: 36 layers, 8 KV heads of 128 dims, the reference system's model. */
    public static final ModelShape QWEN3_8B = new ModelShape("qwen3-8b", 36, 8, 128, 2);

    /** One layer, one head: 512 B of KV per token, so hybrid runs and hunts move real bytes quickly. */
    public static final ModelShape TINY = new ModelShape("tiny", 1, 1, 128, 2);

    /** The shapes an experiment file can name ({@code workload.model}), by their names. */
    public static final Registry<ModelShape> PRESETS = Registry.<ModelShape>of("model")
            .add(QWEN3_8B.name(), QWEN3_8B)
            .add(TINY.name(), TINY)
            .build();

    public ModelShape {
        Settings.positive("model.layers", layers);
        Settings.positive("model.kvHeads", kvHeads);
        Settings.positive("model.headDim", headDim);
        Settings.positive("model.dtypeBytes", dtypeBytes);
    }

    /** K and V for every layer and head: 2 × layers × kvHeads × headDim × dtypeBytes. */
    public long kvBytesPerToken() {
        return 2L * layers * kvHeads * headDim * dtypeBytes;
    }
}
