package tierlab.sim.kernel;

import java.util.Arrays;

/**
 * The discrete-event kernel: virtual time in nanoseconds and a queue of events ordered by
 * (time, sequence). Two events at the same instant fire in the order they were scheduled, so a
 * run is a pure function of its inputs and seeds.
 *
 * <p>The queue is three structures with one order between them: a binary min-heap for events
 * scheduled out of order, and two sorted timelines (FIFOs), each taking the events scheduled no
 * earlier than the latest one already on it. {@link #step} fires the earliest of the three heads, so
 * the events fire in exactly the order a single priority queue would give.
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

    // The heap: a binary min-heap over three parallel arrays ordered by (time, sequence). Sequences
    // are unique, so the order is total and the same as any correct priority queue's; the arrays
    // spare an object and a comparator call per event, which a replay of a production trace
    // schedules by the hundred thousand.
    private long[] heapTimesNs = new long[256];
    private long[] heapSequences = new long[256];
    private Event[] heapEvents = new Event[256];
    private int heapSize;

    // The timelines: FIFOs sorted by (time, sequence), see Timeline. The first exists because a trace
    // replay schedules every request arrival up front, in time order: in the heap those thousands of
    // arrivals would sit under every event the run schedules later and cost each pop a dozen levels.
    // The second takes what the first cannot (anything earlier than the last arrival) as long as it
    // comes in time order too: most of a run's completions do (a device's fixed latency after a
    // submission in time order), and left in the heap they kept it hundreds deep. An event joins the
    // first timeline it does not go back in time on, else the heap.
    private final Timeline arrivals = new Timeline();
    private final Timeline inOrder = new Timeline();

    private long nowNs;
    private long nextSequence;
    private long eventsFired;

    /** Schedules an event at an absolute time, which may not lie in the past. */
    public void at(long timeNs, Event event) {
        if (timeNs < nowNs) {
            throw new IllegalArgumentException("event at " + timeNs + " ns is before now (" + nowNs + " ns)");
        }
        long sequence = nextSequence++;
        // An empty timeline takes any event, even one earlier than some in the heap: a timeline only
        // has to be sorted within itself, since firing compares the heads of all three.
        if (arrivals.takes(timeNs)) {
            arrivals.append(timeNs, sequence, event);
        } else if (inOrder.takes(timeNs)) {
            inOrder.append(timeNs, sequence, event);
        } else {
            push(timeNs, sequence, event);
        }
    }

    /**
     * A FIFO over three parallel arrays, live between {@code head} (inclusive) and {@code tail}
     * (exclusive). It only ever takes an event no earlier than its last one ({@link #takes}), and every
     * new event's sequence is larger than all scheduled before, so it stays sorted by (time, sequence)
     * and its head is its earliest entry: each event costs one append and one read.
     */
    private static final class Timeline {
        private long[] timesNs = new long[256];
        private long[] sequences = new long[256];
        private Event[] events = new Event[256];
        private int head;
        private int tail;

        boolean isEmpty() {
            return head == tail;
        }

        boolean takes(long timeNs) {
            return head == tail || timeNs >= timesNs[tail - 1];
        }

        long headTimeNs() {
            return timesNs[head];
        }

        long headSequence() {
            return sequences[head];
        }

        int size() {
            return tail - head;
        }

        void append(long timeNs, long sequence, Event event) {
            if (tail == timesNs.length) {
                makeRoom();
            }
            int slot = tail++;
            timesNs[slot] = timeNs;
            sequences[slot] = sequence;
            events[slot] = event;
        }

        /** Removes and returns the head (the caller has read its time). */
        Event take() {
            Event event = events[head];
            events[head] = null;
            if (++head == tail) {
                // Empty: restart at the front so appends rarely need to slide or grow the arrays.
                head = 0;
                tail = 0;
            }
            return event;
        }

        /**
         * Frees the slot after the tail: slides the live entries to the front when at most half the
         * array is live, else doubles it. Either way at least half the array is free after the tail,
         * so a slide never moves more entries than there were appends since the last one.
         */
        private void makeRoom() {
            int live = tail - head;
            int capacity = timesNs.length;
            if (live <= capacity / 2) {
                System.arraycopy(timesNs, head, timesNs, 0, live);
                System.arraycopy(sequences, head, sequences, 0, live);
                System.arraycopy(events, head, events, 0, live);
                // Drop the references the slide left behind past the live entries.
                Arrays.fill(events, live, tail, null);
                head = 0;
                tail = live;
            } else {
                // Same positions in larger arrays: the head and tail stay where they are.
                int grown = capacity * 2;
                timesNs = Arrays.copyOf(timesNs, grown);
                sequences = Arrays.copyOf(sequences, grown);
                events = Arrays.copyOf(events, grown);
            }
        }
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
        place(slot, timeNs, sequence, event);
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
        place(slot, timeNs, sequence, event);
    }

    private void place(int slot, long timeNs, long sequence, Event event) {
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
        return heapSize + arrivals.size() + inOrder.size();
    }

    /** The pending events held by the heap rather than a timeline; for tests of the fast path. */
    int heapPendingEvents() {
        return heapSize;
    }

    /** Fires the next event; false when the queue is empty. */
    public boolean step() {
        return fireNextUpTo(Long.MAX_VALUE);
    }

    /**
     * Runs until no event is left or the next one lies after {@code horizonNs}.
     *
     * @return the number of events fired by this call
     */
    public long run(long horizonNs) {
        long before = eventsFired;
        while (fireNextUpTo(horizonNs)) {
            // Each call fires one event.
        }
        return eventsFired - before;
    }

    /** Runs to quiescence. */
    public long run() {
        return run(Long.MAX_VALUE);
    }

    /**
     * Fires the earliest pending event, by (time, sequence) over the heap's top and the timelines'
     * heads, if there is one at or before {@code horizonNs}; false (and nothing fired) otherwise.
     */
    private boolean fireNextUpTo(long horizonNs) {
        Timeline first = earlierHead(arrivals, inOrder);
        long timeNs;
        Event event;
        if (first != null && (heapSize == 0 || earlier(first.headTimeNs(), first.headSequence(), heapTimesNs[0],
                heapSequences[0]))) {
            timeNs = first.headTimeNs();
            if (timeNs > horizonNs) {
                return false;
            }
            event = first.take();
        } else if (heapSize > 0) {
            timeNs = heapTimesNs[0];
            if (timeNs > horizonNs) {
                return false;
            }
            event = heapEvents[0];
            removeFirst();
        } else {
            return false;
        }
        nowNs = timeNs;
        eventsFired++;
        event.fire(nowNs);
        return true;
    }

    /** The timeline with the earlier head, or null when both are empty. */
    private static Timeline earlierHead(Timeline a, Timeline b) {
        if (a.isEmpty()) {
            return b.isEmpty() ? null : b;
        }
        if (b.isEmpty()) {
            return a;
        }
        return earlier(a.headTimeNs(), a.headSequence(), b.headTimeNs(), b.headSequence()) ? a : b;
    }
}
