package tierlab.experiments.calibration;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import tierlab.engine.PinnedArena;
import tierlab.engine.cuda.CudaApi;
import tierlab.engine.cuda.CudaException;
import tierlab.metrics.Percentiles;

/**
 * The PCIe sweep: host→device and device→host copies through the CUDA binding, for each copy size
 * and number of streams, from L1-like host memory (an mlocked {@link PinnedArena} registered with
 * {@code cudaHostRegister}, the live copy port's own set-up) and, for reference, from pageable
 * memory. Each point enqueues enough {@code cudaMemcpyAsync}s (round robin over its streams, each
 * stream with its own host and device region) to move about {@code bytesPerPoint}, then waits for
 * every stream; its time is the wall clock around both, so per-copy submission costs count, as they
 * do in live mode. Repeats run the whole grid again (interleaved), and a point's figures are the
 * medians over repeats.
 */
public final class PcieSweep {

    public enum Direction { H2D, D2H }

    /**
     * @param copySizesBytes bytes per copy [64 KiB … 64 MiB, and 2.25 MiB: a Qwen3-8B block of 16 tokens]
     * @param streamCounts   concurrent streams [1, 2, 3, 4]
     * @param bytesPerPoint  bytes each point moves per repeat [1 GiB]
     * @param repeats        passes over the grid [3]
     * @param pageableSizes  copy sizes also measured from pageable memory, one stream [2.25 MiB, 64 MiB]
     */
    public record Settings(List<Long> copySizesBytes, List<Integer> streamCounts, long bytesPerPoint, int repeats,
                           List<Long> pageableSizes) {
        public Settings {
            copySizesBytes = List.copyOf(copySizesBytes);
            streamCounts = List.copyOf(streamCounts);
            pageableSizes = List.copyOf(pageableSizes);
            if (copySizesBytes.isEmpty() || streamCounts.isEmpty()) {
                throw new IllegalArgumentException("the PCIe sweep needs at least one copy size and one stream count");
            }
            for (long size : copySizesBytes) {
                if (size <= 0 || size > MAX_COPY_BYTES) {
                    throw new IllegalArgumentException("copy size " + size + " bytes: must be in 1.." + MAX_COPY_BYTES);
                }
            }
            for (long size : pageableSizes) {
                if (size <= 0 || size > MAX_COPY_BYTES) {
                    throw new IllegalArgumentException("pageable copy size " + size + " bytes: must be in 1.." + MAX_COPY_BYTES);
                }
            }
            for (int streams : streamCounts) {
                if (streams < 1 || streams > 16) {
                    throw new IllegalArgumentException("stream count " + streams + ": must be in 1..16");
                }
            }
            if (bytesPerPoint <= 0 || repeats < 1) {
                throw new IllegalArgumentException("bytesPerPoint and repeats must be positive");
            }
        }

        public static Settings defaults() {
            List<Long> sizes = List.of(64L << 10, 256L << 10, 1L << 20, 9L << 18, 4L << 20, 16L << 20, 64L << 20);
            return new Settings(sizes, List.of(1, 2, 3, 4), 1L << 30, 3, List.of(9L << 18, 64L << 20));
        }

        /** A short run for smoke tests: two sizes, one and two streams, 64 MiB per point, one repeat. */
        public static Settings quick() {
            return new Settings(List.of(1L << 20, 9L << 18, 16L << 20), List.of(1, 2), 64L << 20, 1, List.of(9L << 18));
        }

        long maxSize() {
            long max = 0;
            for (long size : copySizesBytes) {
                max = Math.max(max, size);
            }
            for (long size : pageableSizes) {
                max = Math.max(max, size);
            }
            return max;
        }

        int maxStreams() {
            return streamCounts.stream().mapToInt(Integer::intValue).max().orElse(1);
        }
    }

    /** The largest copy the sweep accepts (1 GiB). */
    public static final long MAX_COPY_BYTES = 1L << 30;
    /** Copies per point are at least this many (a few per stream) and at most {@link #MAX_COPIES}. */
    static final int MIN_COPIES = 8;
    static final int MAX_COPIES = 20_000;

    /** One measured point: medians over repeats, and the range of throughput. */
    public record Point(Direction direction, long copyBytes, int streams, boolean pinned, int copies, double seconds,
                       double bytesPerSecond, double nsPerCopy, double minBytesPerSecond, double maxBytesPerSecond) {}

    private final CudaApi api;
    private final int device;
    private final Settings settings;

    public PcieSweep(CudaApi api, int device, Settings settings) {
        this.api = api;
        this.device = device;
        this.settings = settings;
    }

    /** Copies per point: enough to move {@code bytesPerPoint}, within the bounds. */
    static int copies(long copyBytes, long bytesPerPoint, int streams) {
        long wanted = (bytesPerPoint + copyBytes - 1) / copyBytes;
        long floor = Math.max(MIN_COPIES, 2L * streams);
        return (int) Math.min(MAX_COPIES, Math.max(floor, wanted));
    }

    /**
     * Runs the sweep; {@code progress} (may be null) gets one line per point of the first repeat.
     *
     * @throws CudaException when CUDA refuses the set-up (allocation, streams) or a copy
     */
    public List<Point> run(Consumer<String> progress) {
        api.setDevice(device);
        long regionBytes = align(settings.maxSize());
        int streams = settings.maxStreams();
        long totalBytes = regionBytes * streams;
        List<double[]> seconds = new ArrayList<>();
        List<Point> shape = new ArrayList<>();
        try (PinnedArena host = PinnedArena.allocate(totalBytes);
             Arena pageableArena = Arena.ofShared()) {
            MemorySegment pageable = pageableArena.allocate(regionBytes, PinnedArena.ALIGNMENT_BYTES);
            long deviceBase = api.malloc(totalBytes);
            long[] streamHandles = new long[streams];
            boolean registered = false;
            try {
                api.hostRegister(host.baseAddress(), totalBytes, CudaApi.HOST_REGISTER_DEFAULT);
                registered = true;
                for (int s = 0; s < streams; s++) {
                    streamHandles[s] = api.streamCreate(CudaApi.STREAM_NON_BLOCKING);
                }
                for (Direction direction : Direction.values()) {
                    for (long size : settings.copySizesBytes()) {
                        for (int count : settings.streamCounts()) {
                            shape.add(new Point(direction, size, count, true, copies(size, settings.bytesPerPoint(), count), 0, 0, 0, 0, 0));
                        }
                    }
                    for (long size : settings.pageableSizes()) {
                        shape.add(new Point(direction, size, 1, false, copies(size, settings.bytesPerPoint(), 1), 0, 0, 0, 0, 0));
                    }
                }
                for (Point ignored : shape) {
                    seconds.add(new double[settings.repeats()]);
                }
                // Warm-up: the first copies of a context pay for lazy set-up.
                measure(shape.getFirst(), host.baseAddress(), pageable.address(), deviceBase, regionBytes, streamHandles, 2);
                for (int repeat = 0; repeat < settings.repeats(); repeat++) {
                    for (int i = 0; i < shape.size(); i++) {
                        Point point = shape.get(i);
                        double s = measure(point, host.baseAddress(), pageable.address(), deviceBase, regionBytes,
                                streamHandles, point.copies());
                        seconds.get(i)[repeat] = s;
                        if (repeat == 0 && progress != null) {
                            progress.accept(String.format(Locale.ROOT, "  %s %9s x %5d, %d stream%s%s: %6.2f GB/s", point.direction(),
                                    size(point.copyBytes()), point.copies(), point.streams(), point.streams() == 1 ? "" : "s",
                                    point.pinned() ? "" : ", pageable", point.copies() * (double) point.copyBytes() / s / 1e9));
                        }
                    }
                }
            } finally {
                for (long stream : streamHandles) {
                    if (stream != 0) {
                        api.streamDestroy(stream);
                    }
                }
                if (registered) {
                    api.hostUnregister(host.baseAddress());
                }
                api.free(deviceBase);
            }
        }
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < shape.size(); i++) {
            Point point = shape.get(i);
            double[] s = seconds.get(i).clone();
            Arrays.sort(s);
            double median = Percentiles.medianMidpoint(s);
            double bytes = point.copies() * (double) point.copyBytes();
            points.add(new Point(point.direction(), point.copyBytes(), point.streams(), point.pinned(), point.copies(), median,
                    bytes / median, median * 1e9 / point.copies(), bytes / s[s.length - 1], bytes / s[0]));
        }
        return points;
    }

    /** Seconds for {@code copies} copies of the point, round robin over its streams. */
    private double measure(Point point, long pinnedBase, long pageableBase, long deviceBase, long regionBytes,
                           long[] streams, int copies) {
        long start = System.nanoTime();
        for (int c = 0; c < copies; c++) {
            int s = c % point.streams();
            long hostAddress = point.pinned() ? pinnedBase + s * regionBytes : pageableBase;
            long deviceAddress = deviceBase + s * regionBytes;
            int code = point.direction() == Direction.H2D
                    ? api.memcpyAsync(deviceAddress, hostAddress, point.copyBytes(), CudaApi.MEMCPY_HOST_TO_DEVICE, streams[s])
                    : api.memcpyAsync(hostAddress, deviceAddress, point.copyBytes(), CudaApi.MEMCPY_DEVICE_TO_HOST, streams[s]);
            check("cudaMemcpyAsync", code);
        }
        for (int s = 0; s < point.streams(); s++) {
            check("cudaStreamSynchronize", api.streamSynchronize(streams[s]));
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private void check(String call, int code) {
        if (code != CudaApi.SUCCESS) {
            throw new CudaException(call, code, api.errorName(code), api.errorString(code));
        }
    }

    private static long align(long bytes) {
        return (bytes + PinnedArena.ALIGNMENT_BYTES - 1) / PinnedArena.ALIGNMENT_BYTES * PinnedArena.ALIGNMENT_BYTES;
    }

    /** "64 KiB", "2.25 MiB", "64 MiB". */
    public static String size(long bytes) {
        if (bytes >= 1L << 20) {
            double mib = bytes / (double) (1L << 20);
            return mib == Math.rint(mib) ? (long) mib + " MiB" : String.format(Locale.ROOT, "%.2f MiB", mib);
        }
        if (bytes >= 1L << 10) {
            double kib = bytes / 1024.0;
            return kib == Math.rint(kib) ? (long) kib + " KiB" : String.format(Locale.ROOT, "%.1f KiB", kib);
        }
        return bytes + " B";
    }
}
