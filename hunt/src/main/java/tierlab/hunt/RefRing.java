package tierlab.hunt;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The reference L2 ring (docs/tiered-store.md section 2) written as plainly as possible: a list of
 * runs, oldest first, and an owner per slot. A store of n blocks takes n contiguous slots at the
 * head; too few slots before the end of the file become a skip run and allocation wraps to slot 0;
 * the oldest runs are evicted until n slots are free.
 */
final class RefRing {
    /** One allocation: slots [first, first + count), or a skip region when {@code skip}. */
    record Run(long runId, int first, int count, boolean skip) {}

    private final int slotCount;
    private final List<Run> oldestFirst = new ArrayList<>();
    private final long[] ownerBySlot;
    private int head;
    private long nextRunId = 1;

    RefRing(int slotCount) {
        this.slotCount = slotCount;
        this.ownerBySlot = new long[slotCount];
        Arrays.fill(ownerBySlot, -1);
    }

    long ownerOf(int slot) {
        return ownerBySlot[slot];
    }

    List<Run> runs() {
        return List.copyOf(oldestFirst);
    }

    /** Allocates n slots; every evicted run is appended to {@code evicted}. Null when n exceeds the ring. */
    Run allocate(int n, List<Run> evicted) {
        if (n > slotCount) {
            return null;
        }
        while (true) {
            if (head == slotCount) {
                head = 0;
            }
            if (oldestFirst.isEmpty()) {
                if (head + n > slotCount) {
                    head = 0;
                }
                return take(n, false);
            }
            int tail = oldestFirst.get(0).first();
            boolean fits = tail > head ? tail - head >= n : tail < head && slotCount - head >= n;
            if (fits) {
                return take(n, false);
            }
            if (tail < head) {
                take(slotCount - head, true);
                head = 0;
            } else {
                Run oldest = oldestFirst.remove(0);
                for (int s = oldest.first(); s < oldest.first() + oldest.count(); s++) {
                    ownerBySlot[s] = -1;
                }
                evicted.add(oldest);
            }
        }
    }

    private Run take(int n, boolean skip) {
        Run run = new Run(nextRunId++, head, n, skip);
        for (int s = head; s < head + n; s++) {
            ownerBySlot[s] = run.runId();
        }
        oldestFirst.add(run);
        head += n;
        return run;
    }
}
