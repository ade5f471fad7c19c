package tierlab.model.io;

/**
 * How long an engine step takes on a GPU, from the step's shape alone. Every mode asks the same model
 * (the simulator's GPU port schedules a step's completion after it, the live runtime's timed compute
 * port waits it out), so a profile means the same in sim, hybrid and live mode. {@link ComputeTiming},
 * the linear formula of the device profiles, is the one the profiles build
 * ({@code GpuProfile.computeModel()} in the simulator's device package).
 */
@FunctionalInterface
public interface ComputeModel {

    /** The step's duration in nanoseconds (>= 0). */
    long stepNs(StepShape shape);

    /** The duration of a step as the engine emitted it; implementations may skip building the shape. */
    default long stepNs(IoOp.Compute step) {
        return stepNs(StepShape.of(step));
    }
}
