package tierlab.sim.device;

import java.util.Arrays;

/**
 * The thread or threads that hand I/O to the kernel, and the io_uring_enter calls they make.
 *
 * <p><b>One submitter</b> ({@link HostProfile#ioRings()} 0, every bundled profile): each submission
 * is one io_uring_enter on one thread, which it occupies for {@code submissionNs + k × perOperationNs};
 * the operations reach the device when it is done. This is a control plane that makes one call per
 * batch it is handed (the reference system's loop, which E1 fits).
 *
 * <p><b>Rings</b> ({@code ioRings} n &gt; 0): tierlab's own io_uring engine ({@code IoUringBackend}).
 * The live runtime hands the engine one submission per read batch and one for the writes of each
 * model tick; the engine puts each on the next ring's inbox in turn (round robin over the n rings),
 * and each ring's thread, when it comes round, drains everything in its inbox and submits it with
 * one io_uring_enter. Modelled the same way: submission i goes to ring i mod n; it joins that ring's
 * last call if that call has not started yet (it starts at or after the submission's time: the
 * ring is still busy with the call before, or was handed another submission at the same instant),
 * which then costs {@code perOperationNs} more per operation and no second {@code submissionNs};
 * otherwise it opens a new call. With costs of 0 a ring is never busy, so what folds is what one
 * drain of the model hands the same ring: a request's 24 read batches of 8 over 8 rings are 8
 * calls, not 24. The model has no wake-up latency: a live ring that wakes between two submissions
 * of one drain folds less than this, and one that wakes late on a loaded host folds submissions of
 * later drains too, so the live count scatters around the simulated one.
 *
 * <p>The per-call and per-operation costs, and so every completion time, are the same in both
 * forms when the costs are 0; then only the count of calls differs.
 */
public final class HostSubmitter {
    private final HostProfile profile;
    /** 0: one submitter, one call per submission; else the number of rings. */
    private final int rings;
    /** Per ring (one entry for the single submitter): when its last call ends. */
    private final long[] freeAtNs;
    /** Per ring: when its last call starts (submissions until then join it); MIN_VALUE before the first. */
    private final long[] callStartNs;
    private long nextRing;
    private long enterCalls;
    private long submissions;
    private long operations;

    public HostSubmitter(HostProfile profile) {
        this.profile = profile;
        this.rings = profile.ioRings();
        this.freeAtNs = new long[Math.max(1, rings)];
        this.callStartNs = new long[freeAtNs.length];
        Arrays.fill(callStartNs, Long.MIN_VALUE);
    }

    /** Returns when a submission of {@code operationCount} operations, ready at {@code readyNs}, reaches the device. */
    public long submit(int operationCount, long readyNs) {
        submissions++;
        operations += operationCount;
        long operationsNs = (long) operationCount * profile.perOperationNs();
        if (rings == 0) {
            long start = Math.max(readyNs, freeAtNs[0]);
            freeAtNs[0] = start + profile.submissionNs() + operationsNs;
            enterCalls++;
            return freeAtNs[0];
        }
        int ring = (int) (nextRing++ % rings);
        if (callStartNs[ring] >= readyNs) {
            // The ring has not drained its inbox for that call yet: this submission goes in with it.
            freeAtNs[ring] += operationsNs;
            return freeAtNs[ring];
        }
        long start = Math.max(readyNs, freeAtNs[ring]);
        callStartNs[ring] = start;
        freeAtNs[ring] = start + profile.submissionNs() + operationsNs;
        enterCalls++;
        return freeAtNs[ring];
    }

    /** io_uring_enter calls that submitted operations (one per submission with one submitter; fewer with rings). */
    public long enterCalls() { return enterCalls; }
    /** Submissions handed over (a read batch, or one drain's writes). */
    public long submissions() { return submissions; }
    public long operations() { return operations; }

    /** No more calls than submissions, at least one once anything was submitted, and no call ending before it starts. */
    public void checkInvariants() {
        if (enterCalls > submissions || (submissions > 0 && enterCalls == 0) || operations < 0) {
            throw new IllegalStateException("HostSubmitter: " + enterCalls + " calls for " + submissions + " submissions, "
                    + operations + " operations");
        }
        for (int ring = 0; ring < freeAtNs.length; ring++) {
            if (callStartNs[ring] != Long.MIN_VALUE && callStartNs[ring] > freeAtNs[ring]) {
                throw new IllegalStateException("HostSubmitter: ring " + ring + "'s call starts at " + callStartNs[ring]
                        + " ns, after it ends at " + freeAtNs[ring] + " ns");
            }
        }
    }
}
