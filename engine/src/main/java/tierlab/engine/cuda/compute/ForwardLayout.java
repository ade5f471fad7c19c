package tierlab.engine.cuda.compute;

import java.util.Optional;
import tierlab.model.geometry.ModelShape;

/**
 * The arithmetic of one model-shaped forward pass on one GPU: matrix sizes, the KV block layout the
 * kernels address, how decode attention is split and how prefill attention is chunked. No CUDA here.
 *
 * <p>KV block layout ({@code kernels.cu}): per layer, K then V, each {@code [token in block][kv head][headDim]}
 * bf16; {@code kvLayerBytesPerBlock} per layer, layers one after another (the lane layout of the copy port:
 * layer-major).
 *
 * @param shape       the model (dense, bf16 weights and KV, one GPU)
 * @param blockTokens tokens per KV block
 */
public record ForwardLayout(ModelShape shape, int blockTokens) {

    /** What the scores of one prefill chunk may take on the GPU: bounds the chunk of queries, not the prompt. */
    public static final long SCORE_BUDGET_BYTES = 512L << 20;
    /** Decode attention aims at this many thread blocks per multiprocessor before it splits the context further. */
    static final int DECODE_BLOCKS_PER_SM = 2;
    /**
     * The same for attn_decode_fast: about three of its 128-thread blocks fit a multiprocessor by registers,
     * so four per multiprocessor is one full wave plus a partial one that evens out the splits' ends.
     */
    static final int FAST_DECODE_BLOCKS_PER_SM = 4;
    /** A decode split covers at least this many context tokens. */
    static final int MIN_SPLIT_TOKENS = 64;

    public ForwardLayout {
        unsupported(shape).ifPresent(reason -> {
            throw new IllegalArgumentException(reason);
        });
        if (blockTokens < 1) {
            throw new IllegalArgumentException("blockTokens " + blockTokens + " < 1");
        }
    }

    /** Why the kernels cannot run {@code shape}, or empty. */
    public static Optional<String> unsupported(ModelShape shape) {
        String name = "model " + shape.name() + ": ";
        if (shape.latentKv()) {
            return Optional.of(name + "latent (MLA) KV is not implemented by the CUDA compute path");
        }
        if (shape.tp() != 1) {
            return Optional.of(name + "tp " + shape.tp() + ": the CUDA compute path runs one GPU (tp 1)");
        }
        if (shape.dtypeBytes() != 2 || shape.weightBytes() != 2) {
            return Optional.of(name + "the CUDA compute path runs bf16 weights and KV only");
        }
        if (shape.hiddenSize() <= 0 || shape.intermediateSize() <= 0 || shape.vocabSize() <= 0) {
            return Optional.of(name + "hiddenSize, intermediateSize and vocabSize are needed to size the weights");
        }
        if (shape.headDim() % 32 != 0 || shape.headDim() > 256) {
            return Optional.of(name + "headDim " + shape.headDim() + ": the kernels take a multiple of 32 up to 256");
        }
        if (shape.queryHeads() / shape.kvHeads() > 16) {
            return Optional.of(name + "more than 16 query heads per KV head");
        }
        if (decodeSharedBytes(shape.queryHeads() / shape.kvHeads(), shape.headDim()) > 48 * 1024) {
            return Optional.of(name + "the decode kernels' shared memory for this group and headDim exceeds 48 KiB");
        }
        if (shape.hiddenSize() % 8 != 0 || shape.intermediateSize() % 8 != 0) {
            return Optional.of(name + "hiddenSize and intermediateSize must be multiples of 8 (16-byte rows)");
        }
        return Optional.empty();
    }

    public int group() {
        return shape.queryHeads() / shape.kvHeads();
    }

    /** Columns of the fused QKV projection: queries, then keys, then values. */
    public int qkvColumns() {
        return (shape.queryHeads() + 2 * shape.kvHeads()) * shape.headDim();
    }

    public int attentionColumns() {
        return shape.queryHeads() * shape.headDim();
    }

    /** Elements of one layer's weights: QKV, O, the fused gate/up and down projections (the norms are vectors). */
    public long layerWeightElements() {
        long hidden = shape.hiddenSize();
        return hidden * qkvColumns() + (long) attentionColumns() * hidden + hidden * 2L * shape.intermediateSize()
                + (long) shape.intermediateSize() * hidden + 2 * hidden;
    }

    /** Bytes of weights one step reads: every layer's (one layer's, read {@code layers} times) and the LM head. */
    public long weightBytesReadPerStep() {
        return 2L * (shape.layers() * layerWeightElements() + (long) shape.hiddenSize() * shape.vocabSize() + shape.hiddenSize());
    }

    /** Bytes of one layer's K and V in one block. */
    public long kvLayerBytesPerBlock() {
        return 2L * blockTokens * shape.kvHeads() * shape.headDim() * 2;
    }

    /** Bytes of a whole block: every layer's K and V (the model's KV bytes per token × block tokens). */
    public long kvBlockBytes() {
        return kvLayerBytesPerBlock() * shape.layers();
    }

    /** Blocks a sequence of {@code tokens} tokens spans. */
    public int blocksFor(long tokens) {
        return Math.toIntExact(Math.ceilDiv(tokens, blockTokens));
    }

    /**
     * Context tokens per decode split for {@code sequences} decodes over at most {@code maxTokens} tokens on
     * a GPU of {@code multiprocessors}: enough splits to fill the GPU, none shorter than {@value #MIN_SPLIT_TOKENS}.
     */
    public int decodeSplitTokens(int sequences, long maxTokens, int multiprocessors) {
        return decodeSplitTokens(sequences, maxTokens, multiprocessors, DECODE_BLOCKS_PER_SM);
    }

    /** As {@link #decodeSplitTokens(int, long, int)}, aiming at {@code blocksPerSm} thread blocks per multiprocessor. */
    public int decodeSplitTokens(int sequences, long maxTokens, int multiprocessors, int blocksPerSm) {
        long blocksWithoutSplit = (long) sequences * shape.kvHeads();
        long wanted = Math.max(1, Math.ceilDiv((long) blocksPerSm * multiprocessors, blocksWithoutSplit));
        long split = Math.max(MIN_SPLIT_TOKENS, Math.ceilDiv(maxTokens, wanted));
        return Math.toIntExact(Math.min(split, Math.max(maxTokens, 1)));
    }

    /** Whether attn_decode_fast runs this head dimension: its lane groups need headDim / 8 a power of two up to 32. */
    public boolean fastDecode() {
        int lanes = shape.headDim() / 8;
        return Integer.bitCount(lanes) == 1 && lanes <= 32;
    }

    /** Static shared memory of either decode kernel: four warps' output rows, maxima and sums per query head, fp32. */
    static long decodeSharedBytes(int group, int headDim) {
        return 4L * 4 * ((long) group * headDim + 2L * group);
    }

    public static int splits(long maxTokens, int splitTokens) {
        return Math.toIntExact(Math.max(1, Math.ceilDiv(maxTokens, splitTokens)));
    }

    /**
     * Queries per prefill chunk, so that the bf16 scores of a chunk over up to {@code maxKeys} keys, for every
     * query head, stay within {@link #SCORE_BUDGET_BYTES}.
     */
    public int prefillChunkTokens(long newTokens, long maxKeys) {
        long perQuery = 2L * shape.queryHeads() * Math.max(1, maxKeys);
        long chunk = Math.max(1, SCORE_BUDGET_BYTES / perQuery);
        return Math.toIntExact(Math.min(chunk, Math.max(1, newTokens)));
    }
}
