package tierlab.sim.device;

/**
 * Host ↔ GPU copies: one copy engine per direction, each serving copies in FIFO order with
 * {@code latencyNs + bytes / bandwidth}. {@code stagingBytesPerSecond} is the pinned-memory
 * memcpy rate used when a copy needs a bounce through staging memory (unused by the model today).
 */
public record PcieProfile(double h2dBytesPerSecond, long h2dLatencyNs, double d2hBytesPerSecond, long d2hLatencyNs,
                          double stagingBytesPerSecond) {
    public PcieProfile {
        DeviceProfile.positive("pcie.h2dBytesPerSecond", h2dBytesPerSecond);
        DeviceProfile.nonNegative("pcie.h2dLatencyNs", h2dLatencyNs);
        DeviceProfile.positive("pcie.d2hBytesPerSecond", d2hBytesPerSecond);
        DeviceProfile.nonNegative("pcie.d2hLatencyNs", d2hLatencyNs);
        DeviceProfile.positive("pcie.stagingBytesPerSecond", stagingBytesPerSecond);
    }
}
