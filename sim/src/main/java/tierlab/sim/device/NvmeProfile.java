package tierlab.sim.device;

/**
 * Parameters of the NVMe model. A command's service time is {@code baseLatencyNs + bytes /
 * bandwidth} on one channel; up to {@code channels} commands are served at once (never more than
 * {@code queueDepth}), the rest wait in FIFO order.
 *
 * @param channels                    parallel service units (flash channels / dies the workload spreads over)
 * @param queueDepth                  commands the device accepts at once; the effective parallelism is min(channels, queueDepth)
 * @param readBaseLatencyNs           fixed part of a read's service time
 * @param readBytesPerSecondPerChannel read bandwidth of one channel
 * @param writeBaseLatencyNs          fixed part of a write's service time
 * @param writeBytesPerSecondPerChannel write bandwidth of one channel
 * @param latencyJitter               "none", or "exponential": the fixed part is drawn from an
 *                                    exponential distribution with that mean (seeded)
 */
public record NvmeProfile(int channels, int queueDepth, long readBaseLatencyNs, double readBytesPerSecondPerChannel,
                          long writeBaseLatencyNs, double writeBytesPerSecondPerChannel, String latencyJitter) {

    public NvmeProfile {
        DeviceProfile.positive("nvme.channels", channels);
        DeviceProfile.positive("nvme.queueDepth", queueDepth);
        DeviceProfile.nonNegative("nvme.readBaseLatencyNs", readBaseLatencyNs);
        DeviceProfile.positive("nvme.readBytesPerSecondPerChannel", readBytesPerSecondPerChannel);
        DeviceProfile.nonNegative("nvme.writeBaseLatencyNs", writeBaseLatencyNs);
        DeviceProfile.positive("nvme.writeBytesPerSecondPerChannel", writeBytesPerSecondPerChannel);
        if (latencyJitter == null) {
            latencyJitter = "none";
        }
        if (!latencyJitter.equals("none") && !latencyJitter.equals("exponential")) {
            throw new IllegalArgumentException("nvme.latencyJitter must be none or exponential, was '" + latencyJitter + "'");
        }
    }

    public int parallelism() {
        return Math.min(channels, queueDepth);
    }
}
