package tierlab.sim.device;

import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.ComputePort;
import tierlab.model.io.ComputeTiming;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;
import tierlab.model.io.OpSink;

/**
 * The simulator's compute port: engine-step durations from a {@link GpuProfile}, steps one at a
 * time, completions on the virtual clock. The step formula is {@link ComputeTiming}, the live
 * runtime's too, so a profile means the same in sim and live mode.
 */
public final class GpuModel implements ComputePort {
    private final ComputeTiming timing;
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
        this.hostThread = hostThread;
        this.timing = new ComputeTiming(profile.stepOverheadNs(), profile.prefillNsPerToken(),
                profile.attentionNsPerTokenPair(), profile.decodeNsPerSequence());
        this.timeline = timeline;
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
        long duration = timing.stepNs(compute);
        steps++;
        busyNs += duration;
        return duration;
    }

    public long steps() { return steps; }
    public long busyNs() { return busyNs; }
}
