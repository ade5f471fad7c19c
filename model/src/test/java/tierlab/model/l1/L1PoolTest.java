package tierlab.model.l1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

final class L1PoolTest {

    private static final long PAGE = 4096;

    private static void assertShape(L1Pool pool, long freePages, int freeRanges, long largestFreePages) {
        pool.checkInvariants();
        assertEquals(freePages * PAGE, pool.freeBytes(), "freeBytes");
        assertEquals(pool.capacityBytes() - freePages * PAGE, pool.usedBytes(), "usedBytes");
        assertEquals(freeRanges, pool.freeRangeCount(), "freeRangeCount");
        assertEquals(largestFreePages * PAGE, pool.largestFreeRangeBytes(), "largestFreeRangeBytes");
    }

    /** A pool of {@code pages} pages cut into one-page allocations; returns the offsets. */
    private static long[] fillWithSinglePages(L1Pool pool, int pages) {
        long[] offsets = new long[pages];
        for (int i = 0; i < pages; i++) {
            offsets[i] = pool.allocate(PAGE);
            assertEquals(i * PAGE, offsets[i]);
        }
        return offsets;
    }

    @Test
    void freshPoolIsOneFreeRange() {
        L1Pool pool = new L1Pool(16 * PAGE);
        assertEquals(16 * PAGE, pool.capacityBytes());
        assertShape(pool, 16, 1, 16);
        assertEquals(0, pool.usedBytes());
    }

    @Test
    void capacityMustBePositiveAndPageAlignedNamingL1CapacityBytes() {
        for (long bad : new long[] {0, -PAGE, 1, PAGE - 1, PAGE + 1, 10_000}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new L1Pool(bad));
            assertTrue(e.getMessage().contains("l1CapacityBytes"), e.getMessage());
        }
    }

    @Test
    void allocationsAreRoundedUpTo4KiB() {
        L1Pool pool = new L1Pool(16 * PAGE);
        assertEquals(0, pool.allocate(1));
        assertEquals(PAGE, pool.usedBytes());
        assertEquals(PAGE, pool.allocate(PAGE + 1));
        assertEquals(3 * PAGE, pool.usedBytes());
        assertEquals(3 * PAGE, pool.allocate(PAGE));
        assertEquals(4 * PAGE, pool.usedBytes());
        assertEquals(4 * PAGE, pool.allocate(3 * PAGE - 1));
        assertEquals(7 * PAGE, pool.usedBytes());
        assertShape(pool, 9, 1, 9);
        // Releasing an unrounded length releases the whole rounded allocation.
        pool.release(PAGE, PAGE + 1);
        assertShape(pool, 11, 2, 9);
    }

    @Test
    void nonPositiveAllocationIsRefused() {
        L1Pool pool = new L1Pool(4 * PAGE);
        assertThrows(IllegalArgumentException.class, () -> pool.allocate(0));
        assertThrows(IllegalArgumentException.class, () -> pool.allocate(-PAGE));
        assertShape(pool, 4, 1, 4);
    }

    @Test
    void allocationLargerThanTheLargestRangeReturnsNoSpace() {
        L1Pool pool = new L1Pool(4 * PAGE);
        assertEquals(L1Pool.NO_SPACE, pool.allocate(4 * PAGE + 1));
        assertEquals(0, pool.allocate(4 * PAGE));
        assertEquals(L1Pool.NO_SPACE, pool.allocate(1));
        assertShape(pool, 0, 0, 0);
    }

    @Test
    void firstFitPicksTheLowestRangeThatFits() {
        L1Pool pool = new L1Pool(16 * PAGE);
        long a = pool.allocate(2 * PAGE); // [0, 2)
        long b = pool.allocate(PAGE);     // [2, 3)
        long c = pool.allocate(4 * PAGE); // [3, 7)
        long d = pool.allocate(PAGE);     // [7, 8)
        assertEquals(0, a);
        assertEquals(2 * PAGE, b);
        assertEquals(3 * PAGE, c);
        assertEquals(7 * PAGE, d);
        pool.release(a, 2 * PAGE);
        pool.release(c, 4 * PAGE);
        // Free: [0,2) [3,7) [8,16).
        assertShape(pool, 14, 3, 8);
        // Three pages do not fit at 0; [3,7) is the lowest that fits, not the larger [8,16).
        assertEquals(3 * PAGE, pool.allocate(3 * PAGE));
        // One page fits at 0, the lowest range of all.
        assertEquals(0, pool.allocate(PAGE));
        // Two pages: [1,2) and [6,7) are too small, so [8,16).
        assertEquals(8 * PAGE, pool.allocate(2 * PAGE));
        assertShape(pool, 8, 3, 6);
        assertEquals(PAGE, pool.allocate(PAGE));
        assertEquals(6 * PAGE, pool.allocate(PAGE));
        assertShape(pool, 6, 1, 6);
    }

    /** Page 3 after page 2 meets a free left neighbour; page 4 after page 5 a free right one. */
    @ParameterizedTest(name = "page {0}, then its neighbour page {1}")
    @CsvSource({"2, 3", "5, 4"})
    void releaseMergesWithAFreeNeighbour(int firstPage, int neighbourPage) {
        L1Pool pool = new L1Pool(8 * PAGE);
        fillWithSinglePages(pool, 8);
        pool.release(firstPage * PAGE, PAGE);
        assertShape(pool, 1, 1, 1);
        pool.release(neighbourPage * PAGE, PAGE);
        assertShape(pool, 2, 1, 2);
        assertEquals(Math.min(firstPage, neighbourPage) * PAGE, pool.allocate(2 * PAGE),
                "the merged range serves a two-page request");
    }

    @Test
    void releaseMergesWithBothNeighbours() {
        L1Pool pool = new L1Pool(8 * PAGE);
        fillWithSinglePages(pool, 8);
        pool.release(2 * PAGE, PAGE);
        pool.release(4 * PAGE, 2 * PAGE); // part of the pool, two allocations at once
        assertShape(pool, 3, 2, 2);
        pool.release(3 * PAGE, PAGE); // both [2,3) and [4,6) are free
        assertShape(pool, 4, 1, 4);
        assertEquals(2 * PAGE, pool.allocate(4 * PAGE));
    }

    @Test
    void releaseWithoutFreeNeighboursAddsARange() {
        L1Pool pool = new L1Pool(8 * PAGE);
        fillWithSinglePages(pool, 8);
        pool.release(PAGE, PAGE);
        pool.release(3 * PAGE, PAGE);
        pool.release(5 * PAGE, PAGE);
        assertShape(pool, 3, 3, 1);
        // Edges of the pool: first and last page.
        pool.release(0, PAGE);
        assertShape(pool, 4, 3, 2);
        pool.release(7 * PAGE, PAGE);
        assertShape(pool, 5, 4, 2);
    }

    @Test
    void releasingEverythingRestoresOneRange() {
        L1Pool pool = new L1Pool(8 * PAGE);
        long[] offsets = fillWithSinglePages(pool, 8);
        for (int i : new int[] {6, 1, 3, 0, 7, 2, 5, 4}) {
            pool.release(offsets[i], PAGE);
            pool.checkInvariants();
        }
        assertShape(pool, 8, 1, 8);
    }

    @Test
    void fragmentationIsObservable() {
        L1Pool pool = new L1Pool(5 * PAGE);
        long a = pool.allocate(2 * PAGE);
        long b = pool.allocate(PAGE);
        long c = pool.allocate(2 * PAGE);
        assertEquals(L1Pool.NO_SPACE, pool.allocate(1), "the pool is full");
        pool.release(a, 2 * PAGE);
        pool.release(c, 2 * PAGE);
        assertShape(pool, 4, 2, 2);
        // Four pages are free, but no three contiguous ones.
        assertTrue(pool.freeBytes() >= 3 * PAGE);
        assertEquals(L1Pool.NO_SPACE, pool.allocate(3 * PAGE));
        assertShape(pool, 4, 2, 2); // a failed allocation changes nothing
        pool.release(b, PAGE);
        assertEquals(0, pool.allocate(3 * PAGE), "after B returns, the merged range serves it");
    }

    @Test
    void doubleReleaseThrowsAndChangesNothing() {
        L1Pool pool = new L1Pool(8 * PAGE);
        long a = pool.allocate(2 * PAGE);
        pool.allocate(2 * PAGE);
        pool.release(a, 2 * PAGE);
        assertShape(pool, 6, 2, 4);
        assertThrows(IllegalStateException.class, () -> pool.release(a, 2 * PAGE));
        assertThrows(IllegalStateException.class, () -> pool.release(a + PAGE, PAGE), "inside a free range");
        // Straddles the allocated [2,4) and the free [4,8).
        assertThrows(IllegalStateException.class, () -> pool.release(3 * PAGE, 2 * PAGE));
        // Starts in the allocated [2,4) and swallows all of free [4,8)... and beyond the allocation's end.
        assertThrows(IllegalStateException.class, () -> pool.release(2 * PAGE, 6 * PAGE));
        // Starts in free [0,2) and ends in the allocation.
        assertThrows(IllegalStateException.class, () -> pool.release(PAGE, 2 * PAGE));
        assertShape(pool, 6, 2, 4);
    }

    @Test
    void outOfRangeOrMisalignedReleaseThrowsAndChangesNothing() {
        L1Pool pool = new L1Pool(4 * PAGE);
        pool.allocate(4 * PAGE);
        assertThrows(IllegalStateException.class, () -> pool.release(-PAGE, PAGE));
        assertThrows(IllegalStateException.class, () -> pool.release(4 * PAGE, PAGE));
        assertThrows(IllegalStateException.class, () -> pool.release(3 * PAGE, 2 * PAGE));
        assertThrows(IllegalStateException.class, () -> pool.release(100, PAGE));
        assertShape(pool, 0, 0, 0);
    }

    @Test
    void releaseOfNonPositiveLengthIsRefused() {
        // A zero or negative length releases nothing; accepting it would put an empty or negative
        // range on the free list and corrupt freeBytes.
        L1Pool pool = new L1Pool(4 * PAGE);
        pool.allocate(4 * PAGE);
        assertThrows(IllegalStateException.class, () -> pool.release(PAGE, 0));
        assertThrows(IllegalStateException.class, () -> pool.release(PAGE, -PAGE));
        assertShape(pool, 0, 0, 0);
    }

    @Test
    void overlapsFreeSeesAnyFreeByteInTheRange() {
        L1Pool pool = new L1Pool(8 * PAGE);
        assertTrue(pool.overlapsFree(0, 1));
        assertTrue(pool.overlapsFree(7 * PAGE, PAGE));
        pool.allocate(8 * PAGE);
        assertFalse(pool.overlapsFree(0, 8 * PAGE));
        pool.release(3 * PAGE, 2 * PAGE); // free [3,5)
        assertFalse(pool.overlapsFree(0, 3 * PAGE), "ends exactly where the free range starts");
        assertFalse(pool.overlapsFree(5 * PAGE, 3 * PAGE), "starts exactly where the free range ends");
        assertTrue(pool.overlapsFree(0, 3 * PAGE + 1), "one byte into the free range");
        assertTrue(pool.overlapsFree(5 * PAGE - 1, 1), "the free range's last byte");
        assertTrue(pool.overlapsFree(2 * PAGE, 4 * PAGE), "covers the free range");
        assertTrue(pool.overlapsFree(3 * PAGE + 10, 10), "inside the free range");
        assertTrue(pool.overlapsFree(4 * PAGE, 3 * PAGE), "starts inside the free range");
    }

    /** The obviously correct pool: one flag per page, first-fit by scanning. */
    private static final class PageMapPool {
        final boolean[] used;

        PageMapPool(int pages) {
            used = new boolean[pages];
        }

        long allocate(int pages) {
            int run = 0;
            for (int page = 0; page < used.length; page++) {
                run = used[page] ? 0 : run + 1;
                if (run == pages) {
                    int first = page - pages + 1;
                    for (int p = first; p <= page; p++) {
                        used[p] = true;
                    }
                    return first * PAGE;
                }
            }
            return L1Pool.NO_SPACE;
        }

        void release(long offset, int pages) {
            int first = (int) (offset / PAGE);
            for (int p = first; p < first + pages; p++) {
                assertTrue(used[p], "the reference releases only used pages");
                used[p] = false;
            }
        }

        long freePages() {
            long free = 0;
            for (boolean u : used) {
                free += u ? 0 : 1;
            }
            return free;
        }

        int freeRuns() {
            int runs = 0;
            for (int p = 0; p < used.length; p++) {
                if (!used[p] && (p == 0 || used[p - 1])) {
                    runs++;
                }
            }
            return runs;
        }

        long largestRunPages() {
            long largest = 0;
            long run = 0;
            for (boolean u : used) {
                run = u ? 0 : run + 1;
                largest = Math.max(largest, run);
            }
            return largest;
        }

        boolean overlapsFree(long offset, long bytes) {
            for (long b = offset; b < offset + bytes; b += PAGE - (b % PAGE)) {
                if (!used[(int) (b / PAGE)]) {
                    return true;
                }
            }
            return false;
        }
    }

    private record Held(long offset, int pages) {}

    @Test
    void randomAllocateReleaseMatchesAPageMapReference() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int pages = 1 + random.nextInt(128);
            L1Pool pool = new L1Pool(pages * PAGE);
            PageMapPool reference = new PageMapPool(pages);
            List<Held> held = new ArrayList<>();
            int allocations = 0;
            int failures = 0;
            for (int step = 0; step < 3000; step++) {
                String where = "seed " + seed + " step " + step;
                if (held.isEmpty() || random.nextInt(100) < 55) {
                    int requestPages = 1 + random.nextInt(Math.max(1, pages / 4));
                    // Any byte count that rounds up to requestPages pages.
                    long bytes = (requestPages - 1) * PAGE + 1 + random.nextLong(PAGE);
                    long expected = reference.allocate(requestPages);
                    long actual = pool.allocate(bytes);
                    assertEquals(expected, actual, where + ": allocate " + bytes);
                    if (actual != L1Pool.NO_SPACE) {
                        held.add(new Held(actual, requestPages));
                        allocations++;
                    } else {
                        failures++;
                    }
                } else {
                    Held victim = held.remove(random.nextInt(held.size()));
                    // Release all of it, or a page-aligned part and keep the rest(s) held.
                    int from = random.nextInt(victim.pages());
                    int count = 1 + random.nextInt(victim.pages() - from);
                    if (random.nextBoolean()) {
                        from = 0;
                        count = victim.pages();
                    }
                    long offset = victim.offset() + from * PAGE;
                    pool.release(offset, count * PAGE);
                    reference.release(offset, count);
                    if (from > 0) {
                        held.add(new Held(victim.offset(), from));
                    }
                    int after = victim.pages() - from - count;
                    if (after > 0) {
                        held.add(new Held(offset + count * PAGE, after));
                    }
                }
                pool.checkInvariants();
                assertEquals(reference.freePages() * PAGE, pool.freeBytes(), where);
                assertEquals(reference.freeRuns(), pool.freeRangeCount(), where);
                assertEquals(reference.largestRunPages() * PAGE, pool.largestFreeRangeBytes(), where);
                long probeOffset = random.nextLong(pages * PAGE);
                long probeBytes = 1 + random.nextLong(pages * PAGE - probeOffset);
                assertEquals(reference.overlapsFree(probeOffset, probeBytes), pool.overlapsFree(probeOffset, probeBytes),
                        where + ": overlapsFree(" + probeOffset + ", " + probeBytes + ")");
                for (Held h : held) {
                    if (random.nextInt(16) == 0) {
                        assertFalse(pool.overlapsFree(h.offset(), h.pages() * PAGE), where + ": held " + h);
                    }
                }
            }
            assertTrue(allocations > 100, "seed " + seed + " exercised allocation");
            if (pages > 8) {
                assertTrue(failures > 0, "seed " + seed + " exercised NO_SPACE");
            }
        }
    }
}
