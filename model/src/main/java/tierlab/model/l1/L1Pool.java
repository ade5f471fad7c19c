package tierlab.model.l1;

import java.util.Map;
import java.util.TreeMap;
import tierlab.model.Settings;

/**
 * The pinned-memory pool as an address space: first-fit over sorted free ranges, merging
 * neighbours on release, so fragmentation is real and observable.
 *
 * <p>Every allocation is rounded up to 4 KiB because O_DIRECT transfers to and from these bytes
 * must be page aligned. The pool knows nothing about roles: the store's slices hold roles and
 * return their bytes here only when no role is left.
 */
public final class L1Pool {
    /** Returned by {@link #allocate} when no free range is large enough. */
    public static final long NO_SPACE = -1;

    private final long capacityBytes;
    /** Free ranges: offset → length, disjoint and never adjacent (adjacent ones are merged). */
    private final TreeMap<Long, Long> freeRanges = new TreeMap<>();
    private long freeBytes;

    public L1Pool(long capacityBytes) {
        this.capacityBytes = Settings.pageAligned("l1CapacityBytes", capacityBytes);
        freeRanges.put(0L, capacityBytes);
        freeBytes = capacityBytes;
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    public long freeBytes() {
        return freeBytes;
    }

    public long usedBytes() {
        return capacityBytes - freeBytes;
    }

    /** Number of free ranges: 1 means unfragmented (or full), more means fragmented. */
    public int freeRangeCount() {
        return freeRanges.size();
    }

    /** Largest contiguous free range, the biggest allocation that can succeed now. */
    public long largestFreeRangeBytes() {
        long largest = 0;
        for (long length : freeRanges.values()) {
            largest = Math.max(largest, length);
        }
        return largest;
    }

    /** First-fit: the lowest-addressed free range that holds the rounded size, or {@link #NO_SPACE}. */
    public long allocate(long bytes) {
        long rounded = Settings.roundUpToPage(Settings.positive("allocation bytes", bytes));
        for (Map.Entry<Long, Long> range : freeRanges.entrySet()) {
            long offset = range.getKey();
            long length = range.getValue();
            if (length >= rounded) {
                freeRanges.remove(offset);
                if (length > rounded) {
                    freeRanges.put(offset + rounded, length - rounded);
                }
                freeBytes -= rounded;
                return offset;
            }
        }
        return NO_SPACE;
    }

    /** Returns a range (all or part of an earlier allocation) and merges it with free neighbours. */
    public void release(long offset, long bytes) {
        long rounded = Settings.roundUpToPage(bytes);
        if (bytes <= 0 || offset < 0 || offset % Settings.PAGE_BYTES != 0 || offset + rounded > capacityBytes) {
            throw new IllegalStateException("release of [" + offset + ", +" + rounded + ") is outside the pool");
        }
        Map.Entry<Long, Long> below = freeRanges.floorEntry(offset);
        if (below != null && below.getKey() + below.getValue() > offset) {
            throw new IllegalStateException("double release: [" + offset + ", +" + rounded + ") overlaps free range at " + below.getKey());
        }
        Map.Entry<Long, Long> above = freeRanges.ceilingEntry(offset);
        if (above != null && above.getKey() < offset + rounded) {
            throw new IllegalStateException("double release: [" + offset + ", +" + rounded + ") overlaps free range at " + above.getKey());
        }
        long start = offset;
        long length = rounded;
        if (below != null && below.getKey() + below.getValue() == offset) {
            start = below.getKey();
            length += below.getValue();
            freeRanges.remove(below.getKey());
        }
        if (above != null && above.getKey() == offset + rounded) {
            length += above.getValue();
            freeRanges.remove(above.getKey());
        }
        freeRanges.put(start, length);
        freeBytes += rounded;
    }

    /** Whether any byte of [offset, offset+bytes) is on the free list (invariant I3 asks it). */
    public boolean overlapsFree(long offset, long bytes) {
        Map.Entry<Long, Long> below = freeRanges.floorEntry(offset);
        if (below != null && below.getKey() + below.getValue() > offset) {
            return true;
        }
        Map.Entry<Long, Long> above = freeRanges.ceilingEntry(offset);
        return above != null && above.getKey() < offset + bytes;
    }

    /** Free ranges are disjoint, non-adjacent, inside the pool, and add up to freeBytes. */
    public void checkInvariants() {
        long sum = 0;
        long previousEnd = -1;
        for (Map.Entry<Long, Long> range : freeRanges.entrySet()) {
            long offset = range.getKey();
            long length = range.getValue();
            if (length <= 0 || offset < 0 || offset + length > capacityBytes) {
                throw new IllegalStateException("I1: free range [" + offset + ", +" + length + ") is outside the pool");
            }
            if (offset <= previousEnd) {
                throw new IllegalStateException("I1: free range at " + offset + " overlaps or touches the one before (ends " + previousEnd + ")");
            }
            previousEnd = offset + length;
            sum += length;
        }
        if (sum != freeBytes) {
            throw new IllegalStateException("I1: free ranges add up to " + sum + " but freeBytes is " + freeBytes);
        }
    }
}
