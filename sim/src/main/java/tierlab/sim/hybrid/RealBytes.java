package tierlab.sim.hybrid;

import java.util.ArrayList;
import java.util.List;
import tierlab.engine.BlockingStorage;
import tierlab.engine.PinnedArena;
import tierlab.engine.live.DeviceMemory;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;

/**
 * Hybrid mode's data path: every operation the simulator completes is carried out on real bytes
 * at that virtual instant. L2 reads and writes go through a real storage port (the io_uring
 * engine, or the FileChannel fallback) between a real pinned arena and a real file; GPU copies and
 * compute steps go to the live runtime's {@link DeviceMemory}, which verifies every load and
 * staging copy byte for byte against the payload its request expects.
 *
 * <p>Because the simulator picks when (and in which order) operations complete, adversarial
 * completion orders meet real bytes: a stale or torn read is a counted mismatch here.
 */
public final class RealBytes implements AutoCloseable {
    private final BlockingStorage storage;
    private final DeviceMemory device;
    private long storageFailures;
    private final List<String> failures = new ArrayList<>();

    public RealBytes(PinnedArena l1, BlockingStorage storage, long laneBytes, int tp) {
        this.storage = storage;
        this.device = new DeviceMemory(l1, laneBytes, tp);
    }

    /**
     * Carries out a completed operation. Returns whether it succeeded: a real read or write can
     * fail even when the simulator did not inject a fault.
     */
    public boolean apply(IoOp op, boolean succeeded) {
        if (!succeeded) {
            return false;
        }
        switch (op) {
            case IoOp.L2Op l2 -> {
                IoCompletion completion = storage.execute(l2);
                if (!completion.succeeded()) {
                    storageFailures++;
                    if (failures.size() < 20) {
                        failures.add("L2 " + op + " failed: " + completion.errorName());
                    }
                    return false;
                }
            }
            case IoOp.CopyFromGpu copy -> device.stage(copy);
            case IoOp.CopyToGpu copy -> device.load(copy);
            case IoOp.Compute compute -> device.computed(compute);
        }
        return true;
    }

    /** A process crash: GPU memory is gone. */
    public void crash() {
        device.wipe();
    }

    public long loadMatches() { return device.loadMatches(); }
    public long loadMismatches() { return device.loadMismatches(); }
    public long stagingMismatches() { return device.stagingMismatches(); }
    public long mismatches() { return device.mismatches(); }
    public long storageFailures() { return storageFailures; }
    public List<String> mismatchExamples() { return device.mismatchExamples(); }
    public List<String> storageFailureExamples() { return List.copyOf(failures); }

    @Override
    public void close() {
        device.close();
    }
}
