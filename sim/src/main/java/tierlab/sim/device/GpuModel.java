package tierlab.sim.device;

import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.ComputePort;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;
import tierlab.model.io.OpSink;

/**
 * The simulator's compute port: engine-step durations from a {@link ComputeModel} (a profile's:
 * {@link GpuProfile#computeModel()}, the live runtime's too, so a profile means the same in sim and
 * live mode), steps one at a time, completions on the virtual clock.
 */
public final class GpuModel implements ComputePort {
    private final ComputeModel model;
    private final CompletionTimeline timeline;
    private final HostThread hostThread;
    private long steps;
    private long busyNs;
    /** Null: a step computes after its loads (loadLayerGroups = 1, the default). */
    private LayerGroupLoads layerGroups;

    /** Steps that cost the host nothing to schedule. */
    public GpuModel(GpuProfile profile, CompletionTimeline timeline) {
        this(profile, timeline, new HostThread(new HostProfile(0, 0)));
    }

    /** Each step first takes the engine-step cost on {@code hostThread} (0 in every preset). */
    public GpuModel(GpuProfile profile, CompletionTimeline timeline, HostThread hostThread) {
        this(profile.computeModel(), timeline, hostThread);
    }

    public GpuModel(ComputeModel model, CompletionTimeline timeline, HostThread hostThread) {
        this.hostThread = hostThread;
        this.model = model;
        this.timeline = timeline;
    }

    /** Opens a GPU model of {@code model} on a runtime's clock, host thread and layer groups. */
    public static ComputePort.Opener<SimComputeContext> opener(ComputeModel model) {
        return context -> {
            GpuModel gpu = new GpuModel(model, context.timeline(), context.hostThread());
            gpu.setLayerGroups(context.layerGroups());
            return gpu;
        };
    }

    /** Computes steps layer group by layer group behind the loads that {@code loads} records (null: whole steps). */
    public void setLayerGroups(LayerGroupLoads loads) {
        this.layerGroups = loads;
    }

    @Override
    public void step(IoOp.Compute step, OpSink sink) {
        long startNs = hostThread.step(timeline.nowNs());
        long durationNs = stepNs(step);
        timeline.completeAt(step, layerGroups == null ? startNs + durationNs : layerGroups.stepEndNs(startNs, durationNs), sink);
    }

    /** How long {@code compute} takes (counted as a step of this GPU). */
    public long stepNs(IoOp.Compute compute) {
        long duration = model.stepNs(compute);
        steps++;
        busyNs += duration;
        return duration;
    }

    public long steps() { return steps; }
    public long busyNs() { return busyNs; }
}
