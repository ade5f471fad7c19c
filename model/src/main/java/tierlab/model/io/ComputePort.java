package tierlab.model.io;

/**
 * The compute port: where an engine step (a forward pass over a batch) meets a GPU. A GPU model in
 * simulation, a timed delay on a machine without a GPU in live mode (both from
 * {@link ComputeTiming}). {@code submit} returns at once; the step is reported to the sink exactly
 * once, when it is done.
 */
public interface ComputePort {

    void step(IoOp.Compute step, OpSink sink);
}
