package tierlab.model.io;

import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link ComputeModel} reads of one engine step: per sequence of the batch, the request, its
 * new tokens, the cached context they attend over, and whether the sequence decodes (one new token
 * over a context, finishing no block). A value of its own so a model can be asked about a step that
 * no engine emitted (a calibration sweep, a test) and does not depend on how the engine spells its ops.
 */
public record StepShape(List<Sequence> sequences) {

    /** One request's share of a step. */
    public record Sequence(long requestId, long newTokens, long contextTokens, boolean decode) {
        public Sequence {
            if (newTokens < 0 || contextTokens < 0) {
                throw new IllegalArgumentException("a step's tokens must be >= 0, were " + newTokens + " new over "
                        + contextTokens + " context");
            }
        }
    }

    public StepShape {
        sequences = List.copyOf(sequences);
    }

    /** The shape of {@code step} as the engine emitted it. */
    public static StepShape of(IoOp.Compute step) {
        List<IoOp.ComputeItem> items = step.items();
        List<Sequence> sequences = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            IoOp.ComputeItem item = items.get(i);
            sequences.add(new Sequence(item.requestId(), item.newTokens(), item.contextTokens(), decodes(item)));
        }
        return new StepShape(sequences);
    }

    /**
     * Whether an item decodes: one new token over a context that completes no block. A decode token
     * that completes a block is priced as prefill, as it always was, so the step times (and with them
     * every decision trace) stay what they were.
     */
    public static boolean decodes(IoOp.ComputeItem item) {
        return item.newTokens() == 1 && item.blocksCompleted().isEmpty() && item.contextTokens() > 0;
    }
}
