package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Host ↔ GPU copies: one copy engine per direction, each serving copies in FIFO order with
 * {@code latencyNs + bytes / bandwidth}. The device-to-host engine is also the pinned-memory
 * staging copy of a save: the model stages KV straight from GPU blocks into pinned L1 slices.
 *
 * @param source where the figures come from, in words ("measured through CUDA on ... by E5", or "the
 *               preset's: PCIe not measured: why"); absent in hand-written profiles. The model never reads it.
 */
public record PcieProfile(double h2dBytesPerSecond, long h2dLatencyNs, double d2hBytesPerSecond, long d2hLatencyNs,
                          @JsonInclude(JsonInclude.Include.NON_NULL) String source) {

    /** Figures without a stated source (the bundled presets, hand-written profiles). */
    public PcieProfile(double h2dBytesPerSecond, long h2dLatencyNs, double d2hBytesPerSecond, long d2hLatencyNs) {
        this(h2dBytesPerSecond, h2dLatencyNs, d2hBytesPerSecond, d2hLatencyNs, null);
    }

    /** The same figures, saying where they come from. */
    public PcieProfile withSource(String newSource) {
        return new PcieProfile(h2dBytesPerSecond, h2dLatencyNs, d2hBytesPerSecond, d2hLatencyNs, newSource);
    }

    public PcieProfile {
        DeviceProfile.positive("pcie.h2dBytesPerSecond", h2dBytesPerSecond);
        DeviceProfile.nonNegative("pcie.h2dLatencyNs", h2dLatencyNs);
        DeviceProfile.positive("pcie.d2hBytesPerSecond", d2hBytesPerSecond);
        DeviceProfile.nonNegative("pcie.d2hLatencyNs", d2hLatencyNs);
    }
}
