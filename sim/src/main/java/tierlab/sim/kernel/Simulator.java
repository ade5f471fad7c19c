package tierlab.sim.kernel;

import java.util.PriorityQueue;

/**
 * The discrete-event kernel: virtual time in nanoseconds and a queue of events ordered by
 * (time, sequence). Two events at the same instant fire in the order they were scheduled, so a
 * run is a pure function of its inputs and seeds.
 *
 * <p>Nothing here reads a clock or starts a thread: {@link #run} pops events until the queue is
 * empty (quiescence) or the next event lies past the horizon.
 */
public final class Simulator {

    /** Something that happens at a virtual instant. */
    @FunctionalInterface
    public interface Event {
        void fire(long nowNs);
    }

    private record Scheduled(long timeNs, long sequence, Event event) implements Comparable<Scheduled> {
        @Override
        public int compareTo(Scheduled other) {
            int byTime = Long.compare(timeNs, other.timeNs);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private final PriorityQueue<Scheduled> queue = new PriorityQueue<>();
    private long nowNs;
    private long nextSequence;
    private long eventsFired;

    /** Schedules an event at an absolute time, which may not lie in the past. */
    public void at(long timeNs, Event event) {
        if (timeNs < nowNs) {
            throw new IllegalArgumentException("event at " + timeNs + " ns is before now (" + nowNs + " ns)");
        }
        queue.add(new Scheduled(timeNs, nextSequence++, event));
    }

    /** Schedules an event {@code delayNs} after now. */
    public void after(long delayNs, Event event) {
        at(nowNs + delayNs, event);
    }

    public long nowNs() {
        return nowNs;
    }

    public long eventsFired() {
        return eventsFired;
    }

    public int pendingEvents() {
        return queue.size();
    }

    /** Fires the next event; false when the queue is empty. */
    public boolean step() {
        Scheduled next = queue.poll();
        if (next == null) {
            return false;
        }
        nowNs = next.timeNs();
        eventsFired++;
        next.event().fire(nowNs);
        return true;
    }

    /**
     * Runs until no event is left or the next one lies after {@code horizonNs}.
     *
     * @return the number of events fired by this call
     */
    public long run(long horizonNs) {
        long before = eventsFired;
        while (!queue.isEmpty() && queue.peek().timeNs() <= horizonNs) {
            step();
        }
        return eventsFired - before;
    }

    /** Runs to quiescence. */
    public long run() {
        return run(Long.MAX_VALUE);
    }
}
