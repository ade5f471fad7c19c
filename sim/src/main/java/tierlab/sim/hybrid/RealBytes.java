package tierlab.sim.hybrid;

import java.util.ArrayList;
import java.util.List;
import tierlab.engine.BlockingStorage;
import tierlab.engine.PinnedArena;
import tierlab.engine.live.DeviceMemory;
import tierlab.model.io.ComputePort;
import tierlab.model.io.CopyPort;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.OpSink;
import tierlab.model.io.StoragePort;

/**
 * Hybrid mode's data path, as decorators of the simulator's device ports: the simulated device
 * still decides when (and in which order) each operation completes, and at that virtual instant the
 * operation is carried out on real bytes. L2 reads and writes go through a real storage port (the
 * io_uring engine, or the FileChannel fallback) between a real pinned arena and a real file; GPU
 * copies and compute steps go to the live runtime's {@link DeviceMemory}, which verifies every load
 * and staging copy byte for byte against the payload its request expects.
 *
 * <p>Adversarial completion orders thus meet real bytes: a stale or torn read is a counted mismatch
 * here. A completion the simulator already failed (an injected fault) does no real I/O; a real
 * read or write can fail even when the simulator did not inject a fault, and then the completion
 * carries the real errno.
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

    /** The simulated storage port {@code timing}, with each completed operation run on the real port first. */
    public StoragePort storagePort(StoragePort timing) {
        return new StoragePort() {
            @Override
            public void submit(List<? extends IoOp.L2Op> ops, CompletionSink sink) {
                timing.submit(ops, (op, simulated) -> sink.completed(op, simulated.succeeded() ? execute(op) : simulated));
            }

            @Override
            public String name() {
                return timing.name() + "+" + storage.port().name();
            }

            /** The real port is its opener's to close. */
            @Override
            public void close() {
                timing.close();
            }
        };
    }

    /** The simulated copy port {@code timing}, with each completed copy done on real memory first. */
    public CopyPort copyPort(CopyPort timing) {
        return new CopyPort() {
            @Override
            public void toGpu(IoOp.CopyToGpu copy, OpSink sink) {
                timing.toGpu(copy, (op, simulated) -> {
                    if (simulated.succeeded()) {
                        device.load(copy);
                    }
                    sink.completed(op, simulated);
                });
            }

            @Override
            public void fromGpu(IoOp.CopyFromGpu copy, OpSink sink) {
                timing.fromGpu(copy, (op, simulated) -> {
                    if (simulated.succeeded()) {
                        device.stage(copy);
                    }
                    sink.completed(op, simulated);
                });
            }
        };
    }

    /** The simulated compute port {@code timing}, with each completed step's block writes recorded first. */
    public ComputePort computePort(ComputePort timing) {
        return (step, sink) -> timing.step(step, (op, simulated) -> {
            if (simulated.succeeded()) {
                device.computed(step);
            }
            sink.completed(op, simulated);
        });
    }

    private IoCompletion execute(IoOp.L2Op op) {
        IoCompletion completion = storage.execute(op);
        if (!completion.succeeded()) {
            storageFailures++;
            if (failures.size() < 20) {
                failures.add("L2 " + op + " failed: " + completion.errorName());
            }
        }
        return completion;
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
