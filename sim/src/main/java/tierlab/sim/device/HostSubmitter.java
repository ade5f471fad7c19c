package tierlab.sim.device;

/**
 * The single thread that hands I/O to the kernel: a submission of k operations occupies it for
 * {@code submissionNs + k × perOperationNs}; the operations reach the device when it is done.
 * Counting submissions gives the io_uring_enter calls a real run would make.
 */
public final class HostSubmitter {
    private final HostProfile profile;
    private long freeAtNs;
    private long submissions;
    private long operations;

    public HostSubmitter(HostProfile profile) {
        this.profile = profile;
    }

    /** Returns when a submission of {@code operationCount} operations, ready at {@code readyNs}, reaches the device. */
    public long submit(int operationCount, long readyNs) {
        long start = Math.max(readyNs, freeAtNs);
        freeAtNs = start + profile.submissionNs() + (long) operationCount * profile.perOperationNs();
        submissions++;
        operations += operationCount;
        return freeAtNs;
    }

    /** io_uring_enter calls (one per submission). */
    public long submissions() { return submissions; }
    public long operations() { return operations; }
}
