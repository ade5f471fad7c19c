package tierlab.model.l2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class L2RingTest {

    private static L2Ring.Run live(long runId, int firstSlot, int slotCount) {
        return new L2Ring.Run(runId, firstSlot, slotCount, false);
    }

    private static L2Ring.Run skip(long runId, int firstSlot, int slotCount) {
        return new L2Ring.Run(runId, firstSlot, slotCount, true);
    }

    private static void assertOwners(L2Ring ring, long... ownerBySlot) {
        assertEquals(ownerBySlot.length, ring.slotCount());
        for (int slot = 0; slot < ownerBySlot.length; slot++) {
            assertEquals(ownerBySlot[slot], ring.ownerOf(slot), "owner of slot " + slot);
        }
    }

    @Test
    void slotCountMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new L2Ring(0));
        assertThrows(IllegalArgumentException.class, () -> new L2Ring(-3));
        assertThrows(IllegalArgumentException.class, () -> new L2Ring(1L + Integer.MAX_VALUE));
    }

    @Test
    void freshRingIsEmpty() {
        L2Ring ring = new L2Ring(4);
        assertEquals(4, ring.slotCount());
        assertEquals(0, ring.head());
        assertEquals(0, ring.usedSlots());
        assertTrue(ring.runs().isEmpty());
        assertOwners(ring, -1, -1, -1, -1);
        ring.checkInvariants();
    }

    @Test
    void allocationTakesContiguousSlotsFromTheHead() {
        L2Ring ring = new L2Ring(10);
        L2Ring.Allocation first = ring.allocate(3);
        assertTrue(first.succeeded());
        assertEquals(live(1, 0, 3), first.run());
        assertTrue(first.evicted().isEmpty());
        L2Ring.Allocation second = ring.allocate(2);
        assertEquals(live(2, 3, 2), second.run());
        assertEquals(5, second.run().endSlot());
        assertEquals(5, ring.head());
        assertEquals(5, ring.usedSlots());
        assertOwners(ring, 1, 1, 1, 2, 2, -1, -1, -1, -1, -1);
        assertEquals(List.of(live(1, 0, 3), live(2, 3, 2)), ring.runs());
        assertEquals(3, ring.nextRunId());
        ring.checkInvariants();
    }

    @Test
    void skipOnWrapLeavesASkipRunAndEvictsTheOldest() {
        L2Ring ring = new L2Ring(10);
        assertEquals(live(1, 0, 4), ring.allocate(4).run());
        assertEquals(live(2, 4, 4), ring.allocate(4).run());
        L2Ring.Allocation third = ring.allocate(4);
        ring.checkInvariants();
        // Slots 8-9 cannot hold 4: they become a skip run, allocation wraps to 0 and run 1 is evicted.
        assertEquals(live(4, 0, 4), third.run());
        assertEquals(List.of(live(1, 0, 4)), third.evicted());
        assertEquals(List.of(live(2, 4, 4), skip(3, 8, 2), live(4, 0, 4)), ring.runs());
        assertOwners(ring, 4, 4, 4, 4, 2, 2, 2, 2, 3, 3);
        assertEquals(4, ring.head());
        assertEquals(10, ring.usedSlots());

        // The next store evicts run 2 (the oldest) but keeps the skip run, which is younger.
        L2Ring.Allocation fourth = ring.allocate(4);
        assertEquals(live(5, 4, 4), fourth.run());
        assertEquals(List.of(live(2, 4, 4)), fourth.evicted());
        assertEquals(List.of(skip(3, 8, 2), live(4, 0, 4), live(5, 4, 4)), ring.runs());
        ring.checkInvariants();

        // And the one after: the skip run reaches the tail and is reclaimed along with run 4.
        L2Ring.Allocation fifth = ring.allocate(4);
        assertEquals(List.of(skip(3, 8, 2), live(4, 0, 4)), fifth.evicted());
        ring.checkInvariants();
    }

    @Test
    void evictionIsFifoAndTakesOnlyWhatIsNeeded() {
        L2Ring ring = new L2Ring(10);
        ring.allocate(3); // run 1: 0-2
        ring.allocate(3); // run 2: 3-5
        ring.allocate(3); // run 3: 6-8
        L2Ring.Allocation fill = ring.allocate(1); // run 4: slot 9, exactly fits
        assertEquals(live(4, 9, 1), fill.run());
        assertTrue(fill.evicted().isEmpty());
        assertEquals(10, ring.usedSlots());

        // Full ring: two slots need only run 1 gone; slot 2 stays free, run 2 stays.
        L2Ring.Allocation a = ring.allocate(2);
        assertEquals(live(5, 0, 2), a.run());
        assertEquals(List.of(live(1, 0, 3)), a.evicted());
        assertOwners(ring, 5, 5, -1, 2, 2, 2, 3, 3, 3, 4);
        assertEquals(9, ring.usedSlots());
        ring.checkInvariants();

        // Two more: slot 2 alone is too small, so run 2 (next oldest) goes; run 3 stays.
        L2Ring.Allocation b = ring.allocate(2);
        assertEquals(live(6, 2, 2), b.run());
        assertEquals(List.of(live(2, 3, 3)), b.evicted());
        assertOwners(ring, 5, 5, 6, 6, -1, -1, 3, 3, 3, 4);
        ring.checkInvariants();

        // Five: the free 4-5 plus runs 3 and 4 — evicted oldest first, in one allocation.
        L2Ring.Allocation c = ring.allocate(5);
        assertEquals(live(7, 4, 5), c.run());
        assertEquals(List.of(live(3, 6, 3)), c.evicted());
        assertOwners(ring, 5, 5, 6, 6, 7, 7, 7, 7, 7, 4);
        ring.checkInvariants();

        L2Ring.Allocation d = ring.allocate(3);
        // Only slot 9 remains before the end: it still belongs to run 4, the oldest, which goes;
        // then 1 slot < 3 becomes a skip run, and at slot 0 runs 5 and 6 are evicted for 3 slots.
        assertEquals(List.of(live(4, 9, 1), live(5, 0, 2), live(6, 2, 2)), d.evicted());
        assertEquals(live(9, 0, 3), d.run());
        assertEquals(List.of(live(7, 4, 5), skip(8, 9, 1), live(9, 0, 3)), ring.runs());
        assertOwners(ring, 9, 9, 9, -1, 7, 7, 7, 7, 7, 8);
        ring.checkInvariants();
    }

    @Test
    void wholeRingAllocationEvictsEverything() {
        L2Ring ring = new L2Ring(6);
        ring.allocate(2);
        ring.allocate(2);
        L2Ring.Allocation all = ring.allocate(6);
        assertTrue(all.succeeded());
        // Slots 4-5 are too few: they become skip run 3, which the wrap then evicts with the rest.
        assertEquals(List.of(live(1, 0, 2), live(2, 2, 2), skip(3, 4, 2)), all.evicted());
        assertEquals(List.of(live(4, 0, 6)), ring.runs());
        assertOwners(ring, 4, 4, 4, 4, 4, 4);
        ring.checkInvariants();
    }

    @Test
    void tooLargeAllocationFailsWithoutChangingAnything() {
        L2Ring ring = new L2Ring(10);
        ring.allocate(4);
        L2Ring.Allocation tooLarge = ring.allocate(11);
        assertFalse(tooLarge.succeeded());
        assertNull(tooLarge.run());
        assertTrue(tooLarge.evicted().isEmpty());
        assertEquals(List.of(live(1, 0, 4)), ring.runs());
        assertEquals(4, ring.head());
        assertEquals(2, ring.nextRunId());
        ring.checkInvariants();
    }

    @Test
    void nonPositiveAllocationThrows() {
        L2Ring ring = new L2Ring(10);
        assertThrows(IllegalArgumentException.class, () -> ring.allocate(0));
        assertThrows(IllegalArgumentException.class, () -> ring.allocate(-1));
        assertTrue(ring.runs().isEmpty());
    }

    @Test
    void anEmptyRingRestartsAtZeroWithoutASkipRun() {
        // Documented choice of L2Ring: with nothing live, a store that does not fit before the
        // end of the file restarts at slot 0 and wastes nothing. Only a restored empty ring with
        // its head mid-file reaches this state.
        L2Ring ring = L2Ring.restore(10, List.of(), 7, 5);
        L2Ring.Allocation a = ring.allocate(5);
        assertEquals(live(5, 0, 5), a.run());
        assertTrue(a.evicted().isEmpty());
        assertEquals(List.of(live(5, 0, 5)), ring.runs());
        ring.checkInvariants();

        L2Ring fits = L2Ring.restore(10, List.of(), 7, 5);
        assertEquals(live(5, 7, 3), fits.allocate(3).run(), "a store that fits starts at the head");
    }

    @Test
    void restoreReproducesOwnersAndFutureAllocations() {
        SplittableRandom random = new SplittableRandom(99);
        L2Ring ring = new L2Ring(23);
        for (int i = 0; i < 40; i++) {
            ring.allocate(1 + random.nextInt(9));
        }
        L2Ring restored = L2Ring.restore(ring.slotCount(), ring.runs(), ring.head(), ring.nextRunId());
        assertEquals(ring.runs(), restored.runs());
        assertEquals(ring.head(), restored.head());
        assertEquals(ring.usedSlots(), restored.usedSlots());
        assertEquals(ring.nextRunId(), restored.nextRunId());
        for (int slot = 0; slot < ring.slotCount(); slot++) {
            assertEquals(ring.ownerOf(slot), restored.ownerOf(slot), "slot " + slot);
        }
        // The restored ring continues exactly like the original.
        for (int i = 0; i < 40; i++) {
            int n = 1 + random.nextInt(9);
            L2Ring.Allocation expected = ring.allocate(n);
            L2Ring.Allocation actual = restored.allocate(n);
            assertEquals(expected, actual, "allocation " + i);
            restored.checkInvariants();
        }
    }

    @Test
    void restoreOfOverlappingRunsFailsI2() {
        List<L2Ring.Run> overlapping = List.of(live(1, 0, 4), live(2, 3, 2));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> L2Ring.restore(10, overlapping, 5, 3));
        assertTrue(e.getMessage().contains("I2"), e.getMessage());
        List<L2Ring.Run> outside = List.of(live(1, 8, 4));
        assertThrows(RuntimeException.class, () -> L2Ring.restore(10, outside, 2, 2));
    }

    /**
     * The spec's rule written literally over a slot map: if fewer than n slots remain before the
     * end of the file, clear them (evicting the oldest runs), make them a skip run and wrap to 0
     * (unless nothing is live, when restarting at 0 wastes nothing); then evict the oldest runs
     * until the n slots at the head are free, and take them.
     */
    private static final class ReferenceRing {
        final int slotCount;
        final List<L2Ring.Run> runs = new ArrayList<>(); // oldest first
        int head;
        long nextRunId = 1;

        ReferenceRing(int slotCount) {
            this.slotCount = slotCount;
        }

        long ownerOf(int slot) {
            for (L2Ring.Run run : runs) {
                if (slot >= run.firstSlot() && slot < run.endSlot()) {
                    return run.runId();
                }
            }
            return -1;
        }

        boolean anyOwned(int from, int to) {
            for (int slot = from; slot < to; slot++) {
                if (ownerOf(slot) != -1) {
                    return true;
                }
            }
            return false;
        }

        L2Ring.Allocation allocate(int n) {
            List<L2Ring.Run> evicted = new ArrayList<>();
            if (n > slotCount) {
                return new L2Ring.Allocation(null, evicted);
            }
            if (slotCount - head < n) {
                while (anyOwned(head, slotCount)) {
                    evicted.add(runs.removeFirst());
                }
                if (!runs.isEmpty() && head < slotCount) {
                    runs.add(new L2Ring.Run(nextRunId++, head, slotCount - head, true));
                }
                head = 0;
            }
            while (anyOwned(head, head + n)) {
                evicted.add(runs.removeFirst());
            }
            L2Ring.Run run = new L2Ring.Run(nextRunId++, head, n, false);
            runs.add(run);
            head += n;
            return new L2Ring.Allocation(run, evicted);
        }
    }

    @Test
    void randomAllocationsMatchTheLiteralReference() {
        for (long seed = 1; seed <= 30; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int slotCount = 1 + random.nextInt(40);
            L2Ring ring = new L2Ring(slotCount);
            ReferenceRing reference = new ReferenceRing(slotCount);
            int skips = 0;
            int evictions = 0;
            for (int step = 0; step < 2000; step++) {
                String where = "seed " + seed + " slots " + slotCount + " step " + step;
                // Mostly small stores, sometimes large ones, now and then one that cannot fit.
                int n = random.nextInt(10) == 0 ? 1 + random.nextInt(slotCount + 2) : 1 + random.nextInt(Math.max(1, slotCount / 3));
                L2Ring.Allocation expected = reference.allocate(n);
                L2Ring.Allocation actual = ring.allocate(n);
                ring.checkInvariants();
                assertEquals(expected, actual, where + " n " + n);
                assertEquals(reference.runs, ring.runs(), where);
                long used = 0;
                for (L2Ring.Run run : reference.runs) {
                    used += run.slotCount();
                    if (actual.succeeded() && run.skip() && run.runId() == actual.run().runId() - 1) {
                        skips++;
                    }
                }
                assertEquals(used, ring.usedSlots(), where);
                assertEquals(reference.nextRunId, ring.nextRunId(), where);
                for (int slot = 0; slot < slotCount; slot++) {
                    assertEquals(reference.ownerOf(slot), ring.ownerOf(slot), where + " slot " + slot);
                }
                if (actual.succeeded()) {
                    // The new run's slots all belong to it.
                    for (int slot = actual.run().firstSlot(); slot < actual.run().endSlot(); slot++) {
                        assertEquals(actual.run().runId(), ring.ownerOf(slot));
                    }
                } else {
                    assertTrue(n > slotCount, where);
                }
                evictions += actual.evicted().size();
            }
            assertTrue(evictions > 0, "seed " + seed + " exercised eviction");
            if (slotCount > 4) {
                assertTrue(skips > 0, "seed " + seed + " exercised skip runs");
            }
        }
    }

    @Test
    void aRunClaimingASlotAnotherRunOwnsIsRefusedAtTheClaim() {
        // A snapshot whose runs overlap at slots 2 and 3: the claim itself refuses, before any key is
        // placed in a slot that another key's write may still fill.
        List<L2Ring.Run> overlapping = List.of(new L2Ring.Run(1, 0, 4, false), new L2Ring.Run(2, 2, 4, false));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> L2Ring.restore(10, overlapping, 6, 3));
        assertEquals("I2: L2 runs 1 and 2 overlap at slot 2 (refused at the claim)", e.getMessage());
        L2Ring apart = L2Ring.restore(10, List.of(new L2Ring.Run(1, 0, 4, false), new L2Ring.Run(2, 4, 4, false)), 8, 3);
        assertEquals(8, apart.usedSlots());
        assertEquals(2, apart.ownerOf(7));
    }
}
