package tierlab.experiments.calibration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import tierlab.engine.PinnedArena;
import tierlab.engine.StoragePorts;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;
import tierlab.model.trace.DecisionTrace;
import tierlab.sim.device.NvmeProfile;

/**
 * The drive measured at a workload's own conditions: the L2 writes and reads a simulated run of the
 * workload issued (their sizes, offsets and read batches), replayed through the live engine onto a
 * fresh preallocated file of the workload's L2 size, writes first, then the reads of what was just
 * written. A sweep measures the drive at a grid of sizes and depths on a small file; this measures
 * it where the workload meets it (its file size, how much of it is fresh, its transfer sizes), and it
 * can be taken again after the live runs to show how far the drive moved in between.
 *
 * <p>The replay keeps the run's order but not its timing: it keeps up to {@link #MAX_IN_FLIGHT}
 * operations in flight, so its rates are what the drive sustains for that stream, the quantity the
 * NVMe model's device-wide ceilings stand for ({@link #cap}).
 */
public final class DriveReplay {

    /** Operations in flight at most: deeper than any queue the live engine builds, so the drive, not the replay, sets the rate. */
    public static final int MAX_IN_FLIGHT = 512;
    /** A direction that moved fewer bytes than this is not timed for a ceiling: too short to measure a rate. */
    public static final long MIN_TIMED_BYTES = 256L << 20;
    private static final long WAIT_LIMIT_S = 600;

    /** One recorded L2 operation; reads of one batch share {@code batchId} (writes: -1). */
    public record Op(boolean write, long l2Offset, long lengthBytes, long batchId) {}

    /** The operations of one run, in the order it issued them. */
    public record Recording(List<Op> ops, long laneBytes) {
        public long bytes(boolean write) {
            return ops.stream().filter(op -> op.write() == write).mapToLong(Op::lengthBytes).sum();
        }

        public long count(boolean write) {
            return ops.stream().filter(op -> op.write() == write).count();
        }

        /** The end of the furthest range touched: the file the replay needs. */
        public long extentBytes() {
            return ops.stream().mapToLong(op -> op.l2Offset() + op.lengthBytes()).max().orElse(0);
        }
    }

    /**
     * What one replay measured.
     *
     * @param writeSeconds wall time from the first write's submission to the last write's completion
     * @param readSeconds  the same for the reads, which start after every write completed
     */
    public record Rates(long writeBytes, long writeOps, double writeSeconds, long readBytes, long readOps, double readSeconds,
                       long fileBytes, String backend) {
        public double writeBytesPerSecond() {
            return writeSeconds > 0 ? writeBytes / writeSeconds : 0;
        }

        public double readBytesPerSecond() {
            return readSeconds > 0 ? readBytes / readSeconds : 0;
        }

        public boolean writesTimed() {
            return writeBytes >= MIN_TIMED_BYTES && writeSeconds > 0;
        }

        public boolean readsTimed() {
            return readBytes >= MIN_TIMED_BYTES && readSeconds > 0;
        }

        public String describe() {
            return String.format(Locale.ROOT, "writes %,d MiB in %,d ops at %.2f GB/s%s, reads %,d MiB in %,d ops at %.2f GB/s%s (%s, %,d MiB file)",
                    writeBytes >> 20, writeOps, writeBytesPerSecond() / 1e9, writesTimed() ? "" : " (too few to set a ceiling)",
                    readBytes >> 20, readOps, readBytesPerSecond() / 1e9, readsTimed() ? "" : " (too few to set a ceiling)",
                    backend, fileBytes >> 20);
        }
    }

    /** Records a run's L2 operations from its decision trace ({@code op-write}, {@code op-read}). */
    public static final class Recorder implements DecisionTrace.DecisionListener {
        private final long laneBytes;
        private final List<Op> ops = new ArrayList<>();

        public Recorder(long laneBytes) {
            this.laneBytes = laneBytes;
        }

        @Override
        public void onDecision(String kind, long[] values) {
            // op-write: ticket, l2Offset, l1Offset, lengthBytes; op-read: ticket, l2Offset, l1Offset, batchId (one lane each).
            if (kind.equals("op-write")) {
                ops.add(new Op(true, values[1], values[3], -1));
            } else if (kind.equals("op-read")) {
                ops.add(new Op(false, values[1], laneBytes, values[3]));
            }
        }

        public Recording recording() {
            return new Recording(List.copyOf(ops), laneBytes);
        }
    }

    private DriveReplay() {
    }

    /**
     * Replays {@code recording} onto a new file at {@code file}, preallocated to {@code fileBytes}
     * (at least the recording's extent) and deleted after, whatever happens.
     */
    public static Rates replay(Recording recording, Path file, long fileBytes) throws IOException {
        long size = Math.max(fileBytes, align(recording.extentBytes()));
        long largest = recording.ops().stream().mapToLong(Op::lengthBytes).max().orElse(PinnedArena.ALIGNMENT_BYTES);
        long slot = align(largest);
        int slots = (int) Math.min(MAX_IN_FLIGHT, Math.max(1, (256L << 20) / slot));
        Files.deleteIfExists(file);
        try (PinnedArena arena = PinnedArena.allocate(slot * slots, false);
             StoragePort port = StoragePorts.open(file, arena, size)) {
            Phase writes = run(port, recording.ops().stream().filter(Op::write).toList(), slot, slots);
            Phase reads = run(port, recording.ops().stream().filter(op -> !op.write()).toList(), slot, slots);
            return new Rates(writes.bytes, writes.ops, writes.seconds, reads.bytes, reads.ops, reads.seconds, size, port.name());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private record Phase(long bytes, long ops, double seconds) {}

    /**
     * Submits {@code ops} in order (a read batch in one call), at most {@code slots} in flight, and
     * times them from the first submission to the last completion. A failed operation fails the replay.
     */
    private static Phase run(StoragePort port, List<Op> ops, long slot, int slots) throws IOException {
        if (ops.isEmpty()) {
            return new Phase(0, 0, 0);
        }
        Semaphore free = new Semaphore(slots);
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicLong done = new AtomicLong();
        long bytes = 0;
        long startNs = System.nanoTime();
        long ticket = 0;
        for (List<Op> group : groups(ops, slots)) {
            acquire(free, group.size());
            List<IoOp.L2Op> submitted = new ArrayList<>(group.size());
            for (Op op : group) {
                long l1Offset = (ticket % slots) * slot;
                submitted.add(op.write() ? new IoOp.L2Write(ticket, l1Offset, op.l2Offset(), op.lengthBytes())
                        : new IoOp.L2Read(ticket, op.l2Offset(), op.lengthBytes(), l1Offset, op.batchId(), group.size()));
                ticket++;
                bytes += op.lengthBytes();
            }
            port.submit(submitted, (op, completion) -> {
                if (!completion.succeeded()) {
                    failure.compareAndSet(null, completion.errorName());
                }
                done.incrementAndGet();
                free.release();
            });
            if (failure.get() != null) {
                break;
            }
        }
        acquire(free, slots);
        double seconds = (System.nanoTime() - startNs) / 1e9;
        if (failure.get() != null) {
            throw new IOException("the drive replay's " + (ops.getFirst().write() ? "write" : "read") + " failed: " + failure.get());
        }
        return new Phase(bytes, done.get(), seconds);
    }

    /** Writes one at a time; reads by their batch, a batch larger than the slots split into slot-sized groups. */
    private static List<List<Op>> groups(List<Op> ops, int slots) {
        List<List<Op>> groups = new ArrayList<>();
        Map<Long, List<Op>> open = new LinkedHashMap<>();
        for (Op op : ops) {
            if (op.write()) {
                groups.add(List.of(op));
                continue;
            }
            List<Op> group = open.get(op.batchId());
            if (group == null || group.size() == slots) {
                group = new ArrayList<>();
                open.put(op.batchId(), group);
                groups.add(group);
            }
            group.add(op);
        }
        return groups;
    }

    private static void acquire(Semaphore free, int permits) throws IOException {
        try {
            if (!free.tryAcquire(permits, WAIT_LIMIT_S, TimeUnit.SECONDS)) {
                throw new IOException("the drive replay waited over " + WAIT_LIMIT_S + " s for its operations to complete");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("the drive replay was interrupted", e);
        }
    }

    private static long align(long bytes) {
        long a = PinnedArena.ALIGNMENT_BYTES;
        return (bytes + a - 1) / a * a;
    }

    /**
     * The profile's NVMe ceilings set to what the replay measured, in each direction it timed: the
     * replay wrote a fresh file as a live run does, so its write rate is the first-write ceiling too
     * and the separate first-write ceiling is dropped. Where the fitted channels could not reach the
     * measured rate at the replay's mean operation size with every channel busy, their bandwidth is
     * raised until they can: the drive was seen to sustain it for this stream. Directions too small
     * to time keep the host's figures.
     */
    public static NvmeProfile cap(NvmeProfile nvme, Rates rates) {
        NvmeProfile capped = nvme;
        if (rates.readsTimed()) {
            double rate = rates.readBytesPerSecond();
            capped = capped.withCeilings(rate, capped.maxWriteBytesPerSecond());
            double bandwidth = channelBandwidthFor(rate, rates.readBytes() / (double) rates.readOps(), capped.parallelism(),
                    capped.readBaseLatencyNs(), capped.readBytesPerSecondPerChannel());
            capped = capped.withChannelBandwidths(bandwidth, capped.writeBytesPerSecondPerChannel());
        }
        if (rates.writesTimed()) {
            double rate = rates.writeBytesPerSecond();
            capped = capped.withCeilings(capped.maxReadBytesPerSecond(), rate).withFreshWriteCeiling(0);
            double bandwidth = channelBandwidthFor(rate, rates.writeBytes() / (double) rates.writeOps(), capped.parallelism(),
                    capped.writeBaseLatencyNs(), capped.writeBytesPerSecondPerChannel());
            capped = capped.withChannelBandwidths(capped.readBytesPerSecondPerChannel(), bandwidth);
        }
        return capped;
    }

    /**
     * The per-channel bandwidth at which {@code channels} busy channels move {@code rate} in
     * operations of {@code opBytes}, each costing {@code baseNs} plus its transfer; {@code current}
     * where that already holds or where the base latency alone rules the rate out.
     */
    static double channelBandwidthFor(double rate, double opBytes, int channels, long baseNs, double current) {
        double reached = channels * opBytes / (baseNs / 1e9 + opBytes / current);
        double transferS = channels * opBytes / rate - baseNs / 1e9;
        if (reached >= rate || transferS <= 0) {
            return current;
        }
        return opBytes / transferS;
    }
}
