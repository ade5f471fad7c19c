package tierlab.experiments.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import tierlab.experiments.OutputFolderCheck;

/**
 * The native memory that the L1 arenas of concurrent hybrid and live runs may take together. Each
 * arena is allocated (and mlocked) whole, and each fits the host on its own (HostLimits), so {@code --jobs} runs at once could
 * ask for more than the host has and push it into swap or the OOM killer. A run takes its L1 bytes
 * from the budget before allocating and gives them back when its arena is freed; a run whose bytes
 * are not free waits for runs ahead of it, and a run that could never fit is refused with one line.
 */
final class L1MemoryBudget {

    /** What the budget leaves for the JVM heap, the page cache and everything else on the host. */
    static final double SHARE_OF_AVAILABLE = 0.75;

    private final long totalBytes;
    private final String source;
    private long inUseBytes;
    private long peakInUseBytes;

    /** The bytes a run holds until {@link #close()}. */
    interface Grant extends AutoCloseable {
        @Override
        void close();
    }

    L1MemoryBudget(long totalBytes, String source) {
        if (totalBytes < 0) {
            throw new IllegalArgumentException("totalBytes must be >= 0, was " + totalBytes);
        }
        this.totalBytes = totalBytes;
        this.source = source;
    }

    /** Three quarters of the memory this host (or its cgroup) has available now. */
    static L1MemoryBudget ofHost() {
        long available = availableMemoryBytes();
        return new L1MemoryBudget((long) (available * SHARE_OF_AVAILABLE), String.format(java.util.Locale.ROOT,
                "%.0f%% of the %s of memory available on this host", SHARE_OF_AVAILABLE * 100,
                OutputFolderCheck.size(available)));
    }

    long totalBytes() {
        return totalBytes;
    }

    /** Null when {@code bytes} can ever be granted, else the one line that says why not. */
    String refusal(long bytes) {
        if (bytes <= totalBytes) {
            return null;
        }
        return "L1 of " + OutputFolderCheck.size(bytes) + " does not fit in the memory L1 arenas may use ("
                + OutputFolderCheck.size(totalBytes) + ": " + source + "); lower store.l1CapacityGiB, free memory, or set"
                + " store.l1LimitGiB to override";
    }

    /**
     * Takes {@code bytes}, waiting while runs ahead of this one hold too much.
     *
     * @throws IllegalArgumentException when {@link #refusal(long)} says it can never be granted
     */
    synchronized Grant acquire(long bytes) throws InterruptedException {
        String refused = refusal(bytes);
        if (refused != null) {
            throw new IllegalArgumentException(refused);
        }
        while (inUseBytes + bytes > totalBytes) {
            wait();
        }
        inUseBytes += bytes;
        peakInUseBytes = Math.max(peakInUseBytes, inUseBytes);
        boolean[] released = new boolean[1];
        return () -> {
            synchronized (L1MemoryBudget.this) {
                if (!released[0]) {
                    released[0] = true;
                    inUseBytes -= bytes;
                    L1MemoryBudget.this.notifyAll();
                }
            }
        };
    }

    synchronized long inUseBytes() {
        return inUseBytes;
    }

    /** The most bytes held at once so far. */
    synchronized long peakInUseBytes() {
        return peakInUseBytes;
    }

    /**
     * MemAvailable of /proc/meminfo, lowered to what the cgroup still allows (memory.max minus
     * memory.current) in a container; the JVM's view of free memory where /proc is not there.
     */
    static long availableMemoryBytes() {
        long available = Long.MAX_VALUE;
        for (String line : lines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemAvailable:")) {
                available = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        List<String> max = lines(Path.of("/sys/fs/cgroup/memory.max"));
        List<String> current = lines(Path.of("/sys/fs/cgroup/memory.current"));
        if (!max.isEmpty() && !current.isEmpty() && max.getFirst().strip().matches("\\d+")
                && current.getFirst().strip().matches("\\d+")) {
            long left = Long.parseLong(max.getFirst().strip()) - Long.parseLong(current.getFirst().strip());
            available = Math.min(available, Math.max(0, left));
        }
        if (available == Long.MAX_VALUE) {
            var os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            available = os instanceof com.sun.management.OperatingSystemMXBean bean ? bean.getFreeMemorySize()
                    : Runtime.getRuntime().maxMemory();
        }
        return available;
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
