package tierlab.experiments.calibration;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import tierlab.bench.BenchCase;
import tierlab.bench.ClosedLoopRunner;
import tierlab.bench.TestFile;
import tierlab.engine.FileChannelBackend;
import tierlab.engine.FileChannelSettings;
import tierlab.engine.IoUringBackend;
import tierlab.engine.IoUringSettings;
import tierlab.engine.PinnedArena;
import tierlab.model.io.StoragePort;
import tierlab.sim.device.NvmeProfile;

/**
 * What the drive sustains over seconds, not over a sweep point's fraction of a second: sequential
 * writes, then sequential reads, each for {@code duration} at one block size and queue depth on a
 * file of {@code fileBytes} (written end to end first, so the reads touch the device and the writes
 * follow a full file's worth of writing), through the live engine as the sweep is. A drive whose
 * write cache absorbs a 200 ms burst shows its lower long-run rate here.
 *
 * <p>Then the same sequential writes into a file that is preallocated and never written (fresh
 * extents), as a live run's L2 file is: on ext4 such writes also convert the unwritten extents they
 * fill, and on the hosts measured they ran at 0.63-0.76 of the overwrite rate. That figure becomes
 * the model's first-write ceiling where it is lower than the write ceiling.
 *
 * <p>It measures the drive, never a validation workload: the figures become the NVMe model's
 * device-wide ceilings only where they are lower than the sweep fit's ({@link #cap}).
 */
public final class SustainedRates {

    /**
     * The two rates and how they were measured.
     *
     * @param readBytesPerSecond       sequential reads, bytes per second over the whole run
     * @param writeBytesPerSecond      sequential writes over written blocks, bytes per second over the whole run
     * @param freshWriteBytesPerSecond sequential writes into a preallocated, never written file; 0 = not measured
     * @param freshNote                how the first-write figure was measured, or why it was not
     */
    public record Rates(double readBytesPerSecond, double writeBytesPerSecond, int blockBytes, int queueDepth, long durationMs,
                        long fileBytes, String backend, double freshWriteBytesPerSecond, String freshNote) {

        /** Rates without a first-write measurement. */
        public Rates(double readBytesPerSecond, double writeBytesPerSecond, int blockBytes, int queueDepth, long durationMs,
                     long fileBytes, String backend) {
            this(readBytesPerSecond, writeBytesPerSecond, blockBytes, queueDepth, durationMs, fileBytes, backend, 0,
                    "first writes not measured");
        }

        /** The same rates with a first-write figure (0 = not measured) and how it came about. */
        public Rates withFresh(double newFreshWriteBytesPerSecond, String newFreshNote) {
            return new Rates(readBytesPerSecond, writeBytesPerSecond, blockBytes, queueDepth, durationMs, fileBytes, backend,
                    newFreshWriteBytesPerSecond, newFreshNote);
        }

        /** One line for a profile header. */
        public String describe() {
            return String.format(Locale.ROOT, "sustained sequential rates over %,d ms each at %d KiB × queue depth %d on a %,d MiB file"
                            + " (%s): writes %,.0f B/s, reads %,.0f B/s; %s", durationMs, blockBytes >> 10, queueDepth, fileBytes >> 20,
                    backend, writeBytesPerSecond, readBytesPerSecond, freshNote);
        }
    }

    private SustainedRates() {
    }

    /** Measures both directions; the file is deleted after. */
    public static Rates measure(Path file, long fileBytes, int blockBytes, int queueDepth, Duration duration, long seed)
            throws IOException {
        SweepSettings settings = new SweepSettings(file, fileBytes,
                List.of(BenchCase.Access.SEQUENTIAL_WRITE, BenchCase.Access.SEQUENTIAL_READ), List.of(blockBytes),
                List.of(queueDepth), duration, 1, SweepSettings.Backend.BEST, seed);
        CalibrationSweep.SweepResult result;
        try {
            result = CalibrationSweep.run(settings, point -> { });
        } finally {
            CalibrationSweep.deleteFile(file);
        }
        double read = 0;
        double write = 0;
        for (MeasuredPoint point : result.runs()) {
            if (point.benchCase().access().write()) {
                write = point.bytesPerSecond();
            } else {
                read = point.bytesPerSecond();
            }
        }
        Path freshFile = file.resolveSibling(file.getFileName() + ".fresh");
        try {
            return freshWrites(new Rates(read, write, blockBytes, queueDepth, duration.toMillis(), fileBytes, result.backendName()),
                    freshFile, duration, seed);
        } finally {
            TestFile.delete(freshFile);
        }
    }

    /**
     * Sequential writes from offset 0 into a file preallocated (io_uring: fallocate; FileChannel:
     * extended sparsely) at twice what the overwrites moved in the same time, so the run never
     * wraps onto blocks it wrote; a run that would need more than half the free space, or that
     * wrapped anyway, is reported as not measured.
     */
    private static Rates freshWrites(Rates written, Path freshFile, Duration duration, long seed) throws IOException {
        long blockBytes = written.blockBytes();
        long wanted = (long) Math.ceil(2 * written.writeBytesPerSecond() * duration.toMillis() / 1000.0);
        long blocks = Math.max(written.queueDepth(), (wanted + blockBytes - 1) / blockBytes);
        long freshBytes = blocks * blockBytes;
        Path folder = freshFile.toAbsolutePath().getParent();
        long usable = java.nio.file.Files.getFileStore(folder).getUsableSpace();
        if (freshBytes > usable / 2) {
            return written.withFresh(0, String.format(Locale.ROOT, "first writes not measured: a fresh file of %,d MiB"
                    + " needs more than half the %,d MiB free in %s", freshBytes >> 20, usable >> 20, folder));
        }
        BenchCase writes = new BenchCase(BenchCase.Access.SEQUENTIAL_WRITE, (int) blockBytes, written.queueDepth());
        ClosedLoopRunner.Result result;
        try (PinnedArena arena = PinnedArena.allocate(blockBytes * written.queueDepth());
             StoragePort port = openPreallocated(freshFile, arena, freshBytes, written.backend(), written.queueDepth())) {
            TestFile.fillRandom(arena, seed ^ 0x3C6EF372FE94F82BL);
            result = ClosedLoopRunner.run(port, writes, freshBytes, duration, seed);
        }
        if (result.errors() > 0) {
            throw new IOException("first writes into " + freshFile + ": " + result.errors() + " operations failed; first: "
                    + result.firstError());
        }
        if (result.bytes() > freshBytes) {
            return written.withFresh(0, String.format(Locale.ROOT, "first writes not measured: %,d MiB moved wrapped the"
                    + " %,d MiB fresh file", result.bytes() >> 20, freshBytes >> 20));
        }
        double rate = result.bytes() * 1e9 / result.elapsedNs();
        return written.withFresh(rate, String.format(Locale.ROOT, "first writes into a preallocated, never written %,d MiB file"
                + " at the same pattern: %,.0f B/s (%.2f of the overwrites)", freshBytes >> 20, rate,
                rate / written.writeBytesPerSecond()));
    }

    private static StoragePort openPreallocated(Path file, PinnedArena arena, long bytes, String backend, int queueDepth)
            throws IOException {
        TestFile.delete(file);
        if (backend.equals("io_uring")) {
            int entries = Math.min(IoUringSettings.MAX_RING_ENTRIES, Math.max(8, Integer.highestOneBit(queueDepth - 1 | 1) << 1));
            return IoUringBackend.open(file, arena, IoUringSettings.defaults().withRings(1, entries).withL2PreallocateBytes(bytes));
        }
        return FileChannelBackend.open(file, arena, FileChannelSettings.defaults().withWorkerThreads(queueDepth)
                .withL2PreallocateBytes(bytes));
    }

    /**
     * The swept profile with each device-wide ceiling lowered to the sustained rate where that is
     * lower (a ceiling of 0, none, is always lowered); a sustained rate above the sweep's ceiling
     * changes nothing, since the sweep's points already bound the drive there.
     */
    public static NvmeProfile cap(NvmeProfile swept, Rates sustained) {
        NvmeProfile capped = swept.withCeilings(lower(swept.maxReadBytesPerSecond(), sustained.readBytesPerSecond()),
                lower(swept.maxWriteBytesPerSecond(), sustained.writeBytesPerSecond()));
        double fresh = sustained.freshWriteBytesPerSecond();
        // A first-write ceiling only where first writes are measured slower than the writes the model already caps.
        boolean slower = fresh > 0 && (capped.maxWriteBytesPerSecond() <= 0 || fresh < capped.maxWriteBytesPerSecond());
        return capped.withFreshWriteCeiling(slower ? fresh : 0);
    }

    private static double lower(double ceiling, double sustained) {
        if (!(sustained > 0)) {
            return ceiling;
        }
        return ceiling <= 0 ? sustained : Math.min(ceiling, sustained);
    }
}
