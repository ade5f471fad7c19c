package tierlab.model.io;

/**
 * The compute port: where an engine step (a forward pass over a batch) meets a GPU. The simulator's
 * GPU model schedules the step's completion after its {@link ComputeModel} time; the live runtime's
 * port on a machine without a GPU waits that time out; a port that runs a real kernel plugs in at the
 * same place. {@code step} returns at once; the step is reported to the sink exactly once, when it is done.
 *
 * <p>What a port sees of each step is {@link IoOp.Compute}: the batch's requests, each with its new
 * tokens, its cached context tokens and the GPU blocks it completes ({@link StepShape#of} is the
 * shape a model prices).
 */
public interface ComputePort {

    void step(IoOp.Compute step, OpSink sink);

    /**
     * Opens a runtime's compute port once the runtime has built what a port runs on: its clock, its
     * host thread, its layer-group record, where computed blocks' bytes go ({@code C}, one record per
     * runtime). Runtimes are handed one of these rather than a ready port because a port completes on
     * the runtime's clock, which does not exist before the runtime does.
     */
    @FunctionalInterface
    interface Opener<C> {
        ComputePort open(C context);
    }
}
