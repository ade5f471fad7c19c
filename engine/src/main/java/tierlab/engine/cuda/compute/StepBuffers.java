package tierlab.engine.cuda.compute;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import tierlab.engine.cuda.CudaApi;

/**
 * The device buffers of a step (activations, attention scratch, logits) grown to the largest step seen,
 * and the step's tables: written into pinned host memory by {@link #plan} and copied to the device by the
 * step itself, so that a step captured into a CUDA graph carries its own tables.
 */
final class StepBuffers implements AutoCloseable {

    /** Where the step's tables lie on the device, and the decode split. */
    record Plan(int tokens, int maxBlocks, int decodes, int splits, int splitTokens, long metaBytes, long tokenSeq,
                long tokenPos, long tables, long decodeRow, long decodeLength, long decodeTables, long lastRow) {}

    private final CudaApi rt;
    private final ForwardLayout layout;
    private final int decodeBlocksPerSm;
    private final List<long[]> slots = new ArrayList<>();
    int tokens;
    long x0;
    long x;
    long y;
    long qkv;
    long attn;
    long gu;
    long act;
    long keys;
    long values;
    long queries;
    long chunkOut;
    long scores;
    long partO;
    long partML;
    long lastY;
    long logits;
    long sampledDevice;
    long metaDevice;
    long metaHost;
    long sampledHost;
    private long metaHostBytes;
    private long sampledHostBytes;

    StepBuffers(CudaApi rt, ForwardLayout layout, int decodeBlocksPerSm) {
        this.rt = rt;
        this.layout = layout;
        this.decodeBlocksPerSm = decodeBlocksPerSm;
    }

    /** Grows every buffer {@code batch} needs; true when the embeddings' buffer was (re)allocated. */
    boolean reserve(ForwardBatch batch, int multiprocessors) {
        int t = batch.totalNewTokens();
        int sequences = batch.sequences();
        int hidden = layout.shape().hiddenSize();
        int inter = layout.shape().intermediateSize();
        boolean embeddingsGrow = slots.isEmpty() || 2L * t * hidden > slots.getFirst()[1];
        x0 = grow(0, 2L * t * hidden);
        tokens = Math.max(tokens, t);
        x = grow(1, 2L * t * hidden);
        y = grow(2, 2L * t * hidden);
        qkv = grow(3, 2L * t * layout.qkvColumns());
        attn = grow(4, 2L * t * layout.attentionColumns());
        gu = grow(5, 4L * t * inter);
        act = grow(6, 2L * t * inter);
        long keyBytes = 0;
        long chunkBytes = 0;
        long scoreBytes = 0;
        for (int s = 0; s < sequences; s++) {
            int fresh = batch.newTokens()[s];
            if (fresh > 1) {
                long all = (long) fresh + batch.contextTokens()[s];
                int chunk = layout.prefillChunkTokens(fresh, all);
                keyBytes = Math.max(keyBytes, 2L * layout.shape().kvHeads() * all * layout.shape().headDim());
                chunkBytes = Math.max(chunkBytes, 2L * chunk * layout.attentionColumns());
                scoreBytes = Math.max(scoreBytes, 2L * chunk * layout.shape().queryHeads() * all);
            }
        }
        keys = grow(7, keyBytes);
        values = grow(8, keyBytes);
        queries = grow(9, chunkBytes);
        chunkOut = grow(10, chunkBytes);
        scores = grow(11, scoreBytes);
        long parts = decodeParts(batch, multiprocessors);
        partO = grow(12, 4L * parts * layout.shape().headDim());
        partML = grow(13, 8L * parts);
        lastY = grow(14, 2L * sequences * hidden);
        logits = grow(15, 2L * sequences * layout.shape().vocabSize());
        sampledDevice = grow(16, 4L * sequences);
        long meta = metaBytes(batch);
        metaDevice = grow(17, meta);
        if (meta > metaHostBytes) {
            freeHost(metaHost);
            metaHost = rt.mallocHost(meta);
            metaHostBytes = meta;
        }
        if (4L * sequences > sampledHostBytes) {
            freeHost(sampledHost);
            sampledHost = rt.mallocHost(4L * sequences);
            sampledHostBytes = 4L * sequences;
        }
        return embeddingsGrow;
    }

    /** (decode sequence, KV head, split, query head) partial results the decode attention writes. */
    private long decodeParts(ForwardBatch batch, int multiprocessors) {
        int decodes = batch.decodes();
        if (decodes == 0) {
            return 0;
        }
        long maxLength = decodeMaxLength(batch);
        int splitTokens = layout.decodeSplitTokens(decodes, maxLength, multiprocessors, decodeBlocksPerSm);
        return (long) decodes * layout.shape().kvHeads() * ForwardLayout.splits(maxLength, splitTokens) * layout.group();
    }

    private static long decodeMaxLength(ForwardBatch batch) {
        long max = 0;
        for (int s = 0; s < batch.sequences(); s++) {
            if (batch.newTokens()[s] == 1) {
                max = Math.max(max, 1L + batch.contextTokens()[s]);
            }
        }
        return max;
    }

    private static int intCount(ForwardBatch batch) {
        return 2 * batch.totalNewTokens() + 2 * batch.decodes() + batch.sequences();
    }

    static long metaBytes(ForwardBatch batch) {
        long ints = 8L * Math.ceilDiv(4L * intCount(batch), 8);
        return ints + 8L * (batch.sequences() + batch.decodes()) * Math.max(1, batch.maxBlocks());
    }

    /** Writes the step's tables into the pinned host buffer (the buffers must have been reserved for it). */
    Plan plan(ForwardBatch batch, int multiprocessors) {
        int t = batch.totalNewTokens();
        int sequences = batch.sequences();
        int decodes = batch.decodes();
        int maxBlocks = Math.max(1, batch.maxBlocks());
        long bytes = metaBytes(batch);
        if (bytes > metaHostBytes || t > tokens) {
            throw new IllegalStateException("the step buffers were not reserved for this batch");
        }
        MemorySegment host = MemorySegment.ofAddress(metaHost).reinterpret(bytes);
        long tokenSeq = 0;
        long tokenPos = 4L * t;
        long decodeRow = 8L * t;
        long decodeLength = decodeRow + 4L * decodes;
        long lastRow = decodeLength + 4L * decodes;
        long tables = 8L * Math.ceilDiv(4L * intCount(batch), 8);
        long decodeTables = tables + 8L * sequences * maxBlocks;
        int row = 0;
        int d = 0;
        for (int s = 0; s < sequences; s++) {
            int fresh = batch.newTokens()[s];
            int context = batch.contextTokens()[s];
            for (int i = 0; i < fresh; i++) {
                host.setAtIndex(JAVA_INT, tokenSeq / 4 + row + i, s);
                host.setAtIndex(JAVA_INT, tokenPos / 4 + row + i, context + i);
            }
            long[] blocks = batch.blockAddresses()[s];
            for (int k = 0; k < maxBlocks; k++) {
                host.setAtIndex(JAVA_LONG, tables / 8 + (long) s * maxBlocks + k, k < blocks.length ? blocks[k] : 0L);
            }
            if (fresh == 1) {
                host.setAtIndex(JAVA_INT, decodeRow / 4 + d, row);
                host.setAtIndex(JAVA_INT, decodeLength / 4 + d, context + 1);
                MemorySegment.copy(host, tables + 8L * s * maxBlocks, host, decodeTables + 8L * d * maxBlocks, 8L * maxBlocks);
                d++;
            }
            host.setAtIndex(JAVA_INT, lastRow / 4 + s, row + fresh - 1);
            row += fresh;
        }
        long maxLength = decodeMaxLength(batch);
        int splitTokens = decodes == 0 ? 1 : layout.decodeSplitTokens(decodes, maxLength, multiprocessors, decodeBlocksPerSm);
        int splits = decodes == 0 ? 1 : ForwardLayout.splits(maxLength, splitTokens);
        long base = metaDevice;
        return new Plan(t, maxBlocks, decodes, splits, splitTokens, bytes, base + tokenSeq, base + tokenPos, base + tables,
                base + decodeRow, base + decodeLength, base + decodeTables, base + lastRow);
    }

    private long grow(int slot, long bytes) {
        while (slots.size() <= slot) {
            slots.add(new long[] {0, 0});
        }
        long[] held = slots.get(slot);
        long need = Math.max(bytes, 256);
        if (need > held[1]) {
            if (held[0] != 0) {
                rt.free(held[0]);
            }
            held[0] = rt.malloc(need);
            held[1] = need;
        }
        return held[0];
    }

    private void freeHost(long pointer) {
        if (pointer != 0) {
            rt.freeHost(pointer);
        }
    }

    @Override
    public void close() {
        for (long[] held : slots) {
            if (held[0] != 0) {
                rt.free(held[0]);
            }
        }
        slots.clear();
        freeHost(metaHost);
        freeHost(sampledHost);
        metaHost = 0;
        sampledHost = 0;
    }
}
