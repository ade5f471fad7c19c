package tierlab.sim.device;

/**
 * Host ↔ GPU copies: one copy engine per direction, each serving copies in FIFO order with
 * {@code latencyNs + bytes / bandwidth}. The device-to-host engine is also the pinned-memory
 * staging copy of a save: the model stages KV straight from GPU blocks into pinned L1 slices.
 */
public record PcieProfile(double h2dBytesPerSecond, long h2dLatencyNs, double d2hBytesPerSecond, long d2hLatencyNs) {
    public PcieProfile {
        DeviceProfile.positive("pcie.h2dBytesPerSecond", h2dBytesPerSecond);
        DeviceProfile.nonNegative("pcie.h2dLatencyNs", h2dLatencyNs);
        DeviceProfile.positive("pcie.d2hBytesPerSecond", d2hBytesPerSecond);
        DeviceProfile.nonNegative("pcie.d2hLatencyNs", d2hLatencyNs);
    }
}
