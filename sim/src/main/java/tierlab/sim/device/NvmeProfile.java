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
 * @param maxFreshWriteBytesPerSecond device-wide ceiling of writes into blocks of the L2 file that no
 *                                    write of the run has touched yet; 0 (or absent) = such writes are
 *                                    like any other. A live run's L2 file is preallocated (fallocate),
 *                                    and a file system such as ext4 marks those extents unwritten and
 *                                    converts them when a write into them completes: on the hosts
 *                                    measured (docs/validation.md) first writes ran at 0.63-0.76 of
 *                                    the rate of overwrites. The model charges the bytes of a write
 *                                    that land on untouched blocks at this ceiling, the rest at
 *                                    {@code maxWriteBytesPerSecond}
 */
public record NvmeProfile(int channels, int queueDepth, long readBaseLatencyNs, double readBytesPerSecondPerChannel,
                          long writeBaseLatencyNs, double writeBytesPerSecondPerChannel, String latencyJitter,
                          // Optional in profile files written before the ceilings existed: absent reads as 0 (none).
                          @JsonSetter(nulls = Nulls.AS_EMPTY) double maxReadBytesPerSecond,
                          @JsonSetter(nulls = Nulls.AS_EMPTY) double maxWriteBytesPerSecond,
                          @JsonSetter(nulls = Nulls.AS_EMPTY) double maxFreshWriteBytesPerSecond) {

    /** The channel model without device-wide ceilings. */
    public NvmeProfile(int channels, int queueDepth, long readBaseLatencyNs, double readBytesPerSecondPerChannel,
                       long writeBaseLatencyNs, double writeBytesPerSecondPerChannel, String latencyJitter) {
        this(channels, queueDepth, readBaseLatencyNs, readBytesPerSecondPerChannel, writeBaseLatencyNs,
                writeBytesPerSecondPerChannel, latencyJitter, 0, 0, 0);
    }

    /** The channel model with device-wide ceilings and no distinction of first writes. */
    public NvmeProfile(int channels, int queueDepth, long readBaseLatencyNs, double readBytesPerSecondPerChannel,
                       long writeBaseLatencyNs, double writeBytesPerSecondPerChannel, String latencyJitter,
                       double maxReadBytesPerSecond, double maxWriteBytesPerSecond) {
        this(channels, queueDepth, readBaseLatencyNs, readBytesPerSecondPerChannel, writeBaseLatencyNs,
                writeBytesPerSecondPerChannel, latencyJitter, maxReadBytesPerSecond, maxWriteBytesPerSecond, 0);
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
        DeviceProfile.nonNegative("nvme.maxFreshWriteBytesPerSecond", maxFreshWriteBytesPerSecond);
        if (latencyJitter == null) {
            latencyJitter = "none";
        }
        if (!latencyJitter.equals("none") && !latencyJitter.equals("exponential")) {
            throw new IllegalArgumentException("nvme.latencyJitter must be none or exponential, was '" + latencyJitter + "'");
        }
    }

    /** The same profile with device-wide ceilings (0 = none); the first-write ceiling is kept. */
    public NvmeProfile withCeilings(double newMaxReadBytesPerSecond, double newMaxWriteBytesPerSecond) {
        return new NvmeProfile(channels, queueDepth, readBaseLatencyNs, readBytesPerSecondPerChannel, writeBaseLatencyNs,
                writeBytesPerSecondPerChannel, latencyJitter, newMaxReadBytesPerSecond, newMaxWriteBytesPerSecond,
                maxFreshWriteBytesPerSecond);
    }

    /** The same profile with other per-channel transfer rates, latencies and ceilings kept. */
    public NvmeProfile withChannelBandwidths(double newReadBytesPerSecondPerChannel, double newWriteBytesPerSecondPerChannel) {
        return new NvmeProfile(channels, queueDepth, readBaseLatencyNs, newReadBytesPerSecondPerChannel, writeBaseLatencyNs,
                newWriteBytesPerSecondPerChannel, latencyJitter, maxReadBytesPerSecond, maxWriteBytesPerSecond,
                maxFreshWriteBytesPerSecond);
    }

    /** The same profile with a ceiling for writes into untouched blocks of the L2 file (0 = none). */
    public NvmeProfile withFreshWriteCeiling(double newMaxFreshWriteBytesPerSecond) {
        return new NvmeProfile(channels, queueDepth, readBaseLatencyNs, readBytesPerSecondPerChannel, writeBaseLatencyNs,
                writeBytesPerSecondPerChannel, latencyJitter, maxReadBytesPerSecond, maxWriteBytesPerSecond,
                newMaxFreshWriteBytesPerSecond);
    }

    public int parallelism() {
        return Math.min(channels, queueDepth);
    }
}
