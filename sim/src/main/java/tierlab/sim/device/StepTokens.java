package tierlab.sim.device;

import java.util.List;
import tierlab.model.io.IoOp;
import tierlab.model.io.StepShape;

/**
 * Feeds a step's sequences, in their order, to a cost sum: both roofline kinds price a step from each
 * sequence's new and cached token counts, whether the step comes as a shape or as an engine's op.
 */
final class StepTokens {

    /** What sums a step's sequences. */
    interface Sum {
        void add(long newTokens, long contextTokens);
    }

    private StepTokens() {
    }

    static <S extends Sum> S of(StepShape shape, S sum) {
        List<StepShape.Sequence> sequences = shape.sequences();
        for (int i = 0; i < sequences.size(); i++) {
            sum.add(sequences.get(i).newTokens(), sequences.get(i).contextTokens());
        }
        return sum;
    }

    static <S extends Sum> S of(IoOp.Compute step, S sum) {
        List<IoOp.ComputeItem> items = step.items();
        for (int i = 0; i < items.size(); i++) {
            sum.add(items.get(i).newTokens(), items.get(i).contextTokens());
        }
        return sum;
    }

    /** {@code batch} sequences of {@code newTokens} over {@code contextTokens} each. */
    static <S extends Sum> S uniform(int batch, long newTokens, long contextTokens, S sum) {
        for (int i = 0; i < batch; i++) {
            sum.add(newTokens, contextTokens);
        }
        return sum;
    }
}
