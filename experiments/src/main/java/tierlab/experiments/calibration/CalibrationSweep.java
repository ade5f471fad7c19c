package tierlab.experiments.calibration;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import tierlab.bench.BenchCase;
import tierlab.bench.TestFile;
import tierlab.engine.FileChannelBackend;
import tierlab.engine.FileChannelSettings;
import tierlab.engine.IoCounters;
import tierlab.engine.IoUringBackend;
import tierlab.engine.IoUringSettings;
import tierlab.engine.PinnedArena;
import tierlab.model.io.StoragePort;

/**
 * The live half of calibration (experiment E5): runs the closed-loop microbenchmark over a grid of
 * access patterns, block sizes and queue depths on a real O_DIRECT file, through the same storage
 * port the live runtime uses, and returns one {@link MeasuredPoint} per point and repeat.
 *
 * <pre>
 *   prepare: the file is written end to end with random bytes (ext4 answers reads of unwritten
 *            extents with zeros without touching the device); a stamp lets the next sweep reuse it
 *   warm-up: one untimed run, so the first point does not pay for JIT compilation
 *   repeat r = 1..R:  every grid point, in grid order for odd r and reversed for even r
 *            (a slow drift of the disk then lands on different points in different repeats,
 *            and the median over repeats damps it)
 * </pre>
 *
 * The io_uring port is one ring with enough entries for the deepest queue, its arena registered as
 * fixed buffers: one ring is one submission thread, as the sim's host submitter assumes. The
 * FileChannel port gets one worker thread per queue slot, since its queue depth is its thread count.
 */
public final class CalibrationSweep {

    private CalibrationSweep() {}

    /**
     * Every run of a sweep, in the order measured.
     *
     * @param backendName   the storage port ({@code io_uring} or {@code filechannel})
     * @param backendStatus how the port opened the file (O_DIRECT, fixed buffers) or why not
     * @param wallNs        wall time of the whole sweep, file preparation included
     */
    public record SweepResult(SweepSettings settings, String backendName, String backendStatus, List<MeasuredPoint> runs,
                              long wallNs) {
        public SweepResult {
            runs = List.copyOf(runs);
        }

        /** One point per grid case, each field the median over the repeats. */
        public List<MeasuredPoint> medians() {
            return MeasuredPoint.medians(runs);
        }
    }

    /** Runs the sweep; {@code progress} sees each run as it finishes (may be null). */
    public static SweepResult run(SweepSettings settings, Consumer<MeasuredPoint> progress) throws IOException {
        long startNs = System.nanoTime();
        boolean uring = switch (settings.backend()) {
            case IO_URING -> {
                if (!IoUringBackend.probe().available()) {
                    throw new IOException("sweep.backend is IO_URING but io_uring is unavailable here: " + IoUringBackend.probe().cause());
                }
                yield true;
            }
            case FILE_CHANNEL -> false;
            case BEST -> IoUringBackend.probe().available();
        };
        TestFile.prepare(settings.file(), settings.fileBytes(), settings.seed());
        int maxBlockBytes = settings.blockSizesBytes().stream().mapToInt(Integer::intValue).max().orElseThrow();
        int maxQueueDepth = settings.queueDepths().stream().mapToInt(Integer::intValue).max().orElseThrow();
        List<MeasuredPoint> runs = new ArrayList<>();
        String status;
        String name;
        try (PinnedArena arena = PinnedArena.allocate((long) maxBlockBytes * maxQueueDepth)) {
            TestFile.fillRandom(arena, settings.seed() ^ 0x5DEECE66DL);
            try (Ports ports = new Ports(settings, arena, uring, maxQueueDepth)) {
                warmUp(settings, ports);
                List<BenchCase> grid = settings.grid();
                for (int repeat = 1; repeat <= settings.repeats(); repeat++) {
                    List<BenchCase> order = repeat % 2 == 1 ? grid : grid.reversed();
                    for (BenchCase benchCase : order) {
                        MeasuredPoint point = measure(settings, ports, benchCase, repeat);
                        runs.add(point);
                        if (progress != null) {
                            progress.accept(point);
                        }
                    }
                }
                status = ports.status;
                name = uring ? "io_uring" : "filechannel";
            }
        }
        return new SweepResult(settings, name, status, runs, System.nanoTime() - startNs);
    }

    private static void warmUp(SweepSettings settings, Ports ports) throws IOException {
        int blockBytes = settings.blockSizesBytes().getFirst();
        int queueDepth = settings.queueDepths().getLast();
        BenchCase warm = new BenchCase(BenchCase.Access.RANDOM_READ, blockBytes, queueDepth);
        Duration length = Duration.ofMillis(Math.min(1000, 4 * settings.durationPerPoint().toMillis()));
        LatencyClosedLoop.Outcome outcome = LatencyClosedLoop.run(ports.forQueueDepth(queueDepth), warm, settings.fileBytes(),
                length, settings.seed());
        if (outcome.errors() > 0) {
            throw new IOException("the warm-up reads on " + settings.file() + " failed: " + outcome.firstError());
        }
    }

    private static MeasuredPoint measure(SweepSettings settings, Ports ports, BenchCase benchCase, int repeat) throws IOException {
        StoragePort port = ports.forQueueDepth(benchCase.queueDepth());
        IoCounters before = ports.counters();
        // String hash codes are stable across JVMs (enum and record ones are not), so offsets repeat.
        long seed = settings.seed() + 1_000_003L * repeat + benchCase.name().hashCode();
        LatencyClosedLoop.Outcome outcome = LatencyClosedLoop.run(port, benchCase, settings.fileBytes(),
                settings.durationPerPoint(), seed);
        IoCounters delta = ports.counters().minus(before);
        if (outcome.errors() > 0) {
            throw new IOException(benchCase.name() + " on " + settings.file() + ": " + outcome.errors()
                    + " operations failed; first: " + outcome.firstError());
        }
        Histogram latencies = outcome.latencies();
        double seconds = outcome.elapsedNs() / 1e9;
        return new MeasuredPoint(benchCase, repeat, outcome.ops(), outcome.bytes(), outcome.elapsedNs(), outcome.ops() / seconds,
                outcome.bytes() / seconds, latencies.getMean(), latencies.getValueAtPercentile(50),
                latencies.getValueAtPercentile(99), delta.enterCalls());
    }

    /** The open storage port; io_uring keeps one for the whole sweep, FileChannel reopens when the depth changes. */
    private static final class Ports implements AutoCloseable {
        final SweepSettings settings;
        final PinnedArena arena;
        final boolean uring;
        final int maxQueueDepth;
        StoragePort port;
        int portQueueDepth;
        String status;

        Ports(SweepSettings settings, PinnedArena arena, boolean uring, int maxQueueDepth) {
            this.settings = settings;
            this.arena = arena;
            this.uring = uring;
            this.maxQueueDepth = maxQueueDepth;
        }

        StoragePort forQueueDepth(int queueDepth) throws IOException {
            if (port != null && (uring || portQueueDepth == queueDepth)) {
                return port;
            }
            close();
            if (uring) {
                // The CQ has twice the SQ's entries; an SQ as deep as the deepest queue never makes a slot wait for room.
                int entries = Math.min(IoUringSettings.MAX_RING_ENTRIES, Math.max(8, Integer.highestOneBit(maxQueueDepth - 1 | 1) << 1));
                IoUringBackend backend = IoUringBackend.open(settings.file(), arena, IoUringSettings.defaults().withRings(1, entries));
                status = "io_uring, 1 ring x " + entries + " entries, O_DIRECT, "
                        + (backend.fixedBuffersActive() ? "READ_FIXED/WRITE_FIXED" : "plain READ/WRITE: " + backend.fixedBufferStatus())
                        + "; arena " + arena.lockStatus().reason();
                port = backend;
            } else {
                FileChannelBackend backend = FileChannelBackend.open(settings.file(), arena,
                        FileChannelSettings.defaults().withWorkerThreads(queueDepth));
                status = "filechannel, one worker per queue slot, " + backend.directIoStatus();
                port = backend;
            }
            portQueueDepth = queueDepth;
            return port;
        }

        IoCounters counters() {
            return switch (port) {
                case IoUringBackend backend -> backend.counters();
                case FileChannelBackend backend -> backend.counters();
                default -> throw new IllegalStateException("no counters on " + port.name());
            };
        }

        @Override
        public void close() {
            if (port != null) {
                port.close();
                port = null;
            }
        }
    }

    /** Deletes the test file and its stamp. */
    public static void deleteFile(Path file) throws IOException {
        TestFile.delete(file);
    }
}
