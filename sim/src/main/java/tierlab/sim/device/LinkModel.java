package tierlab.sim.device;

/**
 * A storage tier behind one shared link (network- or CXL-attached memory): operations cross the link
 * one at a time in arrival order, reads and writes alike, and each then takes a fixed latency that
 * does not hold the link, so a queue of small operations overlaps their latencies while large ones
 * are bound by the bandwidth. An operation of b bytes arriving at t completes at
 * {@code max(t, linkFree) + ceil(b / linkBytesPerSecond) + operationLatencyNs}.
 *
 * <p>No randomness: the same arrivals give the same completions.
 */
public final class LinkModel implements StorageDevice {
    private final LinkProfile profile;
    /** When the link finishes its last transfer. */
    private long linkFreeAtNs;
    private long readOps;
    private long writeOps;
    private long bytes;
    /** Time the link spent transferring (the sum of every operation's transfer time). */
    private long linkBusyNs;

    public LinkModel(LinkProfile profile) {
        this.profile = profile;
    }

    @Override
    public long submit(boolean read, long lengthBytes, long arrivalNs) {
        long startNs = Math.max(arrivalNs, linkFreeAtNs);
        long transferNs = (long) Math.ceil(lengthBytes * 1e9 / profile.linkBytesPerSecond());
        linkFreeAtNs = startNs + transferNs;
        linkBusyNs += transferNs;
        bytes += lengthBytes;
        if (read) {
            readOps++;
        } else {
            writeOps++;
        }
        return linkFreeAtNs + profile.operationLatencyNs();
    }

    /** The link transfers one operation at a time, so it cannot have been busy longer than it has existed. */
    public void checkInvariants() {
        if (readOps < 0 || writeOps < 0 || bytes < 0 || linkBusyNs < 0) {
            throw new IllegalStateException("link: negative counter (reads " + readOps + ", writes " + writeOps
                    + ", bytes " + bytes + ", busy " + linkBusyNs + " ns)");
        }
        if (linkBusyNs > linkFreeAtNs) {
            throw new IllegalStateException("link: busy " + linkBusyNs + " ns by " + linkFreeAtNs
                    + " ns: transfers overlapped on the one link");
        }
    }

    @Override
    public long readOps() { return readOps; }
    @Override
    public long writeOps() { return writeOps; }
    public long bytes() { return bytes; }
    public long linkBusyNs() { return linkBusyNs; }
    public long linkFreeAtNs() { return linkFreeAtNs; }
}
