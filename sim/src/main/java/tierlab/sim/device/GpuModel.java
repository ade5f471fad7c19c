package tierlab.sim.device;

import tierlab.engine.live.ComputeTiming;
import tierlab.model.io.IoOp;

/**
 * Engine-step durations from a {@link GpuProfile}; steps run one at a time. The step formula is the
 * live runtime's {@link ComputeTiming}, so a profile means the same in sim and live mode.
 */
public final class GpuModel {
    private final ComputeTiming timing;
    private long steps;
    private long busyNs;

    public GpuModel(GpuProfile profile) {
        this.timing = new ComputeTiming(profile.stepOverheadNs(), profile.prefillNsPerToken(),
                profile.attentionNsPerTokenPair(), profile.decodeNsPerSequence());
    }

    public long stepNs(IoOp.Compute compute) {
        long duration = timing.stepNs(compute);
        steps++;
        busyNs += duration;
        return duration;
    }

    public long steps() { return steps; }
    public long busyNs() { return busyNs; }
}
