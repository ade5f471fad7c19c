package tierlab.sim.device;

/**
 * One direction of the PCIe link (or any single FIFO transfer engine): a copy of b bytes takes
 * {@code latencyNs + b / bandwidth} and copies are served one after another.
 */
public final class CopyEngine {
    private final double bytesPerSecond;
    private final long latencyNs;
    private long freeAtNs;
    private long copies;
    private long bytes;
    private long busyNs;

    public CopyEngine(double bytesPerSecond, long latencyNs) {
        this.bytesPerSecond = bytesPerSecond;
        this.latencyNs = latencyNs;
    }

    public long submit(long copyBytes, long arrivalNs) {
        long start = Math.max(arrivalNs, freeAtNs);
        long service = latencyNs + (long) Math.ceil(copyBytes * 1e9 / bytesPerSecond);
        freeAtNs = start + service;
        copies++;
        bytes += copyBytes;
        busyNs += service;
        return freeAtNs;
    }

    public long copies() { return copies; }
    public long bytes() { return bytes; }
    public long busyNs() { return busyNs; }
}
