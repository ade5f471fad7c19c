package tierlab.engine.cuda.compute;

/**
 * The CPU side of {@link ForwardCheck}: the same layer computed in doubles from what the GPU read
 * (embeddings, weights, KV blocks) and what it produced (the QKV rows feed the attention reference, so
 * each comparison tests one stage).
 */
final class Reference {

    private final ForwardLayout layout;
    private final long pool;
    private final float[] kv;

    Reference(ForwardLayout layout, long pool, float[] kv) {
        this.layout = layout;
        this.pool = pool;
        this.kv = kv;
    }

    double qkvError(float[] x0, float[] wQkv, float[] qkv) {
        int hidden = layout.shape().hiddenSize();
        int columns = layout.qkvColumns();
        int tokens = qkv.length / columns;
        double error = 0;
        double norm = 0;
        for (int t = 0; t < tokens; t++) {
            double squares = 0;
            for (int i = 0; i < hidden; i++) {
                squares += (double) x0[t * hidden + i] * x0[t * hidden + i];
            }
            double inv = 1 / Math.sqrt(squares / hidden + CudaForwardPass.NORM_EPS);
            double[] row = new double[columns];
            for (int i = 0; i < hidden; i++) {
                double y = bf16(x0[t * hidden + i] * inv);
                for (int c = 0; c < columns; c++) {
                    row[c] += y * wQkv[i * columns + c];
                }
            }
            for (int c = 0; c < columns; c++) {
                double d = qkv[t * columns + c] - row[c];
                error += d * d;
                norm += row[c] * row[c];
            }
        }
        return Math.sqrt(error / norm);
    }

    /** The element of K (v = 0) or V (v = 1) of {@code head}, dimension {@code e}, at {@code pos} of a sequence. */
    private float kvAt(long[] table, int pos, int v, int head, int e) {
        int block = layout.blockTokens();
        int kvHeads = layout.shape().kvHeads();
        int headDim = layout.shape().headDim();
        long blockIndex = (table[pos / block] - pool) / layout.kvLayerBytesPerBlock();
        long element = blockIndex * layout.kvLayerBytesPerBlock() / 2
                + (((long) v * block + pos % block) * kvHeads + head) * headDim + e;
        return kv[Math.toIntExact(element)];
    }

    long kvMismatches(ForwardBatch batch, float[] qkv) {
        int columns = layout.qkvColumns();
        int qHeads = layout.shape().queryHeads();
        int kvHeads = layout.shape().kvHeads();
        int headDim = layout.shape().headDim();
        long mismatches = 0;
        int row = 0;
        for (int s = 0; s < batch.sequences(); s++) {
            for (int i = 0; i < batch.newTokens()[s]; i++) {
                int pos = batch.contextTokens()[s] + i;
                for (int v = 0; v < 2; v++) {
                    for (int h = 0; h < kvHeads; h++) {
                        for (int e = 0; e < headDim; e++) {
                            float want = qkv[(row + i) * columns + (qHeads + v * kvHeads + h) * headDim + e];
                            if (Float.compare(want, kvAt(batch.blockAddresses()[s], pos, v, h, e)) != 0) {
                                mismatches++;
                            }
                        }
                    }
                }
            }
            row += batch.newTokens()[s];
        }
        return mismatches;
    }

    double attentionError(ForwardBatch batch, float[] qkv, float[] attn) {
        int columns = layout.qkvColumns();
        int qHeads = layout.shape().queryHeads();
        int headDim = layout.shape().headDim();
        int group = layout.group();
        double scale = 1 / Math.sqrt(headDim);
        double error = 0;
        double norm = 0;
        int row = 0;
        for (int s = 0; s < batch.sequences(); s++) {
            long[] table = batch.blockAddresses()[s];
            for (int i = 0; i < batch.newTokens()[s]; i++) {
                int pos = batch.contextTokens()[s] + i;
                for (int h = 0; h < qHeads; h++) {
                    double[] scores = new double[pos + 1];
                    double max = Double.NEGATIVE_INFINITY;
                    for (int k = 0; k <= pos; k++) {
                        double dot = 0;
                        for (int e = 0; e < headDim; e++) {
                            dot += qkv[(row + i) * columns + h * headDim + e] * kvAt(table, k, 0, h / group, e);
                        }
                        scores[k] = dot * scale;
                        max = Math.max(max, scores[k]);
                    }
                    double sum = 0;
                    for (int k = 0; k <= pos; k++) {
                        scores[k] = Math.exp(scores[k] - max);
                        sum += scores[k];
                    }
                    for (int e = 0; e < headDim; e++) {
                        double out = 0;
                        for (int k = 0; k <= pos; k++) {
                            out += scores[k] / sum * kvAt(table, k, 1, h / group, e);
                        }
                        double d = attn[(row + i) * qHeads * headDim + h * headDim + e] - out;
                        error += d * d;
                        norm += out * out;
                    }
                }
            }
            row += batch.newTokens()[s];
        }
        return Math.sqrt(error / norm);
    }

    /** {@code value} rounded to bf16 as the kernels round (to nearest, ties to even). */
    static double bf16(double value) {
        int bits = Float.floatToRawIntBits((float) value);
        bits += 0x7fff + ((bits >>> 16) & 1);
        return Float.intBitsToFloat(bits & 0xffff0000);
    }
}
