package tierlab.model.drive;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.io.ComputePort;
import tierlab.model.io.CopyPort;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.OpSink;
import tierlab.model.io.StoragePort;
import tierlab.model.serving.ServingEngine;

/**
 * The one driver of a serving engine over device ports, in every mode: it hands the engine's
 * operations to the ports and routes their completions back. Sim, hybrid and live mode differ only
 * in the ports they pass in and the clock their ports complete on ({@link tierlab.model.io.CompletionTimeline}):
 * the grouping below is the same in all three, so a decision trace does not depend on the mode's
 * plumbing.
 *
 * <p>Grouping: copies and compute steps go to their ports in the order the engine emitted them;
 * then the L2 reads, one storage submission per read batch (same batch id) in first-seen order;
 * then every L2 write of the drain as one submission. On a virtual clock this order is the order
 * completions are scheduled in, which decides ties.
 */
public final class Driver {

    /** Sees every completion before the engine does (payload ledgers, failure counts). */
    @FunctionalInterface
    public interface CompletionObserver {
        void observe(IoOp op, IoCompletion completion);
    }

    private ServingEngine engine;
    private StoragePort storage;
    private CopyPort copies;
    private ComputePort compute;
    private final OpSink sink;
    private final StoragePort.CompletionSink storageSink;
    private final CompletionObserver observer;
    private ProgressWatchdog watchdog = ProgressWatchdog.defaults();

    /**
     * @param sink     where the ports report completions; the runtime delivers each (now or from its
     *                 event loop) through {@link #deliver}
     * @param observer sees each completion before the engine
     */
    public Driver(ServingEngine engine, StoragePort storage, CopyPort copies, ComputePort compute, OpSink sink,
                  CompletionObserver observer) {
        this.engine = engine;
        this.storage = storage;
        this.copies = copies;
        this.compute = compute;
        this.sink = sink;
        this.storageSink = sink::completed;
        this.observer = observer;
    }

    public ServingEngine engine() {
        return engine;
    }

    /** A restarted process serves with a new engine over the same ports. */
    public void replaceEngine(ServingEngine restarted) {
        this.engine = restarted;
    }

    /**
     * Other ports from now on (hybrid mode decorates the simulated ones with real bytes before a run
     * starts); operations already handed out complete through the ports they went to.
     */
    public void replacePorts(StoragePort newStorage, CopyPort newCopies, ComputePort newCompute) {
        this.storage = newStorage;
        this.copies = newCopies;
        this.compute = newCompute;
    }

    public ProgressWatchdog watchdog() {
        return watchdog;
    }

    /** Another watchdog (tests lower its limits). */
    public void setWatchdog(ProgressWatchdog replacement) {
        this.watchdog = replacement;
    }

    /**
     * Hands a completion to the engine (after the observer); the watchdog sees it first and throws
     * {@link ProgressWatchdog.RunStopped} out of here when the run cannot end.
     */
    public void deliver(IoOp op, IoCompletion completion, long nowNs) {
        observer.observe(op, completion);
        watchdog.observe(op, completion);
        engine.onCompletion(completion, nowNs);
    }

    /** Drains the engine's operations and hands them to the ports; returns whether there were any. */
    public boolean dispatch() {
        return dispatch(engine.drainOps());
    }

    /** Hands {@code ops} to the ports in the grouping described above; returns whether there were any. */
    public boolean dispatch(List<IoOp> ops) {
        if (ops.isEmpty()) {
            return false;
        }
        // The lists exist only when the ops hold reads or writes; most drains carry neither.
        List<List<IoOp.L2Read>> readBatches = null;
        List<IoOp.L2Write> writes = null;
        for (int i = 0; i < ops.size(); i++) {
            IoOp op = ops.get(i);
            switch (op) {
                case IoOp.L2Read read -> {
                    if (readBatches == null) {
                        readBatches = new ArrayList<>(2);
                    }
                    batchOf(readBatches, read.batchId()).add(read);
                }
                case IoOp.L2Write write -> {
                    if (writes == null) {
                        writes = new ArrayList<>();
                    }
                    writes.add(write);
                }
                case IoOp.CopyToGpu copy -> copies.toGpu(copy, sink);
                case IoOp.CopyFromGpu copy -> copies.fromGpu(copy, sink);
                case IoOp.Compute step -> compute.step(step, sink);
            }
        }
        if (readBatches != null) {
            for (int b = 0; b < readBatches.size(); b++) {
                storage.submit(readBatches.get(b), storageSink);
            }
        }
        if (writes != null) {
            storage.submit(writes, storageSink);
        }
        return true;
    }

    /**
     * The read batch with this id among {@code batches} (first-seen order), appended if new. A drain
     * holds a handful of batches, and a batch's reads are emitted together, so the newest batch is
     * tried first and a linear search beats a boxed-key map here.
     */
    private static List<IoOp.L2Read> batchOf(List<List<IoOp.L2Read>> batches, long batchId) {
        for (int b = batches.size() - 1; b >= 0; b--) {
            List<IoOp.L2Read> batch = batches.get(b);
            if (batch.getFirst().batchId() == batchId) {
                return batch;
            }
        }
        List<IoOp.L2Read> batch = new ArrayList<>();
        batches.add(batch);
        return batch;
    }
}
