package tierlab.sim.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The kernel's heap plus sorted timelines must fire events in exactly the order of one priority
 * queue over (time, sequence): decisions, and so trace hashes, depend on it.
 */
class SimulatorOrderTest {

    /** A reference queue entry: the sequence is the scheduling order, as in the kernel. */
    private record Pending(long timeNs, long sequence, int id) {}

    private static final Comparator<Pending> BY_TIME_THEN_SEQUENCE =
            Comparator.comparingLong(Pending::timeNs).thenComparingLong(Pending::sequence);

    /**
     * Runs the kernel and a reference PriorityQueue side by side through random schedules: bursts of
     * events in time order (as a trace replay schedules arrivals), random times with many ties,
     * events scheduled from inside events, single steps and horizon runs.
     */
    @Test
    void firesInTheOrderOfAReferencePriorityQueue() {
        for (long seed = 1; seed <= 200; seed++) {
            new Scenario(seed).play();
        }
    }

    private static final class Scenario {
        private final SplittableRandom random;
        private final Simulator simulator = new Simulator();
        private final PriorityQueue<Pending> reference = new PriorityQueue<>(BY_TIME_THEN_SEQUENCE);
        private final List<Integer> fired = new ArrayList<>();
        private final List<Integer> expected = new ArrayList<>();
        private long nextSequence;
        private int nextId;
        private int checked;
        // A small time range makes equal times common.
        private final long spanNs;

        Scenario(long seed) {
            random = new SplittableRandom(seed);
            spanNs = 1 + random.nextLong(seed % 3 == 0 ? 8 : 1_000);
        }

        void play() {
            int operations = 200 + random.nextInt(800);
            for (int i = 0; i < operations; i++) {
                switch (random.nextInt(6)) {
                    case 0 -> scheduleAt(simulator.nowNs() + random.nextLong(spanNs), 0);
                    case 1 -> {
                        // A burst in time order, like arrivals scheduled up front.
                        long timeNs = simulator.nowNs() + random.nextLong(spanNs);
                        for (int n = random.nextInt(50); n > 0; n--) {
                            scheduleAt(timeNs, random.nextInt(3));
                            timeNs += random.nextLong(3);
                        }
                    }
                    case 2 -> scheduleAt(simulator.nowNs() + random.nextLong(spanNs), 1 + random.nextInt(3));
                    case 3 -> {
                        boolean firedOne = simulator.step();
                        boolean expectedOne = referenceFireUpTo(Long.MAX_VALUE);
                        assertEquals(expectedOne, firedOne);
                    }
                    case 4 -> {
                        long horizonNs = simulator.nowNs() + random.nextLong(spanNs);
                        long firedCount = simulator.run(horizonNs);
                        long expectedCount = 0;
                        while (referenceFireUpTo(horizonNs)) {
                            expectedCount++;
                        }
                        assertEquals(expectedCount, firedCount);
                    }
                    default -> {
                        // A horizon already passed fires nothing, and the past is refused without
                        // taking a sequence number.
                        assertEquals(0, simulator.run(simulator.nowNs() - 1));
                        if (simulator.nowNs() > 0) {
                            assertThrows(IllegalArgumentException.class,
                                    () -> simulator.at(simulator.nowNs() - 1, now -> { }));
                        }
                    }
                }
                assertEquals(reference.size(), simulator.pendingEvents());
                // Only what fired since the last check, so a long scenario stays linear.
                assertEquals(expected.subList(checked, expected.size()), fired.subList(checked, fired.size()));
                checked = fired.size();
            }
            long firedCount = simulator.run();
            while (referenceFireUpTo(Long.MAX_VALUE)) {
                firedCount--;
            }
            assertEquals(0, firedCount);
            assertEquals(expected, fired);
            assertEquals(0, simulator.pendingEvents());
            assertEquals(expected.size(), simulator.eventsFired());
            assertFalse(simulator.step());
        }

        /** Schedules an event that, when fired, schedules {@code children} more (at most 3 deep in effect). */
        private void scheduleAt(long timeNs, int children) {
            int id = nextId++;
            reference.add(new Pending(timeNs, nextSequence++, id));
            simulator.at(timeNs, nowNs -> {
                assertEquals(timeNs, nowNs);
                fired.add(id);
                for (int c = 0; c < children; c++) {
                    // Children at now (a tie with everything else at now) or later.
                    scheduleAt(nowNs + random.nextLong(spanNs), children - 1);
                }
            });
        }

        /**
         * Pops the reference queue's earliest entry if it is at or before the horizon and replays
         * what the kernel's event did; the kernel already fired it, so its children are already in
         * both queues: only the expected order is recorded here.
         */
        private boolean referenceFireUpTo(long horizonNs) {
            Pending next = reference.peek();
            if (next == null || next.timeNs() > horizonNs) {
                return false;
            }
            reference.poll();
            expected.add(next.id());
            return true;
        }
    }

    @Test
    void arrivalsScheduledInTimeOrderStayOutOfTheHeap() {
        Simulator simulator = new Simulator();
        List<Long> fired = new ArrayList<>();
        // 4,000 arrivals up front, some at the same instant, like a trace replay.
        for (int i = 0; i < 4_000; i++) {
            simulator.at(i / 3 * 1_000L, fired::add);
        }
        assertEquals(0, simulator.heapPendingEvents());
        assertEquals(4_000, simulator.pendingEvents());
        // Work scheduled while arrivals are pending is earlier than the last arrival: in time order
        // among itself it goes on the second timeline, and only what goes back in time on both to the heap.
        simulator.at(500, now -> fired.add(-now));
        simulator.at(700, now -> fired.add(-now));
        assertEquals(0, simulator.heapPendingEvents());
        simulator.at(400, now -> fired.add(-now));
        assertEquals(1, simulator.heapPendingEvents());
        assertEquals(4_003, simulator.pendingEvents());
        assertEquals(12, simulator.run(2_000));
        assertEquals(List.of(0L, 0L, 0L, -400L, -500L, -700L, 1_000L, 1_000L, 1_000L, 2_000L, 2_000L, 2_000L), fired);
        assertEquals(0, simulator.heapPendingEvents());
        simulator.run();
        assertEquals(4_003, fired.size());
        assertEquals(0, simulator.pendingEvents());
    }

    @Test
    void aTimelineThatWrapsManyTimesKeepsItsOrder() {
        // Appends and pops in lockstep slide the timeline's live entries to the front; a growing
        // backlog makes it grow. Both must keep every entry and its order.
        Simulator simulator = new Simulator();
        List<Long> fired = new ArrayList<>();
        long timeNs = 0;
        for (int round = 0; round < 50; round++) {
            for (int n = 0; n < 300; n++) {
                simulator.at(timeNs++, fired::add);
            }
            simulator.run(timeNs - 100);
        }
        simulator.run();
        assertEquals(0, simulator.heapPendingEvents());
        assertEquals(timeNs, fired.size());
        for (int i = 0; i < fired.size(); i++) {
            assertEquals(i, fired.get(i));
        }
        long pastNs = timeNs - 2;
        assertThrows(IllegalArgumentException.class, () -> simulator.at(pastNs, now -> { }));
    }
}
