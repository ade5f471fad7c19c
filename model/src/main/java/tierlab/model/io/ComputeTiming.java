package tierlab.model.io;

import java.util.List;

/**
 * The device profiles' compute model: a fixed step cost, a per-token prefill cost, an attention cost
 * per (new token × cached token) pair, a per-sequence decode cost. It lives in the model so the
 * simulator's GPU port and the live runtime's timed step both reach it without sim importing engine.
 */
public record ComputeTiming(long stepOverheadNs, double prefillNsPerToken, double attentionNsPerTokenPair,
                            long decodeNsPerSequence) implements ComputeModel {

    public ComputeTiming {
        if (stepOverheadNs < 0 || prefillNsPerToken < 0 || attentionNsPerTokenPair < 0 || decodeNsPerSequence < 0) {
            throw new IllegalArgumentException("compute timing terms must be >= 0");
        }
    }

    @Override
    public long stepNs(StepShape shape) {
        double ns = stepOverheadNs;
        List<StepShape.Sequence> sequences = shape.sequences();
        for (int i = 0; i < sequences.size(); i++) {
            StepShape.Sequence sequence = sequences.get(i);
            ns = plusSequence(ns, sequence.newTokens(), sequence.contextTokens(), sequence.decode());
        }
        return (long) Math.ceil(ns);
    }

    /** The same sum over the engine's items directly: every simulated step comes through here, and a shape each time is garbage. */
    @Override
    public long stepNs(IoOp.Compute compute) {
        double ns = stepOverheadNs;
        List<IoOp.ComputeItem> items = compute.items();
        for (int i = 0; i < items.size(); i++) {
            IoOp.ComputeItem item = items.get(i);
            ns = plusSequence(ns, item.newTokens(), item.contextTokens(), StepShape.decodes(item));
        }
        return (long) Math.ceil(ns);
    }

    /** One sequence's terms added to {@code ns}, in the order the sum was always taken (so the doubles round the same). */
    private double plusSequence(double ns, long newTokens, long contextTokens, boolean decode) {
        ns += decode ? decodeNsPerSequence : prefillNsPerToken * newTokens;
        ns += attentionNsPerTokenPair * newTokens * (double) contextTokens;
        return ns;
    }
}
