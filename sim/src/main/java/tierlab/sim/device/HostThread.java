package tierlab.sim.device;

/**
 * The thread that runs the model in a live run: it does the host side of every host↔GPU copy call
 * (a memcpy on a host without a GPU) and the scheduler's work of every engine step, one thing at a
 * time. A copy reaches the link, and a step's compute starts, only when this thread is done with it.
 *
 * <p>With a {@link HostProfile} that charges nothing here ({@link HostProfile#chargesModelThread()}
 * false, every preset) {@link #occupy} returns its ready time unchanged and records nothing, so
 * runs on such profiles are exactly what they were before this thread was modelled.
 */
public final class HostThread {
    private static final double BYTES_PER_MIB = 1024.0 * 1024.0;

    private final HostProfile profile;
    private final boolean charges;
    private long freeAtNs;
    private long busyNs;
    private long copyCalls;
    private long steps;

    public HostThread(HostProfile profile) {
        this.profile = profile;
        this.charges = profile.chargesModelThread();
    }

    /** When a copy call of {@code bytes}, issued at {@code readyNs}, leaves this thread for the link. */
    public long copy(long bytes, long readyNs) {
        if (!charges) {
            return readyNs;
        }
        copyCalls++;
        return occupy(profile.copyCallNs() + Math.round(bytes * profile.copyNsPerMiB() / BYTES_PER_MIB), readyNs);
    }

    /** When an engine step issued at {@code readyNs} has been scheduled and its compute may start. */
    public long step(long readyNs) {
        if (!charges) {
            return readyNs;
        }
        steps++;
        return occupy(profile.engineStepNs(), readyNs);
    }

    private long occupy(long costNs, long readyNs) {
        long start = Math.max(readyNs, freeAtNs);
        freeAtNs = start + costNs;
        busyNs += costNs;
        return freeAtNs;
    }

    /** Model-thread time charged so far. */
    public long busyNs() { return busyNs; }
    public long copyCalls() { return copyCalls; }
    public long steps() { return steps; }

    /** The thread is never busy longer than it has been charged, and counts only what it charged. */
    public void checkInvariants() {
        if (busyNs < 0 || freeAtNs < 0 || (!charges && (busyNs != 0 || copyCalls != 0 || steps != 0))) {
            throw new IllegalStateException("HostThread: busy " + busyNs + " ns, free at " + freeAtNs
                    + " ns, copies " + copyCalls + ", steps " + steps + " with charges " + charges);
        }
    }
}
