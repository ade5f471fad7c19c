package tierlab.engine.live;

import java.util.function.Consumer;
import tierlab.model.io.ComputePort;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;

/**
 * What a {@link LiveRuntime} hands the compute port it opens ({@link ComputePort.Opener}). The sink a
 * port is given with each step may be called from any thread (the runtime hands the completion back
 * to the model thread through its queue), and at most once per step.
 *
 * @param layerGroups    with layer-wise loading, the record of each layer group's landing that the copy
 *                       port keeps (locked on itself: the copy stream writes it); null: whole loads
 * @param blocksComputed writes the payloads of the blocks a finished step completed where the next
 *                       staging copy reads them (host buffers or the GPU), so verified saves hold; a
 *                       port calls it once per step, before it reports the step
 * @param streamFailure  where a port reports a bug on its own thread (the run then ends with it)
 */
public record LiveComputeContext(LayerGroupLoads layerGroups, Consumer<IoOp.Compute> blocksComputed,
                                 StreamFailure streamFailure) {

    /** A compute port's thread failed on a step: a bug, not an I/O error. */
    @FunctionalInterface
    public interface StreamFailure {
        void failed(IoOp.Compute step, Throwable failure);
    }

    public LiveComputeContext {
        if (blocksComputed == null || streamFailure == null) {
            throw new IllegalArgumentException("a live compute port needs the block writer and the failure hook");
        }
    }
}
