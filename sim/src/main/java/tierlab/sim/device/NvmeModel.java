package tierlab.sim.device;

import org.apache.commons.math3.distribution.ExponentialDistribution;
import org.apache.commons.math3.random.Well19937c;

/**
 * A FIFO queue in front of {@code min(channels, queueDepth)} identical servers. Commands arrive
 * in non-decreasing time order (the simulator guarantees it), so each takes the server that
 * frees first and its completion time is known at arrival: with one channel and Poisson arrivals
 * of equal reads this is exactly an M/D/1 queue (a test checks it against the closed form).
 *
 * <p>With a device-wide ceiling ({@link NvmeProfile#maxReadBytesPerSecond()}, write likewise),
 * each command also crosses a link of that bandwidth, one command at a time in arrival order,
 * pipelined with its channel work: it completes when both its channel service and its link
 * transfer are done. One command alone on an idle device then takes {@code max(service, bytes /
 * ceiling)}; a deep queue of large commands moves at most the ceiling. Without a ceiling nothing
 * of this runs and the model is the plain channel queue.
 *
 * <p>With a first-write ceiling ({@link NvmeProfile#maxFreshWriteBytesPerSecond()}), the bytes of a
 * write that land on blocks of the L2 file no earlier write of the run touched cross the write link
 * at that lower rate, the others at the write ceiling: a preallocated file's unwritten extents cost
 * the file system a conversion per write, which the device-wide rate shows and a channel does not.
 */
public final class NvmeModel implements StorageDevice {
    private final NvmeProfile profile;
    /**
     * When each channel is next free, as a binary min-heap on a primitive array: a command takes
     * the earliest-free channel (the root) and puts it back busy until its completion. Only the
     * multiset of times matters, so the heap's tie order decides nothing.
     */
    private final long[] serverFreeAtNs;
    private final ExponentialDistribution readJitter;
    private final ExponentialDistribution writeJitter;
    /** When the read and write links finish their last transfer (unused without ceilings). */
    private long readLinkFreeAtNs;
    private long writeLinkFreeAtNs;
    /** The L2 ranges written so far; null unless the profile has a first-write ceiling. */
    private final WrittenExtents written;
    private long freshWriteBytes;
    private long readOps;
    private long writeOps;
    private long readBytes;
    private long writeBytes;
    private long busyNs;
    private long queueWaitNs;

    public NvmeModel(NvmeProfile profile, long seed) {
        this.profile = profile;
        this.serverFreeAtNs = new long[profile.parallelism()];
        this.written = profile.maxFreshWriteBytesPerSecond() > 0 ? new WrittenExtents() : null;
        boolean jitter = profile.latencyJitter().equals("exponential");
        this.readJitter = jitter && profile.readBaseLatencyNs() > 0
                ? new ExponentialDistribution(new Well19937c(seed), profile.readBaseLatencyNs()) : null;
        this.writeJitter = jitter && profile.writeBaseLatencyNs() > 0
                ? new ExponentialDistribution(new Well19937c(seed ^ 0x9E3779B97F4A7C15L), profile.writeBaseLatencyNs()) : null;
    }

    /** Service time of one command, without queueing. */
    public long serviceNs(boolean read, long bytes) {
        long base;
        double bandwidth;
        if (read) {
            base = readJitter == null ? profile.readBaseLatencyNs() : Math.round(readJitter.sample());
            bandwidth = profile.readBytesPerSecondPerChannel();
        } else {
            base = writeJitter == null ? profile.writeBaseLatencyNs() : Math.round(writeJitter.sample());
            bandwidth = profile.writeBytesPerSecondPerChannel();
        }
        return base + (long) Math.ceil(bytes * 1e9 / bandwidth);
    }

    /** A command arriving at {@code arrivalNs}: returns when it completes. */
    @Override
    public long submit(boolean read, long bytes, long arrivalNs) {
        return schedule(read, bytes, arrivalNs, 0);
    }

    /** A command at L2 offset {@code offsetBytes}: first writes there cost the first-write ceiling. */
    @Override
    public long submit(boolean read, long offsetBytes, long bytes, long arrivalNs) {
        long fresh = 0;
        if (!read && written != null) {
            fresh = written.untouchedBytes(offsetBytes, bytes);
            written.markWritten(offsetBytes, bytes);
            freshWriteBytes += fresh;
        }
        return schedule(read, bytes, arrivalNs, fresh);
    }

    private long schedule(boolean read, long bytes, long arrivalNs, long freshBytes) {
        long freeAt = serverFreeAtNs[0];
        long startNs = Math.max(arrivalNs, freeAt);
        long service = serviceNs(read, bytes);
        long doneNs = startNs + service;
        replaceEarliestChannel(doneNs);
        double ceiling = read ? profile.maxReadBytesPerSecond() : profile.maxWriteBytesPerSecond();
        if (ceiling > 0 || freshBytes > 0) {
            long linkStartNs = Math.max(arrivalNs, read ? readLinkFreeAtNs : writeLinkFreeAtNs);
            long linkDoneNs = linkStartNs + linkNs(bytes - freshBytes, ceiling) + linkNs(freshBytes, profile.maxFreshWriteBytesPerSecond());
            if (read) {
                readLinkFreeAtNs = linkDoneNs;
            } else {
                writeLinkFreeAtNs = linkDoneNs;
            }
            doneNs = Math.max(doneNs, linkDoneNs);
        }
        queueWaitNs += startNs - arrivalNs;
        busyNs += service;
        if (read) {
            readOps++;
            readBytes += bytes;
        } else {
            writeOps++;
            writeBytes += bytes;
        }
        return doneNs;
    }

    private static long linkNs(long bytes, double bytesPerSecond) {
        return bytes <= 0 || bytesPerSecond <= 0 ? 0 : (long) Math.ceil(bytes * 1e9 / bytesPerSecond);
    }

    /** Replaces the root (the earliest-free channel) with {@code freeAtNs} and restores heap order. */
    private void replaceEarliestChannel(long freeAtNs) {
        int size = serverFreeAtNs.length;
        int slot = 0;
        while (true) {
            int child = 2 * slot + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && serverFreeAtNs[child + 1] < serverFreeAtNs[child]) {
                child++;
            }
            if (serverFreeAtNs[child] >= freeAtNs) {
                break;
            }
            serverFreeAtNs[slot] = serverFreeAtNs[child];
            slot = child;
        }
        serverFreeAtNs[slot] = freeAtNs;
    }

    @Override
    public long readOps() { return readOps; }
    @Override
    public long writeOps() { return writeOps; }
    public long readBytes() { return readBytes; }
    public long writeBytes() { return writeBytes; }
    public long busyNs() { return busyNs; }
    /** Bytes written into blocks of the L2 file no earlier write touched (0 without a first-write ceiling). */
    public long freshWriteBytes() { return freshWriteBytes; }

    /** The written-range tracker holds disjoint merged intervals. */
    @Override
    public void checkInvariants() {
        if (written != null) {
            written.checkInvariants();
        }
    }

    /** Total time commands spent waiting for a free channel. */
    public long queueWaitNs() { return queueWaitNs; }
}
