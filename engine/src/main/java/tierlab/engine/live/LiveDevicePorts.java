package tierlab.engine.live;

import java.util.function.Consumer;
import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.ComputePort;
import tierlab.model.io.ComputeTiming;
import tierlab.model.io.CopyPort;
import tierlab.model.io.IoOp;
import tierlab.model.io.OpSink;

/**
 * The live runtime's copy and compute ports on a machine without a GPU: copies are real memcpys
 * into device-side buffers ({@link DeviceMemory}, verified against their payloads) and complete at
 * once; a compute step marks its blocks written and completes after the {@link ComputeTiming} delay.
 * With a GPU, only the compute half is used: the copies go to the CUDA copy port, and a compute
 * step's blocks are written there ({@code computed}).
 */
final class LiveDevicePorts implements CopyPort, ComputePort {
    private final DeviceMemory device;
    private final ComputeTiming timing;
    private final CompletionTimeline timeline;
    private final Consumer<IoOp.Compute> computed;
    private long computeSteps;

    LiveDevicePorts(DeviceMemory device, ComputeTiming timing, CompletionTimeline timeline) {
        this(device, timing, timeline, device::computed);
    }

    /** @param computed where a finished compute step's blocks are written (host buffers or the GPU) */
    LiveDevicePorts(DeviceMemory device, ComputeTiming timing, CompletionTimeline timeline, Consumer<IoOp.Compute> computed) {
        this.device = device;
        this.timing = timing;
        this.timeline = timeline;
        this.computed = computed;
    }

    @Override
    public void toGpu(IoOp.CopyToGpu copy, OpSink sink) {
        device.load(copy);
        timeline.completeAt(copy, timeline.nowNs(), sink);
    }

    @Override
    public void fromGpu(IoOp.CopyFromGpu copy, OpSink sink) {
        device.stage(copy);
        timeline.completeAt(copy, timeline.nowNs(), sink);
    }

    @Override
    public void step(IoOp.Compute step, OpSink sink) {
        computeSteps++;
        computed.accept(step);
        timeline.completeAt(step, timeline.nowNs() + timing.stepNs(step), sink);
    }

    long computeSteps() {
        return computeSteps;
    }
}
