package tierlab.engine.cuda.compute;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tierlab.engine.cuda.CudaApi;
import tierlab.model.geometry.ModelShape;

/**
 * The forward pass's kernels against a CPU reference, on the GPU, on a one-layer shape small enough to
 * recompute: a mixed step (a prefill chunk over a context that ends inside a block, a decode, a prefill
 * without context) over blocks laid out out of order. Read back and compared: the QKV rows (RMSNorm and
 * the GEMM's operand order), the new tokens' K and V in their blocks (exactly), and every query head's
 * attention output (decode split and reduce, prefill gather, scores, causal softmax, P·V, scatter).
 */
public final class ForwardCheck {

    /** Relative RMS error allowed where bf16 rounding enters (scores and outputs are bf16). */
    static final double TOLERANCE = 0.02;
    static final ModelShape SHAPE = new ModelShape("kernel-check", 1, 8, 2, 128, 2, 1024, 2048, 1000, 2, 0, 0, 1, 0, 0);
    // Decodes over 38, 301 and 518 tokens: several splits each spanning several blocks, and splits past the
    // shorter sequences' ends, beside a prefill over cached context and one without.
    static final int[] NEW = {40, 1, 20, 1, 1};
    static final int[] CONTEXT = {24, 37, 0, 300, 517};

    /** Each comparison's relative error, and whether all are within {@link #TOLERANCE}. */
    public record Report(AttentionPath attention, double qkvError, long kvMismatches, double attentionError, boolean sampledInRange) {
        public boolean passed() {
            return qkvError <= TOLERANCE && kvMismatches == 0 && attentionError <= TOLERANCE && sampledInRange;
        }

        public String summary() {
            return String.format(Locale.ROOT, "%s (attention %s): QKV rows %.2e, attention %.2e (relative RMS, within %.0e), new K/V in blocks %d mismatched, sampled tokens %s",
                    passed() ? "passed" : "FAILED", attention, qkvError, attentionError, TOLERANCE, kvMismatches,
                    sampledInRange ? "in range" : "out of range");
        }
    }

    private ForwardCheck() {}

    public static Report run(GpuContext gpu) {
        return run(gpu, AttentionPath.FAST);
    }

    public static Report run(GpuContext gpu, AttentionPath attention) {
        ForwardLayout layout = new ForwardLayout(SHAPE, StepBench.BLOCK_TOKENS);
        CudaApi rt = gpu.runtime();
        List<Long> order = new ArrayList<>();
        long[][] tables = new long[NEW.length][];
        int blocks = 0;
        for (int s = 0; s < NEW.length; s++) {
            tables[s] = new long[layout.blocksFor((long) NEW[s] + CONTEXT[s])];
            blocks += tables[s].length;
        }
        long blockBytes = layout.kvLayerBytesPerBlock();
        long pool = rt.malloc(blocks * blockBytes);
        try (CudaForwardPass pass = new CudaForwardPass(gpu, layout, blockBytes, 7, attention); Arena arena = Arena.ofConfined()) {
            int next = blocks - 1; // the last block of the pool first: tables, not addresses, give the order
            for (long[] table : tables) {
                for (int k = 0; k < table.length; k++) {
                    table[k] = pool + (next--) * blockBytes;
                    order.add(table[k]);
                }
            }
            pass.fillKv(pool, blocks * blockBytes, 3f);
            ForwardBatch batch = new ForwardBatch(NEW, CONTEXT, tables);
            pass.reserve(batch);
            pass.enqueue(batch);
            pass.synchronize();
            int tokens = batch.totalNewTokens();
            long[] buffers = pass.checkedBuffers();
            float[] x0 = read(rt, arena, buffers[0], (long) tokens * SHAPE.hiddenSize());
            float[] qkv = read(rt, arena, buffers[1], (long) tokens * layout.qkvColumns());
            float[] attn = read(rt, arena, buffers[2], (long) tokens * layout.attentionColumns());
            float[] wQkv = read(rt, arena, buffers[3], (long) SHAPE.hiddenSize() * layout.qkvColumns());
            float[] kv = read(rt, arena, pool, blocks * blockBytes / 2);
            int[] sampled = pass.sampled(NEW.length);
            boolean inRange = true;
            for (int token : sampled) {
                inRange &= token >= 0 && token < SHAPE.vocabSize();
            }
            Reference reference = new Reference(layout, pool, kv);
            return new Report(pass.attention(), reference.qkvError(x0, wQkv, qkv), reference.kvMismatches(batch, qkv),
                    reference.attentionError(batch, qkv, attn), inRange);
        } finally {
            rt.free(pool);
        }
    }

    private static float[] read(CudaApi rt, Arena arena, long device, long elements) {
        MemorySegment host = arena.allocate(2 * elements, 16);
        int code = rt.memcpy(host.address(), device, 2 * elements, CudaApi.MEMCPY_DEVICE_TO_HOST);
        if (code != CudaApi.SUCCESS) {
            throw new IllegalStateException("reading back the check's buffers failed: " + rt.errorName(code));
        }
        float[] out = new float[Math.toIntExact(elements)];
        for (int i = 0; i < out.length; i++) {
            out[i] = Float.intBitsToFloat((host.getAtIndex(JAVA_SHORT, i) & 0xffff) << 16);
        }
        return out;
    }

    static int intAt(MemorySegment segment, long index) {
        return segment.getAtIndex(JAVA_INT, index);
    }
}
