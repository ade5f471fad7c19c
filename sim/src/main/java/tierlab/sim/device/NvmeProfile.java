package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;

/**
 * Parameters of the NVMe model. A command's service time is {@code baseLatencyNs + bytes /
 * bandwidth} on one channel; up to {@code channels} commands are served at once (never more than
 * {@code queueDepth}), the rest wait in FIFO order.
 *
 * <p>Optionally the device as a whole moves at most {@code maxReadBytesPerSecond} (and
 * {@code maxWriteBytesPerSecond}): the host link or controller, which on real drives caps large
 * transfers well below channels × per-channel bandwidth while small commands still scale with the
 * channels. 0 means no ceiling (the model is then exactly the channel model above). Reads and
 * writes have separate ceilings because PCIe is full duplex.
 *
 * @param channels                    parallel service units (flash channels / dies the workload spreads over)
 * @param queueDepth                  commands the device accepts at once; the effective parallelism is min(channels, queueDepth)
 * @param readBaseLatencyNs           fixed part of a read's service time
 * @param readBytesPerSecondPerChannel read bandwidth of one channel
 * @param writeBaseLatencyNs          fixed part of a write's service time
 * @param writeBytesPerSecondPerChannel write bandwidth of one channel
 * @param latencyJitter               "none", or "exponential": the fixed part is drawn from an
 *                                    exponential distribution with that mean (seeded)
 * @param maxReadBytesPerSecond       device-wide read ceiling; 0 (or absent from a profile file) = none
 * @param maxWriteBytesPerSecond      device-wide write ceiling; 0 (or absent from a profile file) = none
 */
public record NvmeProfile(int channels, int queueDepth, long readBaseLatencyNs, double readBytesPerSecondPerChannel,
                          long writeBaseLatencyNs, double writeBytesPerSecondPerChannel, String latencyJitter,
                          // Optional in profile files written before the ceilings existed: absent reads as 0 (none).
                          @JsonSetter(nulls = Nulls.AS_EMPTY) double maxReadBytesPerSecond,
                          @JsonSetter(nulls = Nulls.AS_EMPTY) double maxWriteBytesPerSecond) {

    /** The channel model without device-wide ceilings. */
    public NvmeProfile(int channels, int queueDepth, long readBaseLatencyNs, double readBytesPerSecondPerChannel,
                       long writeBaseLatencyNs, double writeBytesPerSecondPerChannel, String latencyJitter) {
        this(channels, queueDepth, readBaseLatencyNs, readBytesPerSecondPerChannel, writeBaseLatencyNs,
                writeBytesPerSecondPerChannel, latencyJitter, 0, 0);
    }

    public NvmeProfile {
        DeviceProfile.positive("nvme.channels", channels);
        DeviceProfile.positive("nvme.queueDepth", queueDepth);
        DeviceProfile.nonNegative("nvme.readBaseLatencyNs", readBaseLatencyNs);
        DeviceProfile.positive("nvme.readBytesPerSecondPerChannel", readBytesPerSecondPerChannel);
        DeviceProfile.nonNegative("nvme.writeBaseLatencyNs", writeBaseLatencyNs);
        DeviceProfile.positive("nvme.writeBytesPerSecondPerChannel", writeBytesPerSecondPerChannel);
        DeviceProfile.nonNegative("nvme.maxReadBytesPerSecond", maxReadBytesPerSecond);
        DeviceProfile.nonNegative("nvme.maxWriteBytesPerSecond", maxWriteBytesPerSecond);
        if (latencyJitter == null) {
            latencyJitter = "none";
        }
        if (!latencyJitter.equals("none") && !latencyJitter.equals("exponential")) {
            throw new IllegalArgumentException("nvme.latencyJitter must be none or exponential, was '" + latencyJitter + "'");
        }
    }

    /** The same profile with device-wide ceilings (0 = none). */
    public NvmeProfile withCeilings(double newMaxReadBytesPerSecond, double newMaxWriteBytesPerSecond) {
        return new NvmeProfile(channels, queueDepth, readBaseLatencyNs, readBytesPerSecondPerChannel, writeBaseLatencyNs,
                writeBytesPerSecondPerChannel, latencyJitter, newMaxReadBytesPerSecond, newMaxWriteBytesPerSecond);
    }

    public int parallelism() {
        return Math.min(channels, queueDepth);
    }
}
