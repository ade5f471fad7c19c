package tierlab.sim.device;

/**
 * The {@code link} storage model's section: a tier behind one shared link, as a network- or
 * CXL-attached memory pool is, with a fixed cost per operation on top of the transfer
 * ({@link LinkModel}).
 *
 * <pre>
 * storage:
 *   model: link
 *   operationLatencyNs: 2000
 *   linkBytesPerSecond: 25000000000
 * </pre>
 *
 * @param operationLatencyNs fixed time each operation takes after its bytes crossed the link (the
 *                           far side's access and the round trip); it does not hold the link
 * @param linkBytesPerSecond the link's bandwidth, shared by reads and writes, one transfer at a time
 */
public record LinkProfile(long operationLatencyNs, double linkBytesPerSecond) implements StorageSection {

    public LinkProfile {
        DeviceProfile.nonNegative("storage.operationLatencyNs", operationLatencyNs);
        DeviceProfile.positive("storage.linkBytesPerSecond", linkBytesPerSecond);
    }

    @Override
    public StorageDevice open(DeviceProfile profile, long seed) {
        return new LinkModel(this);
    }
}
