package tierlab.engine.live;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.ComputePort;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;
import tierlab.model.io.OpSink;

/**
 * The live runtime's compute port on a machine that runs no kernel: each step, in order on a compute
 * stream thread of its own (the way a GPU runs its kernels on a stream), writes its finished blocks'
 * payloads and completes no earlier than its {@link ComputeModel} time after it was issued. With
 * layer-wise loading the step is due at the end of its layer-group chain, each group started once its
 * load landed and the group before was computed.
 */
public final class TimedComputePort implements ComputePort, AutoCloseable {

    private final ComputeModel model;
    private final LiveComputeContext context;
    private final ExecutorService stream = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "tierlab-live-compute");
        thread.setDaemon(true);
        return thread;
    });

    public TimedComputePort(ComputeModel model, LiveComputeContext context) {
        this.model = model;
        this.context = context;
    }

    /** Opens a timed port of {@code model} on a live runtime (the runtime closes it). */
    public static ComputePort.Opener<LiveComputeContext> opener(ComputeModel model) {
        return context -> new TimedComputePort(model, context);
    }

    @Override
    public void step(IoOp.Compute step, OpSink sink) {
        long issuedNanoTime = System.nanoTime();
        long stepNs = model.stepNs(step);
        LayerGroupLoads loads = context.layerGroups();
        long dueNanoTime;
        if (loads == null) {
            dueNanoTime = issuedNanoTime + stepNs;
        } else {
            // The step's loads have all landed (the model issues it after their completions), so the chain is known.
            synchronized (loads) {
                dueNanoTime = loads.stepEndNs(issuedNanoTime, stepNs);
            }
        }
        stream.execute(() -> {
            try {
                context.blocksComputed().accept(step);
                // The step takes its modelled time, however fast its payloads were written.
                for (long left; (left = dueNanoTime - System.nanoTime()) > 0; ) {
                    LockSupport.parkNanos(left);
                }
            } catch (RuntimeException | Error e) {
                context.streamFailure().failed(step, e);
                return;
            }
            sink.completed(step, IoCompletion.ok(step.ticket()));
        });
    }

    /**
     * Stops the stream: a queued step is dropped (after a normal run there is none) and the one
     * running is waited for, however long, because the buffers it writes are released right after this.
     */
    @Override
    public void close() {
        Streams.stopAndAwait(stream);
    }
}
