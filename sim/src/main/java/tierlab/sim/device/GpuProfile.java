package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonInclude;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.ComputeTiming;

/**
 * The GPU of a device profile: its name (an entry of {@link GpuSpecs} where a compute model needs its
 * peak rates) and how long one engine step takes on it. Without a {@code compute} section that is the
 * {@code linear} kind over the four terms here: {@code stepOverheadNs + prefillNsPerToken × new
 * prefill tokens + attentionNsPerTokenPair × Σ(new tokens × cached context tokens) +
 * decodeNsPerSequence × decoding sequences}. The linear term is the MLP and projection work, the pair
 * term is attention over the cached context, which is what makes a long cached prefix still cost
 * something. A {@code compute} section names another kind of {@link ComputeModels} (docs/compute.md).
 */
public record GpuProfile(String name, long stepOverheadNs, double prefillNsPerToken, double attentionNsPerTokenPair,
                         long decodeNsPerSequence, @JsonInclude(JsonInclude.Include.NON_NULL) ComputeSection compute) {
    public GpuProfile {
        DeviceProfile.nonNegative("gpu.stepOverheadNs", stepOverheadNs);
        DeviceProfile.nonNegative("gpu.prefillNsPerToken", prefillNsPerToken);
        DeviceProfile.nonNegative("gpu.attentionNsPerTokenPair", attentionNsPerTokenPair);
        DeviceProfile.nonNegative("gpu.decodeNsPerSequence", decodeNsPerSequence);
    }

    /** A GPU whose steps follow the linear formula of these four terms. */
    public GpuProfile(String name, long stepOverheadNs, double prefillNsPerToken, double attentionNsPerTokenPair,
                      long decodeNsPerSequence) {
        this(name, stepOverheadNs, prefillNsPerToken, attentionNsPerTokenPair, decodeNsPerSequence, null);
    }

    /** The same GPU priced by {@code section} (null: the linear formula of its four terms). */
    public GpuProfile withCompute(ComputeSection section) {
        return new GpuProfile(name, stepOverheadNs, prefillNsPerToken, attentionNsPerTokenPair, decodeNsPerSequence, section);
    }

    /** The kind of compute model in effect: the section's, or {@code linear}. */
    public String computeKind() {
        return compute == null ? ComputeModels.DEFAULT : ComputeModels.nameOf(compute);
    }

    /**
     * The compute model this profile describes: the one place a profile becomes step times, for the
     * simulator's GPU port and for the live runtime's timed steps alike.
     */
    public ComputeModel computeModel() {
        if (compute == null) {
            return new ComputeTiming(stepOverheadNs, prefillNsPerToken, attentionNsPerTokenPair, decodeNsPerSequence);
        }
        return compute.open(this);
    }
}
