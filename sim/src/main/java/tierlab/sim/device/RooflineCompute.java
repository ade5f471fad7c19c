package tierlab.sim.device;

import tierlab.model.geometry.ModelShape;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.IoOp;
import tierlab.model.io.StepShape;

/**
 * The {@code roofline} kind's step time, per GPU of the tensor-parallel group:
 *
 * <pre>
 *   bytes  = weightParameters × weightBytes / tp            (every weight read once per step)
 *          + Σ context tokens × KV bytes per token per GPU   (the cached KV each sequence attends over)
 *   flops  = 2 × activeParameters / tp × Σ new tokens        (the linear layers)
 *          + 4 × layers × queryHeads × headDim / tp
 *              × Σ (new × context + new × (new + 1) / 2)      (QKᵀ and AV over the cached context and the
 *                                                            causal pairs inside the chunk)
 *   compute = flops / (peakBf16FlopsPerSecond × computeEfficiency)
 *   memory  = bytes / (hbmBytesPerSecond × memoryEfficiency)
 *   step    = stepOverheadNs + sequenceNs × sequences + max(compute, memory)   (form max)
 *                                                     + compute + memory      (form sum)
 * </pre>
 *
 * Deterministic arithmetic on doubles, summed in the order of the step's sequences.
 */
public final class RooflineCompute implements ComputeModel {

    /** The max form: compute and memory traffic overlap fully (the roofline proper). */
    public static final String MAX = "max";
    /** The sum form: they do not overlap at all. */
    public static final String SUM = "sum";

    private final boolean sumForm;
    private final double flopsPerSecond;
    private final double bytesPerSecond;
    private final double stepOverheadNs;
    private final double sequenceNs;
    private final double weightBytesPerStep;
    private final double kvBytesPerContextToken;
    private final double linearFlopsPerToken;
    private final double attentionFlopsPerPair;

    /** What one step reads and computes, per GPU: the roofline's two inputs. */
    public record StepCost(double flops, double bytes, int sequences) {}

    public RooflineCompute(GpuSpec gpu, ModelShape shape, String form, double computeEfficiency, double memoryEfficiency,
                           double stepOverheadNs, double sequenceNs) {
        if (!MAX.equals(form) && !SUM.equals(form)) {
            throw new IllegalArgumentException("compute.form: must be max or sum, was " + form);
        }
        if (!shape.hasComputeFields()) {
            throw new IllegalArgumentException("model: the roofline compute model needs the model's hiddenSize,"
                    + " intermediateSize and vocabSize (or its parameters), and model '" + shape.name() + "' has none");
        }
        this.sumForm = SUM.equals(form);
        this.flopsPerSecond = gpu.peakBf16FlopsPerSecond() * computeEfficiency;
        this.bytesPerSecond = gpu.hbmBytesPerSecond() * memoryEfficiency;
        this.stepOverheadNs = stepOverheadNs;
        this.sequenceNs = sequenceNs;
        int tp = shape.tp();
        this.weightBytesPerStep = (double) shape.weightParameters() * shape.weightBytes() / tp;
        this.kvBytesPerContextToken = shape.kvBytesPerTokenPerGpu();
        this.linearFlopsPerToken = 2.0 * shape.activeParameters() / tp;
        this.attentionFlopsPerPair = 4.0 * shape.layers() * shape.queryHeads() * shape.headDim() / tp;
    }

    /** The FLOPs and bytes of one step of {@code shape}'s sequences. */
    public StepCost cost(StepShape shape) {
        return StepTokens.of(shape, new CostSum()).cost();
    }

    /** The cost of a uniform step: {@code batch} sequences of {@code newTokens} over {@code contextTokens} each. */
    public StepCost cost(int batch, long newTokens, long contextTokens) {
        return StepTokens.uniform(batch, newTokens, contextTokens, new CostSum()).cost();
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
        double computeNs = cost.flops() / flopsPerSecond * 1e9;
        double memoryNs = cost.bytes() / bytesPerSecond * 1e9;
        double ns = stepOverheadNs + sequenceNs * cost.sequences()
                + (sumForm ? computeNs + memoryNs : Math.max(computeNs, memoryNs));
        return (long) Math.ceil(ns);
    }

    /** Sums one step's costs sequence by sequence. */
    private final class CostSum implements StepTokens.Sum {
        private double flops;
        private double contextTokens;
        private int sequences;

        @Override
        public void add(long newTokens, long context) {
            double n = newTokens;
            flops += linearFlopsPerToken * n + attentionFlopsPerPair * (n * context + n * (n + 1) / 2);
            contextTokens += context;
            sequences++;
        }

        StepCost cost() {
            return new StepCost(flops, weightBytesPerStep + kvBytesPerContextToken * contextTokens, sequences);
        }
    }
}
