package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonInclude;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.ComputeTiming;

/**
 * The {@code linear} kind: {@code stepOverheadNs + prefillNsPerToken × new prefill tokens +
 * attentionNsPerTokenPair × Σ(new × cached context tokens) + decodeNsPerSequence × decoding
 * sequences} ({@link ComputeTiming}). A term left out is the GPU profile's own, so {@code {kind: linear}}
 * alone is exactly the profile's formula.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LinearSection(Long stepOverheadNs, Double prefillNsPerToken, Double attentionNsPerTokenPair,
                            Long decodeNsPerSequence) implements ComputeSection {

    public LinearSection {
        DeviceProfile.nonNegative("compute.stepOverheadNs", stepOverheadNs == null ? 0 : stepOverheadNs);
        DeviceProfile.nonNegative("compute.prefillNsPerToken", prefillNsPerToken == null ? 0 : prefillNsPerToken);
        DeviceProfile.nonNegative("compute.attentionNsPerTokenPair", attentionNsPerTokenPair == null ? 0 : attentionNsPerTokenPair);
        DeviceProfile.nonNegative("compute.decodeNsPerSequence", decodeNsPerSequence == null ? 0 : decodeNsPerSequence);
    }

    @Override
    public ComputeModel open(GpuProfile gpu) {
        return new ComputeTiming(stepOverheadNs != null ? stepOverheadNs : gpu.stepOverheadNs(),
                prefillNsPerToken != null ? prefillNsPerToken : gpu.prefillNsPerToken(),
                attentionNsPerTokenPair != null ? attentionNsPerTokenPair : gpu.attentionNsPerTokenPair(),
                decodeNsPerSequence != null ? decodeNsPerSequence : gpu.decodeNsPerSequence());
    }
}
