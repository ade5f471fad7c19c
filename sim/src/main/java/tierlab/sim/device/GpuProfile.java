package tierlab.sim.device;

import tierlab.model.io.ComputeModel;
import tierlab.model.io.ComputeTiming;

/**
 * Time of one engine step on the GPU: {@code stepOverheadNs + prefillNsPerToken × new prefill
 * tokens + attentionNsPerTokenPair × Σ(new tokens × cached context tokens) + decodeNsPerSequence ×
 * decoding sequences}. The linear term is the MLP and projection work, the pair term is attention
 * over the cached context, which is what makes a long cached prefix still cost something.
 */
public record GpuProfile(String name, long stepOverheadNs, double prefillNsPerToken, double attentionNsPerTokenPair,
                         long decodeNsPerSequence) {
    public GpuProfile {
        DeviceProfile.nonNegative("gpu.stepOverheadNs", stepOverheadNs);
        DeviceProfile.nonNegative("gpu.prefillNsPerToken", prefillNsPerToken);
        DeviceProfile.nonNegative("gpu.attentionNsPerTokenPair", attentionNsPerTokenPair);
        DeviceProfile.nonNegative("gpu.decodeNsPerSequence", decodeNsPerSequence);
    }

    /**
     * The compute model this profile describes: the one place a profile becomes step times, for the
     * simulator's GPU port and for the live runtime's timed steps alike.
     */
    public ComputeModel computeModel() {
        return new ComputeTiming(stepOverheadNs, prefillNsPerToken, attentionNsPerTokenPair, decodeNsPerSequence);
    }
}
