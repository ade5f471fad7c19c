package tierlab.model.l2;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import tierlab.model.Settings;

/**
 * FIFO slot allocation over the L2 file, one slot per block.
 *
 * <p>{@code head} is where the next run starts; the oldest live run sits at the tail of the run
 * queue. A store of n blocks takes n contiguous slots. If fewer than n slots remain before the end
 * of the file, the remainder becomes a skip run and allocation wraps to slot 0. Oldest runs are
 * evicted from the tail until n contiguous slots are free; the caller removes their keys from the
 * index at once.
 *
 * <pre>
 *   slot:  0 ........................................ slotCount-1
 *          [ run 7 ][ run 8 ]  head→ free  [ run 4 ][ run 5 ][ run 6 ][skip]
 *                                           ^ tail (oldest)
 * </pre>
 */
public final class L2Ring {

    /** A run of contiguous slots allocated together, or a skip region left at the end of the file. */
    public record Run(long runId, int firstSlot, int slotCount, boolean skip) {
        public int endSlot() {
            return firstSlot + slotCount;
        }
    }

    /** The outcome of an allocation: the new run (or null when n exceeds the ring) and what it evicted. */
    public record Allocation(Run run, List<Run> evicted) {
        public boolean succeeded() {
            return run != null;
        }
    }

    private static final long NO_RUN = -1;

    private final int slotCount;
    private final ArrayDeque<Run> runsOldestFirst = new ArrayDeque<>();
    /** Owning run id per slot, NO_RUN when free: lets a late store check it still owns its slots. */
    private final long[] ownerRunBySlot;
    private int head;
    private long nextRunId = 1;
    private long usedSlots;

    public L2Ring(long slotCount) {
        Settings.positive("l2 slot count", slotCount);
        if (slotCount > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("l2CapacityBytes gives " + slotCount + " slots, more than " + Integer.MAX_VALUE);
        }
        this.slotCount = (int) slotCount;
        this.ownerRunBySlot = new long[this.slotCount];
        Arrays.fill(ownerRunBySlot, NO_RUN);
    }

    public int slotCount() {
        return slotCount;
    }

    public int head() {
        return head;
    }

    public long usedSlots() {
        return usedSlots;
    }

    /** The run that owns a slot now, or -1 if the slot is free. */
    public long ownerOf(int slot) {
        return ownerRunBySlot[slot];
    }

    /** Live runs, oldest first (a copy). */
    public List<Run> runs() {
        return new ArrayList<>(runsOldestFirst);
    }

    /** Allocates n contiguous slots, evicting the oldest runs as needed. Fails only if n > slotCount. */
    public Allocation allocate(int n) {
        if (n <= 0) {
            throw new IllegalArgumentException("allocation of " + n + " slots");
        }
        List<Run> evicted = new ArrayList<>();
        if (n > slotCount) {
            return new Allocation(null, evicted);
        }
        while (true) {
            if (head == slotCount) {
                head = 0;
            }
            if (runsOldestFirst.isEmpty()) {
                if (head + n > slotCount) {
                    // Nothing is live: restarting at slot 0 wastes nothing.
                    head = 0;
                }
                return new Allocation(take(n), evicted);
            }
            int tailSlot = runsOldestFirst.peekFirst().firstSlot();
            if (tailSlot > head) {
                if (tailSlot - head >= n) {
                    return new Allocation(take(n), evicted);
                }
                evicted.add(evictOldest());
            } else if (tailSlot < head) {
                if (slotCount - head >= n) {
                    return new Allocation(take(n), evicted);
                }
                // Too little room before the end of the file: the rest becomes a skip run and we wrap.
                Run skip = new Run(nextRunId++, head, slotCount - head, true);
                claim(skip);
                head = 0;
            } else {
                // tailSlot == head with live runs: the ring is full.
                evicted.add(evictOldest());
            }
        }
    }

    private Run take(int n) {
        Run run = new Run(nextRunId++, head, n, false);
        claim(run);
        head += n;
        return run;
    }

    private void claim(Run run) {
        for (int slot = run.firstSlot(); slot < run.endSlot(); slot++) {
            // Checked on every claim, not only by checkInvariants: an overlap here would hand one slot to two
            // keys, and a later write would put one block's bytes where the index expects another's.
            if (ownerRunBySlot[slot] != NO_RUN) {
                throw new IllegalStateException("I2: L2 runs " + ownerRunBySlot[slot] + " and " + run.runId()
                        + " overlap at slot " + slot + " (refused at the claim)");
            }
            ownerRunBySlot[slot] = run.runId();
        }
        usedSlots += run.slotCount();
        runsOldestFirst.addLast(run);
    }

    private Run evictOldest() {
        Run run = runsOldestFirst.pollFirst();
        for (int slot = run.firstSlot(); slot < run.endSlot(); slot++) {
            ownerRunBySlot[slot] = NO_RUN;
        }
        usedSlots -= run.slotCount();
        return run;
    }

    /** I2 for the ring: runs never overlap and the slot owner map agrees with the run queue. */
    public void checkInvariants() {
        long[] expectedOwner = new long[slotCount];
        Arrays.fill(expectedOwner, NO_RUN);
        long used = 0;
        for (Run run : runsOldestFirst) {
            if (run.firstSlot() < 0 || run.endSlot() > slotCount || run.slotCount() <= 0) {
                throw new IllegalStateException("I2: run " + run + " lies outside the ring of " + slotCount + " slots");
            }
            for (int slot = run.firstSlot(); slot < run.endSlot(); slot++) {
                if (expectedOwner[slot] != NO_RUN) {
                    throw new IllegalStateException("I2: L2 runs " + expectedOwner[slot] + " and " + run.runId() + " overlap at slot " + slot);
                }
                expectedOwner[slot] = run.runId();
            }
            used += run.slotCount();
        }
        if (!Arrays.equals(expectedOwner, ownerRunBySlot)) {
            throw new IllegalStateException("I2: slot owner map disagrees with the run queue");
        }
        if (used != usedSlots) {
            throw new IllegalStateException("I2: used slots " + usedSlots + " but runs cover " + used);
        }
    }

    /** Restores a ring from a snapshot's runs (oldest first) and head. */
    public static L2Ring restore(long slotCount, List<Run> runsOldestFirst, int head, long nextRunId) {
        L2Ring ring = new L2Ring(slotCount);
        for (Run run : runsOldestFirst) {
            ring.claim(run);
        }
        ring.head = head;
        ring.nextRunId = nextRunId;
        ring.checkInvariants();
        return ring;
    }

    public long nextRunId() {
        return nextRunId;
    }
}
