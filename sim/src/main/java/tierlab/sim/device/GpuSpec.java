package tierlab.sim.device;

/**
 * Which GPU a profile describes: its name and the peak rates a roofline model divides by.
 *
 * @param name                   the GPU's registry name ({@link GpuSpecs})
 * @param peakBf16FlopsPerSecond dense bf16 tensor-core peak, FLOP/s (no sparsity)
 * @param hbmBytesPerSecond      peak HBM bandwidth, bytes/s
 * @param memoryBytes            HBM capacity, bytes
 */
public record GpuSpec(String name, double peakBf16FlopsPerSecond, double hbmBytesPerSecond, double memoryBytes) {
    public GpuSpec {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("gpu.name: missing (one of " + GpuSpecs.GPUS.known() + ")");
        }
        DeviceProfile.positive("gpu.peakBf16FlopsPerSecond", peakBf16FlopsPerSecond);
        DeviceProfile.positive("gpu.hbmBytesPerSecond", hbmBytesPerSecond);
        DeviceProfile.positive("gpu.memoryBytes", memoryBytes);
    }
}
