package tierlab.sim.device;

/**
 * The thread that runs the model in a live run: it does the scheduler's work of every engine step
 * and, by default, the host side of every host↔GPU copy call (a memcpy on a host without a GPU),
 * one thing at a time. A copy reaches the link, and a step's compute starts, only when this thread
 * is done with it.
 *
 * <p>With {@link HostProfile#copiesOnStreams()} the copies are paid instead on one stream thread per
 * direction, each in order and beside the model thread, as tierlab's live runtime runs them
 * ({@code LiveDevicePorts}: host-to-device and device-to-host stream threads): a copy still reaches
 * the link only when its stream is done with it, but no engine step waits for a copy.
 *
 * <p>With a {@link HostProfile} that charges nothing here ({@link HostProfile#chargesModelThread()}
 * false, every preset) {@link #occupy} returns its ready time unchanged and records nothing, so
 * runs on such profiles are exactly what they were before this thread was modelled.
 */
public final class HostThread {
    private static final double BYTES_PER_MIB = 1024.0 * 1024.0;

    private final HostProfile profile;
    private final boolean charges;
    private final boolean copiesOnStreams;
    private long freeAtNs;
    /** With copies on streams: when the host-to-device and the device-to-host stream are free. */
    private long toGpuFreeAtNs;
    private long fromGpuFreeAtNs;
    private long busyNs;
    private long copyCalls;
    private long steps;

    public HostThread(HostProfile profile) {
        this.profile = profile;
        this.charges = profile.chargesModelThread();
        this.copiesOnStreams = profile.copiesOnStreams();
    }

    /** When a copy call of {@code bytes}, issued at {@code readyNs}, leaves the model thread for the link. */
    public long copy(long bytes, long readyNs) {
        return copy(bytes, readyNs, true);
    }

    /**
     * When a copy call of {@code bytes} in one direction ({@code toGpu}: host to device), issued at
     * {@code readyNs}, leaves the thread that pays for it (the model thread, or that direction's
     * stream) for the link.
     */
    public long copy(long bytes, long readyNs, boolean toGpu) {
        if (!charges) {
            return readyNs;
        }
        copyCalls++;
        long costNs = profile.copyCallNs() + Math.round(bytes * profile.copyNsPerMiB() / BYTES_PER_MIB);
        if (!copiesOnStreams) {
            return occupy(costNs, readyNs);
        }
        busyNs += costNs;
        if (toGpu) {
            toGpuFreeAtNs = Math.max(readyNs, toGpuFreeAtNs) + costNs;
            return toGpuFreeAtNs;
        }
        fromGpuFreeAtNs = Math.max(readyNs, fromGpuFreeAtNs) + costNs;
        return fromGpuFreeAtNs;
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

    /** Host time charged so far (the model thread's, and the streams' when copies are on streams). */
    public long busyNs() { return busyNs; }
    public long copyCalls() { return copyCalls; }
    /** Whether loads reach the link as one copy per segment (tierlab's CUDA copy port), not one per load. */
    public boolean copiesPerSegment() { return profile.copiesPerSegment(); }
    public long steps() { return steps; }

    /** The thread is never busy longer than it has been charged, and counts only what it charged. */
    public void checkInvariants() {
        if (busyNs < 0 || freeAtNs < 0 || toGpuFreeAtNs < 0 || fromGpuFreeAtNs < 0
                || (!copiesOnStreams && (toGpuFreeAtNs != 0 || fromGpuFreeAtNs != 0))
                || (!charges && (busyNs != 0 || copyCalls != 0 || steps != 0))) {
            throw new IllegalStateException("HostThread: busy " + busyNs + " ns, free at " + freeAtNs + " ns (streams "
                    + toGpuFreeAtNs + " / " + fromGpuFreeAtNs + " ns), copies " + copyCalls + ", steps " + steps + " with charges " + charges);
        }
    }
}
