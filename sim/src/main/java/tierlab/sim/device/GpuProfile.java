package tierlab.sim.device;

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
}
