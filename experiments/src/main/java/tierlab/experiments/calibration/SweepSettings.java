package tierlab.experiments.calibration;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import tierlab.bench.BenchCase;

/**
 * What the calibration sweep measures: every access pattern × block size × queue depth, each
 * for {@code durationPerPoint}, the whole grid {@code repeats} times (interleaved: repeat 2 starts
 * only when repeat 1 has visited every point, so a drift of the disk spreads over all points
 * instead of biasing some). Each check names the field it rejects.
 *
 * @param file             the O_DIRECT test file (created and filled with random bytes when absent or of another size)
 * @param fileBytes        size of the test file; every offset lies below it
 * @param accesses         access patterns (fio's randread, randwrite, read, write)
 * @param blockSizesBytes  bytes per operation, multiples of 4096
 * @param queueDepths      operations kept in flight (closed loop), 1..1024
 * @param durationPerPoint how long one point runs (the operations in flight at the deadline are drained and counted)
 * @param repeats          interleaved passes over the grid; the result keeps every pass, medians are taken over them
 * @param backend          which storage port carries the I/O
 * @param seed             seeds the random offsets (per point and repeat), so a sweep repeats its offsets
 */
public record SweepSettings(Path file, long fileBytes, List<BenchCase.Access> accesses, List<Integer> blockSizesBytes,
                            List<Integer> queueDepths, Duration durationPerPoint, int repeats, Backend backend, long seed) {

    /** The storage port the sweep runs on. */
    public enum Backend {
        /** The io_uring engine ({@code IoUringBackend}), one ring, O_DIRECT, registered buffers. */
        IO_URING,
        /** The FileChannel fallback with one worker thread per queue slot (O_DIRECT when the file system allows). */
        FILE_CHANNEL,
        /** io_uring when the kernel allows it, else FileChannel (as {@code StoragePorts.open} decides). */
        BEST
    }

    public static final List<BenchCase.Access> ALL_ACCESSES = List.of(BenchCase.Access.values());
    /** 4 KiB to 2 MiB: from one page to just under the 2.25 MiB of a Qwen3-8B KV block. */
    public static final List<Integer> DEFAULT_BLOCK_SIZES_BYTES =
            List.of(4 << 10, 16 << 10, 64 << 10, 128 << 10, 512 << 10, 1 << 20, 2 << 20);
    public static final List<Integer> DEFAULT_QUEUE_DEPTHS = List.of(1, 4, 16, 64);

    public SweepSettings {
        Objects.requireNonNull(file, "sweep.file must be set");
        if (fileBytes < (4L << 20) || fileBytes % 4096 != 0) {
            throw new IllegalArgumentException("sweep.fileBytes must be a multiple of 4096 and at least 4 MiB, was " + fileBytes);
        }
        accesses = nonEmpty("sweep.accesses", accesses);
        blockSizesBytes = nonEmpty("sweep.blockSizesBytes", blockSizesBytes);
        queueDepths = nonEmpty("sweep.queueDepths", queueDepths);
        for (int blockBytes : blockSizesBytes) {
            if (blockBytes <= 0 || blockBytes % 4096 != 0) {
                throw new IllegalArgumentException("sweep.blockSizesBytes must hold positive multiples of 4096, had " + blockBytes);
            }
            if (blockBytes > fileBytes) {
                throw new IllegalArgumentException("sweep.blockSizesBytes: " + blockBytes + " is larger than sweep.fileBytes " + fileBytes);
            }
        }
        for (int queueDepth : queueDepths) {
            if (queueDepth < 1 || queueDepth > 1024) {
                throw new IllegalArgumentException("sweep.queueDepths must lie between 1 and 1024, had " + queueDepth);
            }
        }
        Objects.requireNonNull(durationPerPoint, "sweep.durationPerPoint must be set");
        if (durationPerPoint.isNegative() || durationPerPoint.toMillis() < 10) {
            throw new IllegalArgumentException("sweep.durationPerPoint must be at least 10 ms, was " + durationPerPoint);
        }
        if (repeats < 1 || repeats > 100) {
            throw new IllegalArgumentException("sweep.repeats must lie between 1 and 100, was " + repeats);
        }
        Objects.requireNonNull(backend, "sweep.backend must be set");
    }

    /**
     * The full grid (4 patterns × 7 sizes × 4 depths = 112 points), 0.5 s per point, 3 interleaved
     * repeats, on a 1 GiB file: about three minutes, and a median of three per point on a disk whose
     * throughput drifts 2–3.5× within minutes.
     */
    public static SweepSettings defaults(Path file) {
        return new SweepSettings(file, 1L << 30, ALL_ACCESSES, DEFAULT_BLOCK_SIZES_BYTES, DEFAULT_QUEUE_DEPTHS,
                Duration.ofMillis(500), 3, Backend.BEST, 20_261_130L);
    }

    /** A few seconds: two sizes (4 KiB and 1 MiB, far enough apart that timing noise cannot hide the per-byte cost), two depths, 50 ms per point, one pass, a 16 MiB file (for tests). */
    public static SweepSettings quick(Path file) {
        return new SweepSettings(file, 16L << 20, ALL_ACCESSES, List.of(4 << 10, 1 << 20), List.of(1, 8),
                Duration.ofMillis(50), 1, Backend.BEST, 20_261_130L);
    }

    public SweepSettings withBackend(Backend newBackend) {
        return new SweepSettings(file, fileBytes, accesses, blockSizesBytes, queueDepths, durationPerPoint, repeats, newBackend, seed);
    }

    public SweepSettings withGrid(List<BenchCase.Access> newAccesses, List<Integer> newBlockSizesBytes, List<Integer> newQueueDepths) {
        return new SweepSettings(file, fileBytes, newAccesses, newBlockSizesBytes, newQueueDepths, durationPerPoint, repeats, backend, seed);
    }

    public SweepSettings withTiming(Duration newDurationPerPoint, int newRepeats) {
        return new SweepSettings(file, fileBytes, accesses, blockSizesBytes, queueDepths, newDurationPerPoint, newRepeats, backend, seed);
    }

    public SweepSettings withFile(Path newFile, long newFileBytes) {
        return new SweepSettings(newFile, newFileBytes, accesses, blockSizesBytes, queueDepths, durationPerPoint, repeats, backend, seed);
    }

    /** Points per pass over the grid. */
    public int pointsPerRepeat() {
        return accesses.size() * blockSizesBytes.size() * queueDepths.size();
    }

    /** The grid in the order of one pass: by pattern, then block size, then queue depth. */
    public List<BenchCase> grid() {
        java.util.ArrayList<BenchCase> cases = new java.util.ArrayList<>();
        for (BenchCase.Access access : accesses) {
            for (int blockBytes : blockSizesBytes) {
                for (int queueDepth : queueDepths) {
                    cases.add(new BenchCase(access, blockBytes, queueDepth));
                }
            }
        }
        return List.copyOf(cases);
    }

    private static <T> List<T> nonEmpty(String field, List<T> values) {
        if (values == null || values.isEmpty()) {
            throw new IllegalArgumentException(field + " must name at least one value");
        }
        for (T value : values) {
            if (value == null) {
                throw new IllegalArgumentException(field + " must not contain null");
            }
        }
        return List.copyOf(values);
    }
}
