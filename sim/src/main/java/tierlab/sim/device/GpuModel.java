package tierlab.sim.device;

import tierlab.model.io.IoOp;

/** Engine-step durations from a {@link GpuProfile}; steps run one at a time. */
public final class GpuModel {
    private final GpuProfile profile;
    private long steps;
    private long busyNs;

    public GpuModel(GpuProfile profile) {
        this.profile = profile;
    }

    public long stepNs(IoOp.Compute compute) {
        double ns = profile.stepOverheadNs();
        for (IoOp.ComputeItem item : compute.items()) {
            if (item.newTokens() == 1 && item.blocksCompleted().isEmpty() && item.contextTokens() > 0) {
                ns += profile.decodeNsPerSequence();
            } else {
                ns += profile.prefillNsPerToken() * item.newTokens();
            }
            ns += profile.attentionNsPerTokenPair() * item.newTokens() * (double) item.contextTokens();
        }
        long duration = (long) Math.ceil(ns);
        steps++;
        busyNs += duration;
        return duration;
    }

    public long steps() { return steps; }
    public long busyNs() { return busyNs; }
}
