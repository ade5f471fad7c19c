package tierlab.engine.cuda.compute;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import tierlab.engine.cuda.CudaApi;

/**
 * A model-shaped forward pass on the GPU, one engine step at a time: per layer an RMSNorm, the fused QKV
 * GEMM, the new tokens' K and V written into their KV blocks through each sequence's block table,
 * attention over the blocks (paged decode attention split over the context, or, for a prefill chunk, its
 * context and itself gathered and run through batched GEMMs and a causal softmax, chunked so the scores
 * stay bounded), the O projection, an RMSNorm and the SwiGLU MLP; then the final norm and the LM head over
 * each sequence's last token and its argmax, copied to the host as an engine's sampled tokens are.
 *
 * <p>Weights are random bf16. One layer's weights are allocated and run {@code layers} times: each layer
 * reads its weights from device memory (a layer's are larger than the GPU's L2), so a step reads the
 * model's bytes of weights. KV is the caller's: the block addresses of each batch, a layer at
 * {@code layer × kvLayerStrideBytes} inside a block (0: one layer's KV, reused by every layer). Not
 * thread-safe: one thread enqueues, in the primary context made current on it.
 */
public final class CudaForwardPass implements AutoCloseable {

    static final float NORM_EPS = 1e-6f;
    static final float WEIGHT_STD = 0.02f;
    static final long CUBLAS_WORKSPACE_BYTES = 32L << 20;

    private final GpuContext gpu;
    private final CudaApi rt;
    private final ForwardLayout layout;
    private final long kvLayerStrideBytes;
    private final KernelModule kernels;
    private final long stream;
    private final Cublas blas;
    private final List<Long> allocations = new ArrayList<>();
    private final long wQkv;
    private final long wO;
    private final long wGu;
    private final long wDown;
    private final long norm1;
    private final long norm2;
    private final long finalNorm;
    private final long lmHead;
    private final StepBuffers buffers;
    private final int seed;
    private final boolean fastDecode;

    public CudaForwardPass(GpuContext gpu, ForwardLayout layout, long kvLayerStrideBytes, int seed) {
        this(gpu, layout, kvLayerStrideBytes, seed, AttentionPath.FAST);
    }

    /** As above, launching {@code attention}'s kernels (FAST falls back to the reference decode where it cannot run). */
    public CudaForwardPass(GpuContext gpu, ForwardLayout layout, long kvLayerStrideBytes, int seed, AttentionPath attention) {
        this.gpu = gpu;
        this.fastDecode = attention == AttentionPath.FAST && layout.fastDecode();
        this.rt = gpu.runtime();
        this.layout = layout;
        this.kvLayerStrideBytes = kvLayerStrideBytes;
        this.seed = seed;
        gpu.driver().makeCurrent();
        kernels = gpu.kernels(layout.shape().headDim(), layout.group());
        stream = rt.streamCreate(CudaApi.STREAM_NON_BLOCKING);
        blas = gpu.openCublas(stream, allocate(CUBLAS_WORKSPACE_BYTES), CUBLAS_WORKSPACE_BYTES);
        int hidden = layout.shape().hiddenSize();
        int inter = layout.shape().intermediateSize();
        wQkv = randomWeights((long) hidden * layout.qkvColumns(), 1);
        wO = randomWeights((long) layout.attentionColumns() * hidden, 2);
        wGu = randomWeights((long) hidden * 2 * inter, 3);
        wDown = randomWeights((long) inter * hidden, 4);
        lmHead = randomWeights((long) hidden * layout.shape().vocabSize(), 5);
        norm1 = ones(hidden);
        norm2 = ones(hidden);
        finalNorm = ones(hidden);
        buffers = new StepBuffers(rt, layout,
                fastDecode ? ForwardLayout.FAST_DECODE_BLOCKS_PER_SM : ForwardLayout.DECODE_BLOCKS_PER_SM);
        check(rt.streamSynchronize(stream), "the weights' initialisation");
    }

    public ForwardLayout layout() {
        return layout;
    }

    /** The attention path this pass launches (FAST only where its kernels run this shape). */
    public AttentionPath attention() {
        return fastDecode ? AttentionPath.FAST : AttentionPath.REFERENCE;
    }

    public long stream() {
        return stream;
    }

    /** Grows the step buffers for {@code batch} (outside a graph capture: this allocates). */
    public void reserve(ForwardBatch batch) {
        gpu.driver().makeCurrent();
        if (buffers.reserve(batch, gpu.multiprocessors())) {
            fillRandom(buffers.x0, (long) buffers.tokens * layout.shape().hiddenSize(), 9);
        }
    }

    /** Enqueues the step on the stream (after {@link #reserve}); its sampled tokens are ready after {@link #synchronize}. */
    public void enqueue(ForwardBatch batch) {
        batch.checkInvariants(layout.blockTokens());
        StepBuffers.Plan plan = buffers.plan(batch, gpu.multiprocessors());
        StepBuffers b = buffers;
        check(rt.memcpyAsync(b.metaDevice, b.metaHost, plan.metaBytes(), CudaApi.MEMCPY_HOST_TO_DEVICE, stream), "the step's tables");
        int tokens = plan.tokens();
        int hidden = layout.shape().hiddenSize();
        check(rt.memcpyAsync(b.x, b.x0, 2L * tokens * hidden, CudaStreamCalls.MEMCPY_DEVICE_TO_DEVICE, stream), "the embeddings");
        for (int layer = 0; layer < layout.shape().layers(); layer++) {
            layer(batch, plan, layer * kvLayerStrideBytes);
        }
        int sequences = batch.sequences();
        kernels.launch("rmsnorm", sequences, 1, 1, normThreads(), stream, b.x, finalNorm, b.lastY, hidden, NORM_EPS,
                plan.lastRow());
        blas.gemmRowMajor(sequences, layout.shape().vocabSize(), hidden, 1f, b.lastY, hidden, lmHead,
                layout.shape().vocabSize(), false, b.logits, layout.shape().vocabSize(), false);
        kernels.launch("argmax_rows", sequences, 1, 1, 1024, stream, b.logits, layout.shape().vocabSize(), b.sampledDevice);
        check(rt.memcpyAsync(b.sampledHost, b.sampledDevice, 4L * sequences, CudaApi.MEMCPY_DEVICE_TO_HOST, stream), "the sampled tokens");
    }

    private void layer(ForwardBatch batch, StepBuffers.Plan plan, long kvLayerOffset) {
        StepBuffers b = buffers;
        int tokens = plan.tokens();
        int hidden = layout.shape().hiddenSize();
        int inter = layout.shape().intermediateSize();
        int qkvColumns = layout.qkvColumns();
        int kvHeads = layout.shape().kvHeads();
        kernels.launch("rmsnorm", tokens, 1, 1, normThreads(), stream, b.x, norm1, b.y, hidden, NORM_EPS, 0L);
        blas.gemmRowMajor(tokens, qkvColumns, hidden, 1f, b.y, hidden, wQkv, qkvColumns, false, b.qkv, qkvColumns, false);
        kernels.launch("kv_scatter", tokens, 1, 1, 256, stream, b.qkv, qkvColumns, layout.shape().queryHeads(), kvHeads,
                plan.tokenSeq(), plan.tokenPos(), plan.tables(), plan.maxBlocks(), layout.blockTokens(), kvLayerOffset);
        if (plan.decodes() > 0) {
            // Grid (split, kv head, sequence), 128 threads (4 warps) in both kernels; shared memory is static
            // (ForwardLayout.decodeSharedBytes, checked against 48 KiB by ForwardLayout.unsupported).
            kernels.launch(fastDecode ? "attn_decode_fast" : "attn_decode", plan.splits(), kvHeads, plan.decodes(), 128, stream, b.qkv, qkvColumns, kvHeads,
                    plan.decodeRow(), plan.decodeLength(), plan.decodeTables(), plan.maxBlocks(), layout.blockTokens(),
                    kvLayerOffset, plan.splitTokens(), scale(), b.partO, b.partML);
            kernels.launch("attn_decode_reduce", kvHeads, plan.decodes(), 1, layout.shape().headDim(), stream, b.partO,
                    b.partML, plan.splits(), kvHeads, plan.decodeRow(), b.attn);
        }
        int row = 0;
        for (int s = 0; s < batch.sequences(); s++) {
            int fresh = batch.newTokens()[s];
            if (fresh > 1) {
                prefillAttention(plan.tables() + 8L * s * plan.maxBlocks(), row, fresh, batch.contextTokens()[s], kvLayerOffset);
            }
            row += fresh;
        }
        int attention = layout.attentionColumns();
        blas.gemmRowMajor(tokens, hidden, attention, 1f, b.attn, attention, wO, hidden, false, b.x, hidden, true);
        kernels.launch("rmsnorm", tokens, 1, 1, normThreads(), stream, b.x, norm2, b.y, hidden, NORM_EPS, 0L);
        blas.gemmRowMajor(tokens, 2 * inter, hidden, 1f, b.y, hidden, wGu, 2 * inter, false, b.gu, 2 * inter, false);
        long elements = (long) tokens * inter;
        kernels.launch("swiglu", gridFor(elements), 1, 1, 256, stream, b.gu, b.act, inter, elements);
        blas.gemmRowMajor(tokens, hidden, inter, 1f, b.act, inter, wDown, hidden, false, b.x, hidden, true);
    }

    /**
     * One sequence's prefill attention: its context and new tokens gathered from the blocks, then per chunk
     * of queries S = Q·Kᵀ/√d (batched over KV heads, each covering its query group), the causal softmax in
     * place, O = P·V, and O back into the token-major attention rows.
     */
    private void prefillAttention(long table, int row0, int fresh, int context, long kvLayerOffset) {
        StepBuffers b = buffers;
        int kvHeads = layout.shape().kvHeads();
        int group = layout.group();
        int headDim = layout.shape().headDim();
        int keys = context + fresh;
        kernels.launch("kv_gather", keys, 1, 1, 256, stream, table, layout.blockTokens(), kvHeads, kvLayerOffset, keys,
                b.keys, b.values);
        int chunk = layout.prefillChunkTokens(fresh, keys);
        for (int q0 = 0; q0 < fresh; q0 += chunk) {
            int count = Math.min(chunk, fresh - q0);
            int visible = context + q0 + count;
            int rows = count * group;
            kernels.launch("q_gather", count, 1, 1, 256, stream, b.qkv, layout.qkvColumns(), kvHeads, row0 + q0, count, b.queries);
            blas.gemmRowMajorBatched(rows, visible, headDim, scale(), b.queries, headDim, (long) rows * headDim, b.keys,
                    headDim, (long) keys * headDim, true, b.scores, visible, (long) rows * visible, kvHeads);
            kernels.launch("softmax_causal", rows, kvHeads, 1, 256, stream, b.scores, rows, visible, context + q0);
            blas.gemmRowMajorBatched(rows, headDim, visible, 1f, b.scores, visible, (long) rows * visible, b.values,
                    headDim, (long) keys * headDim, false, b.chunkOut, headDim, (long) rows * headDim, kvHeads);
            kernels.launch("o_scatter", count, 1, 1, 256, stream, b.chunkOut, kvHeads, row0 + q0, count, b.attn);
        }
    }

    /** Fills {@code bytes} of KV at {@code pool} with random bf16 of standard deviation {@code std} (a benchmark's context). */
    public void fillKv(long pool, long bytes, float std) {
        gpu.driver().makeCurrent();
        kernels.launch("fill_random", gridFor(bytes / 2), 1, 1, 256, stream, pool, bytes / 2, seed * 31 + 11, std);
    }

    /** The buffers and weights {@link ForwardCheck} reads back: embeddings, QKV rows, attention rows, W_qkv. */
    long[] checkedBuffers() {
        return new long[] {buffers.x0, buffers.qkv, buffers.attn, wQkv};
    }

    /**
     * Captures {@code batch}'s step into a CUDA graph (after it ran once eagerly, so cuBLAS has chosen its
     * kernels); the executable graph, or 0 when this driver or library refuses the capture (the step then
     * runs eagerly).
     */
    public long capture(ForwardBatch batch) {
        gpu.driver().makeCurrent();
        if (gpu.calls().beginCapture(stream) != CudaApi.SUCCESS) {
            return 0;
        }
        try {
            enqueue(batch);
        } catch (RuntimeException e) {
            gpu.calls().endCaptureAndInstantiate(stream);
            return 0;
        }
        return gpu.calls().endCaptureAndInstantiate(stream);
    }

    /** Waits for the stream; a failure of the step's kernels is CUDA's error, thrown. */
    public void synchronize() {
        check(rt.streamSynchronize(stream), "the step");
    }

    /** The sampled token of each of the last step's {@code sequences} (after {@link #synchronize}). */
    public int[] sampled(int sequences) {
        return MemorySegment.ofAddress(buffers.sampledHost).reinterpret(4L * sequences).toArray(JAVA_INT);
    }

    private float scale() {
        return (float) (1.0 / Math.sqrt(layout.shape().headDim()));
    }

    private int normThreads() {
        return layout.shape().hiddenSize() >= 4096 ? 512 : 256;
    }

    static int gridFor(long elements) {
        return (int) Math.max(1, Math.min(Math.ceilDiv(elements, 256), 8192));
    }

    private long allocate(long bytes) {
        long pointer = rt.malloc(bytes);
        allocations.add(pointer);
        return pointer;
    }

    private long randomWeights(long elements, int which) {
        long pointer = allocate(2 * elements);
        fillRandom(pointer, elements, which);
        return pointer;
    }

    private void fillRandom(long pointer, long elements, int which) {
        kernels.launch("fill_random", gridFor(elements), 1, 1, 256, stream, pointer, elements, seed * 31 + which, WEIGHT_STD);
    }

    private long ones(int elements) {
        long pointer = allocate(2L * elements);
        kernels.launch("fill_value", gridFor(elements), 1, 1, 256, stream, pointer, (long) elements, 1f);
        return pointer;
    }

    private void check(int code, String what) {
        if (code != CudaApi.SUCCESS) {
            throw new IllegalStateException(what + " failed on the GPU: " + rt.errorName(code) + " (" + rt.errorString(code) + ")");
        }
    }

    @Override
    public void close() {
        gpu.driver().makeCurrent();
        int ignored = rt.streamSynchronize(stream);
        blas.close();
        buffers.close();
        for (long pointer : allocations) {
            rt.free(pointer);
        }
        allocations.clear();
        rt.streamDestroy(stream);
    }
}
