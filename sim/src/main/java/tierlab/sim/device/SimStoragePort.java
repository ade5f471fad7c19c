package tierlab.sim.device;

import java.util.List;
import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.IoOp;
import tierlab.model.io.OpSink;
import tierlab.model.io.StoragePort;

/**
 * The simulator's storage port: the host submitter hands each submission to the device model (the
 * one the profile's storage section names, see {@link StorageModels}), which says when each
 * operation completes; the completion is delivered on the virtual clock. A submission of k
 * operations costs the submitter one io_uring_enter call; the operations reach the device together
 * when it is done.
 *
 * <p>With {@link #setL2Free} (the all-in-host-memory baseline, where the "L2" is more host memory)
 * writes complete at once and cost no device or submitter time; reads never happen there.
 */
public final class SimStoragePort implements StoragePort {
    private final String model;
    private final StorageDevice device;
    private final HostSubmitter submitter;
    private final CompletionTimeline timeline;
    private boolean l2Free;
    private CompletionSink adaptedSink;
    private OpSink adapted;

    /** {@code model} is the device model's registry name; the port calls itself {@code sim-MODEL}. */
    public SimStoragePort(String model, StorageDevice device, HostSubmitter submitter, CompletionTimeline timeline) {
        this.model = model;
        this.device = device;
        this.submitter = submitter;
        this.timeline = timeline;
    }

    /** The all-in-host-memory baseline: L2 writes complete at once and cost nothing. */
    public void setL2Free(boolean free) {
        this.l2Free = free;
    }

    @Override
    public void submit(List<? extends IoOp.L2Op> ops, CompletionSink sink) {
        if (ops.isEmpty()) {
            return;
        }
        long nowNs = timeline.nowNs();
        OpSink opSink = opSinkFor(sink);
        if (l2Free && ops.getFirst() instanceof IoOp.L2Write) {
            for (IoOp.L2Op op : ops) {
                timeline.completeAt(op, nowNs, opSink);
            }
            return;
        }
        long atDeviceNs = submitter.submit(ops.size(), nowNs);
        for (IoOp.L2Op op : ops) {
            boolean read = op instanceof IoOp.L2Read;
            timeline.completeAt(op, device.submit(read, op.l2Offset(), op.lengthBytes(), atDeviceNs), opSink);
        }
    }

    /**
     * The timeline's view of a storage sink. A driver passes the same sink with every submission, so
     * the adapter is made once per sink, not once per submission.
     */
    private OpSink opSinkFor(CompletionSink sink) {
        if (sink != adaptedSink) {
            adaptedSink = sink;
            adapted = (done, completion) -> sink.completed((IoOp.L2Op) done, completion);
        }
        return adapted;
    }

    @Override
    public String name() {
        return "sim-" + model;
    }

    /** Nothing to release: the device is a model. */
    @Override
    public void close() {
    }

    public StorageDevice device() { return device; }
    public HostSubmitter submitter() { return submitter; }
}
