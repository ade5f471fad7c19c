package tierlab.sim.device;

import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.ComputePort;
import tierlab.model.io.LayerGroupLoads;

/**
 * What a simulator runtime hands the compute port it opens ({@link ComputePort.Opener}): the virtual
 * clock to complete on, the model thread whose host costs a step pays first, and the layer-group
 * record of the copy port (null: a step computes after its loads, {@code loadLayerGroups = 1}).
 */
public record SimComputeContext(CompletionTimeline timeline, HostThread hostThread, LayerGroupLoads layerGroups) {
    public SimComputeContext {
        if (timeline == null || hostThread == null) {
            throw new IllegalArgumentException("a simulated compute port needs a timeline and a host thread");
        }
    }
}
