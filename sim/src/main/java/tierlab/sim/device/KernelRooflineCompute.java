package tierlab.sim.device;

import tierlab.model.geometry.ModelShape;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.IoOp;
import tierlab.model.io.StepShape;

/**
 * The {@code kernel-roofline} kind's step time: a roofline per kernel of a dense decoder's step, summed,
 * because the kernels of one layer run one after another and each is bound by its own compute or its
 * own memory traffic (a decode's GEMMs by their weights, a long prefill's by their FLOPs, attention by
 * the KV it reads or the pairs it multiplies). Per GPU of the tensor-parallel group, for a step of
 * {@code T} new tokens over {@code S} sequences, each of {@code n} new over {@code c} cached tokens:
 *
 * <pre>
 *   GEMM (qkv, o, gate_up, down per layer; the LM head once, over each sequence's last token):
 *       flops = 2 × M × in × out,  bytes = in × out × weightBytes + M × (in + out) × 2
 *       (M = T for the layers, S for the LM head; out or in split over tp)
 *   attention per layer:  flops = 4 × queryHeads/tp × headDim × Σ (n × c + n × (n + 1) / 2)
 *       bytes = Σ (c + n) × 2 × kvHeads/tp × headDim × kvBytes + T × 2 × queryHeads/tp × headDim × 2
 *   element-wise per layer (two norms, two residual adds, the gated activation, the KV write), bytes only:
 *       T × ((4 × hidden + 6 × hidden + 3 × intermediate/tp) × 2 + 2 × kvHeads/tp × headDim × kvBytes)
 *   time of a kernel = max(flops / (peak × its efficiency), bytes / (HBM × memoryEfficiency))
 *   step = Σ kernel times + layerNs × layers + sequenceNs × S + stepOverheadNs
 * </pre>
 *
 * GEMMs run at {@code gemmEfficiency}, attention at {@code attentionEfficiency} of the dense bf16 peak;
 * activations are bf16. {@code layerNs} is the fixed cost of a layer's kernels (launch, ramp, tail)
 * that no rate explains. Only dense models: a mixture of experts (stated parameters) or an MLA latent
 * has another kernel list, which the {@code roofline} kind approximates. Deterministic arithmetic on
 * doubles, summed in the order of the step's sequences and of the kernels.
 */
public final class KernelRooflineCompute implements ComputeModel {

    /** Activations (the GEMMs' inputs and outputs, queries, outputs of attention) are bf16. */
    static final int ACTIVATION_BYTES = 2;

    /** The kernels of a step, in the order their times are summed. */
    public enum Kernel {
        QKV, O, GATE_UP, DOWN, LM_HEAD, ATTENTION, ELEMENTWISE;

        /** Whether the kernel is a GEMM (at {@code gemmEfficiency}); attention has its own, element-wise kernels none. */
        public boolean gemm() {
            return ordinal() <= LM_HEAD.ordinal();
        }
    }

    /** The efficiencies and fixed costs of a step's time. */
    public record Rates(double gemmEfficiency, double attentionEfficiency, double memoryEfficiency, double layerNs,
                        double sequenceNs, double stepOverheadNs) {}

    /**
     * One step's FLOPs and bytes per kernel, over the whole model (per GPU), and its sequences.
     * The arrays are indexed by {@link Kernel#ordinal()}.
     */
    public record StepCost(double[] flops, double[] bytes, int sequences) {
        public StepCost {
            flops = flops.clone();
            bytes = bytes.clone();
        }

        public double flops(Kernel kernel) {
            return flops[kernel.ordinal()];
        }

        public double bytes(Kernel kernel) {
            return bytes[kernel.ordinal()];
        }
    }

    private final GpuSpec gpu;
    private final Rates rates;
    private final int layers;
    private final double[][] layerGemms;
    private final double[] lmHead;
    private final double weightBytes;
    private final double attentionFlopsPerPairPerLayer;
    private final double kvBytesPerTokenPerLayer;
    private final double queryOutputBytesPerTokenPerLayer;
    private final double elementwiseBytesPerTokenPerLayer;

    public KernelRooflineCompute(GpuSpec gpu, ModelShape shape, Rates rates) {
        refuseUnpriceable(shape);
        this.gpu = gpu;
        this.rates = rates;
        int tp = shape.tp();
        double hidden = shape.hiddenSize();
        double headDim = shape.headDim();
        double queryWidth = (double) shape.queryHeads() * headDim / tp;
        double kvHeadsPerGpu = Math.ceilDiv(shape.kvHeads(), tp);
        double kvWidth = kvHeadsPerGpu * headDim;
        double intermediate = (double) shape.intermediateSize() / tp;
        this.layers = shape.layers();
        this.layerGemms = new double[][] {
            {hidden, queryWidth + 2 * kvWidth}, {queryWidth, hidden}, {hidden, 2 * intermediate}, {intermediate, hidden}};
        this.lmHead = new double[] {hidden, (double) shape.vocabSize() / tp};
        this.weightBytes = shape.weightBytes();
        this.attentionFlopsPerPairPerLayer = 4 * queryWidth;
        this.kvBytesPerTokenPerLayer = 2 * kvWidth * shape.dtypeBytes();
        this.queryOutputBytesPerTokenPerLayer = 2 * queryWidth * ACTIVATION_BYTES;
        this.elementwiseBytesPerTokenPerLayer = (10 * hidden + 3 * intermediate) * ACTIVATION_BYTES
                + kvBytesPerTokenPerLayer;
    }

    private static void refuseUnpriceable(ModelShape shape) {
        if (shape.hiddenSize() == 0 || shape.intermediateSize() == 0 || shape.vocabSize() == 0) {
            throw new IllegalArgumentException("model: the kernel-roofline compute model needs the model's hiddenSize,"
                    + " intermediateSize and vocabSize, and model '" + shape.name() + "' lacks one");
        }
        if (shape.parameterCount() > 0 || shape.latentKv()) {
            throw new IllegalArgumentException("model: the kernel-roofline compute model prices dense models with per-head"
                    + " KV, and model '" + shape.name() + "' is " + (shape.latentKv() ? "an MLA model" : "a stated-parameter"
                    + " (mixture-of-experts) model") + "; use the roofline kind");
        }
    }

    /** The FLOPs and bytes of one step of {@code shape}'s sequences. */
    public StepCost cost(StepShape shape) {
        return StepTokens.of(shape, new CostSum()).cost();
    }

    /** The cost of a uniform step: {@code batch} sequences of {@code newTokens} over {@code contextTokens} each. */
    public StepCost cost(int batch, long newTokens, long contextTokens) {
        return StepTokens.uniform(batch, newTokens, contextTokens, new CostSum()).cost();
    }

    /** The model's layers, whose count multiplies {@code layerNs}. */
    public int layers() {
        return layers;
    }

    @Override
    public long stepNs(StepShape shape) {
        return stepNs(cost(shape));
    }

    @Override
    public long stepNs(IoOp.Compute step) {
        return stepNs(StepTokens.of(step, new CostSum()).cost());
    }

    /** The step time of a step with {@code cost}, rounded up to a whole nanosecond. */
    public long stepNs(StepCost cost) {
        double ns = rates.stepOverheadNs() + rates.layerNs() * layers + rates.sequenceNs() * cost.sequences();
        for (Kernel kernel : Kernel.values()) {
            double efficiency = kernel.gemm() ? rates.gemmEfficiency() : rates.attentionEfficiency();
            double computeNs = cost.flops(kernel) / (gpu.peakBf16FlopsPerSecond() * efficiency) * 1e9;
            double memoryNs = cost.bytes(kernel) / (gpu.hbmBytesPerSecond() * rates.memoryEfficiency()) * 1e9;
            ns += Math.max(computeNs, memoryNs);
        }
        return (long) Math.ceil(ns);
    }

    /** Sums a step's token counts sequence by sequence; the kernels' costs are linear in them. */
    private final class CostSum implements StepTokens.Sum {
        private double tokens;
        private double pairs;
        private double kvTokens;
        private int sequences;

        @Override
        public void add(long newTokens, long context) {
            double n = newTokens;
            tokens += n;
            pairs += n * context + n * (n + 1) / 2;
            kvTokens += context + n;
            sequences++;
        }

        StepCost cost() {
            int kernels = Kernel.values().length;
            double[] flops = new double[kernels];
            double[] bytes = new double[kernels];
            for (int k = 0; k < layerGemms.length; k++) {
                double in = layerGemms[k][0];
                double out = layerGemms[k][1];
                flops[k] = layers * 2 * tokens * in * out;
                bytes[k] = layers * (in * out * weightBytes + tokens * (in + out) * ACTIVATION_BYTES);
            }
            int head = Kernel.LM_HEAD.ordinal();
            flops[head] = 2.0 * sequences * lmHead[0] * lmHead[1];
            bytes[head] = lmHead[0] * lmHead[1] * weightBytes + sequences * (lmHead[0] + lmHead[1]) * ACTIVATION_BYTES;
            int attention = Kernel.ATTENTION.ordinal();
            flops[attention] = layers * attentionFlopsPerPairPerLayer * pairs;
            bytes[attention] = layers * (kvTokens * kvBytesPerTokenPerLayer + tokens * queryOutputBytesPerTokenPerLayer);
            bytes[Kernel.ELEMENTWISE.ordinal()] = layers * tokens * elementwiseBytesPerTokenPerLayer;
            return new StepCost(flops, bytes, sequences);
        }
    }
}
