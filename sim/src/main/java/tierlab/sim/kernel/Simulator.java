package tierlab.sim.kernel;

import java.util.Arrays;

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

    // The queue: a binary min-heap over three parallel arrays ordered by (time, sequence). Sequences
    // are unique, so the order is total and the same as any correct priority queue's; the arrays
    // spare an object and a comparator call per event, which a replay of a production trace
    // schedules by the hundred thousand.
    private long[] heapTimesNs = new long[256];
    private long[] heapSequences = new long[256];
    private Event[] heapEvents = new Event[256];
    private int heapSize;
    private long nowNs;
    private long nextSequence;
    private long eventsFired;

    /** Schedules an event at an absolute time, which may not lie in the past. */
    public void at(long timeNs, Event event) {
        if (timeNs < nowNs) {
            throw new IllegalArgumentException("event at " + timeNs + " ns is before now (" + nowNs + " ns)");
        }
        push(timeNs, nextSequence++, event);
    }

    private void push(long timeNs, long sequence, Event event) {
        if (heapSize == heapTimesNs.length) {
            int grown = heapSize * 2;
            heapTimesNs = Arrays.copyOf(heapTimesNs, grown);
            heapSequences = Arrays.copyOf(heapSequences, grown);
            heapEvents = Arrays.copyOf(heapEvents, grown);
        }
        int slot = heapSize++;
        while (slot > 0) {
            int parent = (slot - 1) >>> 1;
            if (!earlier(timeNs, sequence, heapTimesNs[parent], heapSequences[parent])) {
                break;
            }
            move(parent, slot);
            slot = parent;
        }
        heapTimesNs[slot] = timeNs;
        heapSequences[slot] = sequence;
        heapEvents[slot] = event;
    }

    /** Removes the earliest entry (the caller has read it from slot 0). */
    private void removeFirst() {
        int last = --heapSize;
        long timeNs = heapTimesNs[last];
        long sequence = heapSequences[last];
        Event event = heapEvents[last];
        heapEvents[last] = null;
        if (last == 0) {
            return;
        }
        int slot = 0;
        while (true) {
            int child = 2 * slot + 1;
            if (child >= last) {
                break;
            }
            if (child + 1 < last && earlier(heapTimesNs[child + 1], heapSequences[child + 1], heapTimesNs[child],
                    heapSequences[child])) {
                child++;
            }
            if (!earlier(heapTimesNs[child], heapSequences[child], timeNs, sequence)) {
                break;
            }
            move(child, slot);
            slot = child;
        }
        heapTimesNs[slot] = timeNs;
        heapSequences[slot] = sequence;
        heapEvents[slot] = event;
    }

    private void move(int from, int to) {
        heapTimesNs[to] = heapTimesNs[from];
        heapSequences[to] = heapSequences[from];
        heapEvents[to] = heapEvents[from];
    }

    private static boolean earlier(long timeNs, long sequence, long otherTimeNs, long otherSequence) {
        return timeNs < otherTimeNs || (timeNs == otherTimeNs && sequence < otherSequence);
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
        return heapSize;
    }

    /** Fires the next event; false when the queue is empty. */
    public boolean step() {
        if (heapSize == 0) {
            return false;
        }
        long timeNs = heapTimesNs[0];
        Event event = heapEvents[0];
        removeFirst();
        nowNs = timeNs;
        eventsFired++;
        event.fire(nowNs);
        return true;
    }

    /**
     * Runs until no event is left or the next one lies after {@code horizonNs}.
     *
     * @return the number of events fired by this call
     */
    public long run(long horizonNs) {
        long before = eventsFired;
        while (heapSize > 0 && heapTimesNs[0] <= horizonNs) {
            step();
        }
        return eventsFired - before;
    }

    /** Runs to quiescence. */
    public long run() {
        return run(Long.MAX_VALUE);
    }
}
