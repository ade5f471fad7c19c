package tierlab.sim.device;

import java.util.Map;
import java.util.TreeMap;

/**
 * The byte ranges of the L2 file that some write of the run has touched, as disjoint, non-adjacent
 * half-open intervals. The NVMe model asks it how many bytes of a write land on untouched ranges
 * (a preallocated file's unwritten extents) before it marks them written. A run starts with an
 * untouched file, as a live run's fresh scratch L2 file does.
 *
 * <p>Deterministic: a sorted map keyed by start offset, so no lookup depends on hash order.
 */
final class WrittenExtents {
    /** Start offset → end offset (exclusive) of each written interval. */
    private final TreeMap<Long, Long> endByStart = new TreeMap<>();
    private long writtenBytes;

    /** Bytes of {@code [offsetBytes, offsetBytes + lengthBytes)} that no earlier write touched. */
    long untouchedBytes(long offsetBytes, long lengthBytes) {
        long end = offsetBytes + lengthBytes;
        long covered = 0;
        Map.Entry<Long, Long> before = endByStart.floorEntry(offsetBytes);
        if (before != null && before.getValue() > offsetBytes) {
            covered += Math.min(end, before.getValue()) - offsetBytes;
        }
        for (Map.Entry<Long, Long> inside : endByStart.subMap(offsetBytes, false, end, false).entrySet()) {
            covered += Math.min(end, inside.getValue()) - inside.getKey();
        }
        return lengthBytes - covered;
    }

    /** Marks {@code [offsetBytes, offsetBytes + lengthBytes)} written, merging with touching intervals. */
    void markWritten(long offsetBytes, long lengthBytes) {
        if (lengthBytes <= 0) {
            return;
        }
        long start = offsetBytes;
        long end = offsetBytes + lengthBytes;
        Map.Entry<Long, Long> before = endByStart.floorEntry(start);
        if (before != null && before.getValue() >= start) {
            start = before.getKey();
            end = Math.max(end, before.getValue());
        }
        Map.Entry<Long, Long> next = endByStart.ceilingEntry(start);
        while (next != null && next.getKey() <= end) {
            end = Math.max(end, next.getValue());
            writtenBytes -= next.getValue() - next.getKey();
            endByStart.remove(next.getKey());
            next = endByStart.ceilingEntry(start);
        }
        endByStart.put(start, end);
        writtenBytes += end - start;
    }

    /** Bytes of the file written so far (each byte once). */
    long writtenBytes() {
        return writtenBytes;
    }

    /** Intervals held (merged). */
    int intervals() {
        return endByStart.size();
    }

    /** Intervals are non-empty, disjoint and not adjacent (merged), and their sum is {@link #writtenBytes()}. */
    void checkInvariants() {
        long previousEnd = Long.MIN_VALUE;
        long sum = 0;
        for (Map.Entry<Long, Long> e : endByStart.entrySet()) {
            if (e.getKey() < 0 || e.getValue() <= e.getKey()) {
                throw new IllegalStateException("written interval [" + e.getKey() + ", " + e.getValue() + ") is empty or negative");
            }
            if (e.getKey() <= previousEnd) {
                throw new IllegalStateException("written interval at " + e.getKey() + " overlaps or touches the one ending at " + previousEnd);
            }
            previousEnd = e.getValue();
            sum += e.getValue() - e.getKey();
        }
        if (sum != writtenBytes) {
            throw new IllegalStateException("written bytes " + writtenBytes + " but the intervals hold " + sum);
        }
    }
}
