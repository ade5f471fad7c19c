package tierlab.engine.live;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tierlab.model.io.CopyPort;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;
import tierlab.model.io.OpSink;

/**
 * The live runtime's copy port on a machine without a GPU, each direction on its own thread the way
 * a GPU has its own copy engines: host-to-device and device-to-host copies each run in order on a
 * stream thread, and their completions come back to the model thread through the runtime's
 * completion queue, like io_uring completions. Compute steps go to the runtime's compute port
 * ({@link TimedComputePort} unless the caller opens another).
 *
 * <p>Copies are real memcpys into device-side buffers ({@link DeviceMemory}, verified against their
 * payloads). Done on the model thread, as they were, every
 * copy held the model up for as long as it took to move and check its bytes (hundreds of MiB for a
 * long prompt's save): meanwhile no L2 operation was handed over and no completion was taken, and
 * the drive idled (docs/performance.md).
 *
 * <p>Ordering needs nothing beyond the queue: the model issues an operation that depends on another
 * (the L2 write of a staged slice, the staging of a computed block, a load into a block another
 * request freed) only after that one's completion reached it, and the queue hands the stream's
 * writes over with the completion.
 *
 * <p>With a GPU, this port copies nothing: the copies go to the CUDA copy port; with layer-wise loading
 * the CUDA port reports each layer group's landing through {@link #landed}, and the compute port holds
 * the step exactly as it does on host buffers.
 */
final class LiveDevicePorts implements CopyPort, AutoCloseable {

    /** Where a stream reports a finished operation (the runtime's completion queue); any thread. */
    interface Completions {
        void completed(IoOp op, OpSink sink, Throwable failure);
    }

    private final DeviceMemory device;
    private final Completions completions;
    private final ExecutorService hostToDevice = stream("tierlab-live-h2d");
    private final ExecutorService deviceToHost = stream("tierlab-live-d2h");
    /** Operations handed to the streams so far (model thread only). */
    private long submitted;
    /**
     * Layer-wise loading (null: whole loads): the host-to-device stream copies each load group by group
     * and records when each landed; a compute step is due when its last layer group, each started once
     * its group landed and the one before was computed, is done. Locked on itself: the copy stream
     * writes it, the compute port reads it.
     */
    private LayerGroupLoads layerGroups;

    LiveDevicePorts(DeviceMemory device, Completions completions) {
        this.device = device;
        this.completions = completions;
    }

    private static ExecutorService stream(String name) {
        return Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Loads in {@code loads}' layer groups from now on, computing behind them (call before the run). */
    void setLayerGroups(LayerGroupLoads loads) {
        this.layerGroups = loads;
    }

    @Override
    public void toGpu(IoOp.CopyToGpu copy, OpSink sink) {
        submitted++;
        LayerGroupLoads loads = layerGroups;
        if (loads == null) {
            hostToDevice.execute(() -> run(copy, sink, () -> device.load(copy)));
            return;
        }
        hostToDevice.execute(() -> run(copy, sink, () -> device.loadInGroups(copy, loads, this::landed)));
    }

    /**
     * Layer group {@code group} of a load is on the device now: the compute chain of the step that uses it
     * may start that group from here. Called by the host-to-device stream (host buffers) or by the CUDA
     * completion thread when the group's event completed, before the load's completion is handed over, so
     * the step (issued only after that completion) sees every group's landing.
     */
    void landed(int group) {
        LayerGroupLoads loads = layerGroups;
        long landedNanoTime = System.nanoTime();
        synchronized (loads) {
            loads.landed(group, landedNanoTime);
        }
    }

    @Override
    public void fromGpu(IoOp.CopyFromGpu copy, OpSink sink) {
        submitted++;
        deviceToHost.execute(() -> run(copy, sink, () -> device.stage(copy)));
    }

    /** Does one stream operation and reports it; a failure (a bug, not an I/O error) goes to the model thread to end the run. */
    private void run(IoOp op, OpSink sink, Runnable work) {
        Throwable failure = null;
        try {
            work.run();
        } catch (RuntimeException | Error e) {
            failure = e;
        }
        completions.completed(op, sink, failure);
    }

    long submitted() {
        return submitted;
    }

    /**
     * Stops the stream threads: queued operations are dropped (after a normal run there are none:
     * the runtime took every completion) and the one running on each stream is waited for, however
     * long, because the device buffers and the L1 arena it copies are released right after this.
     */
    @Override
    public void close() {
        Streams.stopAndAwait(hostToDevice, deviceToHost);
    }
}
