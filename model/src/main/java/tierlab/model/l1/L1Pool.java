package tierlab.model.l1;

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
    /**
     * Free ranges, disjoint and never adjacent (adjacent ones are merged), sorted by offset in two
     * parallel arrays: {@code freeStarts[i]} and {@code freeLengths[i]} for {@code i < freeCount}.
     * A pool holds a few dozen free ranges in practice (a Mooncake replay over a 512 GiB pool peaks
     * at 61), so a first-fit scan over contiguous longs and a short shift on insert or merge beat a
     * tree of boxed offsets, and the first fit is the same lowest-addressed range either way.
     */
    private long[] freeStarts = new long[16];
    private long[] freeLengths = new long[16];
    private int freeCount;
    private long freeBytes;

    public L1Pool(long capacityBytes) {
        this.capacityBytes = Settings.pageAligned("l1CapacityBytes", capacityBytes);
        freeStarts[0] = 0;
        freeLengths[0] = capacityBytes;
        freeCount = 1;
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
        return freeCount;
    }

    /** Largest contiguous free range, the biggest allocation that can succeed now. */
    public long largestFreeRangeBytes() {
        long largest = 0;
        for (int i = 0; i < freeCount; i++) {
            largest = Math.max(largest, freeLengths[i]);
        }
        return largest;
    }

    /** First-fit: the lowest-addressed free range that holds the rounded size, or {@link #NO_SPACE}. */
    public long allocate(long bytes) {
        long rounded = Settings.roundUpToPage(Settings.positive("allocation bytes", bytes));
        for (int i = 0; i < freeCount; i++) {
            long length = freeLengths[i];
            if (length >= rounded) {
                long offset = freeStarts[i];
                if (length > rounded) {
                    // The rest of the range starts later but still before the next range: order holds.
                    freeStarts[i] = offset + rounded;
                    freeLengths[i] = length - rounded;
                } else {
                    removeRange(i);
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
        // below: the last range starting at or before offset; above: the first starting at or after it.
        int firstAfter = firstStartAfter(offset);
        int below = firstAfter - 1;
        if (below >= 0 && freeStarts[below] + freeLengths[below] > offset) {
            throw new IllegalStateException("double release: [" + offset + ", +" + rounded + ") overlaps free range at " + freeStarts[below]);
        }
        int above = below >= 0 && freeStarts[below] == offset ? below : firstAfter;
        if (above < freeCount && freeStarts[above] < offset + rounded) {
            throw new IllegalStateException("double release: [" + offset + ", +" + rounded + ") overlaps free range at " + freeStarts[above]);
        }
        boolean mergeBelow = below >= 0 && freeStarts[below] + freeLengths[below] == offset;
        boolean mergeAbove = above < freeCount && freeStarts[above] == offset + rounded;
        if (mergeBelow && mergeAbove) {
            freeLengths[below] += rounded + freeLengths[above];
            removeRange(above);
        } else if (mergeBelow) {
            freeLengths[below] += rounded;
        } else if (mergeAbove) {
            freeStarts[above] = offset;
            freeLengths[above] += rounded;
        } else {
            insertRange(firstAfter, offset, rounded);
        }
        freeBytes += rounded;
    }

    /** Whether any byte of [offset, offset+bytes) is on the free list (invariant I3 asks it). */
    public boolean overlapsFree(long offset, long bytes) {
        int firstAfter = firstStartAfter(offset);
        int below = firstAfter - 1;
        if (below >= 0 && freeStarts[below] + freeLengths[below] > offset) {
            return true;
        }
        int above = below >= 0 && freeStarts[below] == offset ? below : firstAfter;
        return above < freeCount && freeStarts[above] < offset + bytes;
    }

    /** The index of the first free range that starts after {@code offset} ({@code freeCount} if none). */
    private int firstStartAfter(long offset) {
        int low = 0;
        int high = freeCount;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (freeStarts[middle] <= offset) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    private void removeRange(int index) {
        int after = freeCount - index - 1;
        System.arraycopy(freeStarts, index + 1, freeStarts, index, after);
        System.arraycopy(freeLengths, index + 1, freeLengths, index, after);
        freeCount--;
    }

    private void insertRange(int index, long start, long length) {
        if (freeCount == freeStarts.length) {
            freeStarts = java.util.Arrays.copyOf(freeStarts, freeCount * 2);
            freeLengths = java.util.Arrays.copyOf(freeLengths, freeCount * 2);
        }
        System.arraycopy(freeStarts, index, freeStarts, index + 1, freeCount - index);
        System.arraycopy(freeLengths, index, freeLengths, index + 1, freeCount - index);
        freeStarts[index] = start;
        freeLengths[index] = length;
        freeCount++;
    }

    /** Free ranges are disjoint, non-adjacent, inside the pool, and add up to freeBytes. */
    public void checkInvariants() {
        long sum = 0;
        long previousEnd = -1;
        for (int i = 0; i < freeCount; i++) {
            long offset = freeStarts[i];
            long length = freeLengths[i];
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
