package tierlab.engine.live;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import tierlab.engine.PinnedArena;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.sched.RequestOutcome;
import tierlab.model.sched.RequestSpec;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.TieredStore;

/**
 * Drives the unchanged model with the wall clock: requests arrive at their (relative) times, L2
 * operations go to a real storage port (the io_uring engine) and their completions come back from
 * the ring threads as events, GPU copies are real memcpys into device-side buffers, and compute
 * steps are timed delays (there is no GPU here). Every load is verified against its payload.
 *
 * <h2>Threads</h2>
 * The model runs on the thread that calls {@link #run}, and only there. Ring threads never touch
 * the model: they put completions on a queue that this thread drains. Waiting is a timed poll of
 * that queue until the next arrival or compute step is due, so the loop never spins.
 */
public final class LiveRuntime implements AutoCloseable {

    /** What a live run did. Times are nanoseconds from the start of the run. */
    public record Report(long wallNs, List<RequestOutcome> finished, long loadMatches, long loadMismatches,
                         long stagingMismatches, long l2ReadOps, long l2ReadBytes, long l2WriteOps, long l2WriteBytes,
                         long l2Failures, long gpuCopyBytes, long computeSteps, List<String> mismatchExamples) {
        public long mismatches() {
            return loadMismatches + stagingMismatches;
        }
    }

    private record Completed(IoOp op, IoCompletion completion) {}

    private record Due(long atNs, long sequence, IoOp op) {}

    private final ServingEngine scheduler;
    private final TieredStore store;
    private final StoragePort storage;
    private final DeviceMemory device;
    private final ComputeTiming computeTiming;
    private final long stallTimeoutNs;
    private final LinkedBlockingQueue<Completed> completions = new LinkedBlockingQueue<>();
    private final PriorityQueue<Due> due = new PriorityQueue<>(Comparator.comparingLong(Due::atNs).thenComparingLong(Due::sequence));
    private long dueSequence;
    private int storageInFlight;
    private long l2Failures;
    private long computeSteps;

    /**
     * @param stallTimeoutNs how long the run may see no progress at all (nothing completes, nothing is due)
     *                       before it reports the stuck state instead of waiting forever
     */
    public LiveRuntime(ServingEngine scheduler, StoragePort storage, PinnedArena l1, ComputeTiming computeTiming,
                       long stallTimeoutNs) {
        this.scheduler = scheduler;
        this.store = scheduler.store();
        this.storage = storage;
        this.computeTiming = computeTiming;
        this.stallTimeoutNs = stallTimeoutNs;
        var geometry = store.settings().geometry();
        if (l1.sizeBytes() < store.settings().l1CapacityBytes()) {
            throw new IllegalArgumentException("the pinned arena (" + l1.sizeBytes() + " B) is smaller than l1CapacityBytes ("
                    + store.settings().l1CapacityBytes() + " B)");
        }
        this.device = new DeviceMemory(l1, geometry.laneBytes(), geometry.tp());
    }

    /** Serves the requests (arrival times relative to the start) until every one has finished. */
    public Report run(List<RequestSpec> requests) {
        List<RequestSpec> arrivals = new ArrayList<>(requests);
        arrivals.sort(Comparator.comparingLong(RequestSpec::arrivalNs).thenComparingLong(RequestSpec::requestId));
        long startNs = System.nanoTime();
        int next = 0;
        long lastProgressNs = 0;
        while (true) {
            long now = System.nanoTime() - startNs;
            boolean progress = false;
            while (next < arrivals.size() && arrivals.get(next).arrivalNs() <= now) {
                scheduler.submit(arrivals.get(next++), now);
                progress = true;
            }
            while (!due.isEmpty() && due.peek().atNs() <= now) {
                complete(due.poll().op(), now);
                progress = true;
            }
            Completed completed;
            while ((completed = completions.poll()) != null) {
                storageInFlight--;
                onStorageCompletion(completed, now);
                progress = true;
            }
            scheduler.tick(now);
            progress |= dispatch(scheduler.drainOps(), now);
            if (progress) {
                lastProgressNs = now;
            }
            if (next == arrivals.size() && storageInFlight == 0 && due.isEmpty() && scheduler.allFinished()) {
                break;
            }
            if (now - lastProgressNs > stallTimeoutNs) {
                throw new IllegalStateException("live run stalled for " + stallTimeoutNs / 1_000_000 + " ms: "
                        + storageInFlight + " storage operations in flight, " + scheduler.waitingCount() + " waiting, "
                        + scheduler.runningCount() + " running, store leftovers " + store.leftovers());
            }
            waitForNextEvent(now, next < arrivals.size() ? arrivals.get(next).arrivalNs() : Long.MAX_VALUE, startNs);
        }
        long wallNs = System.nanoTime() - startNs;
        return new Report(wallNs, scheduler.finished(), device.loadMatches(), device.loadMismatches(),
                device.stagingMismatches(), store.counter(StoreCounter.L2_READ_OPS), store.counter(StoreCounter.L2_READ_BYTES),
                store.counter(StoreCounter.L2_WRITE_OPS), store.counter(StoreCounter.L2_WRITE_BYTES), l2Failures,
                device.copiedBytes(), computeSteps, device.mismatchExamples());
    }

    private void waitForNextEvent(long now, long nextArrivalNs, long startNs) {
        long until = Math.min(nextArrivalNs, due.isEmpty() ? Long.MAX_VALUE : due.peek().atNs());
        long waitNs = until == Long.MAX_VALUE ? 1_000_000L : Math.max(0, until - now);
        if (waitNs == 0) {
            return;
        }
        try {
            Completed completed = completions.poll(Math.min(waitNs, 10_000_000L), TimeUnit.NANOSECONDS);
            if (completed != null) {
                storageInFlight--;
                onStorageCompletion(completed, System.nanoTime() - startNs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("live run interrupted", e);
        }
    }

    private void onStorageCompletion(Completed completed, long now) {
        if (!completed.completion().succeeded()) {
            l2Failures++;
        }
        scheduler.onCompletion(completed.completion(), now);
    }

    /** Hands the model's operations to the devices; returns whether there were any. */
    private boolean dispatch(List<IoOp> ops, long now) {
        if (ops.isEmpty()) {
            return false;
        }
        Map<Long, List<IoOp.L2Op>> readBatches = new LinkedHashMap<>();
        List<IoOp.L2Op> writes = new ArrayList<>();
        for (IoOp op : ops) {
            switch (op) {
                case IoOp.L2Read read -> readBatches.computeIfAbsent(read.batchId(), b -> new ArrayList<>()).add(read);
                case IoOp.L2Write write -> writes.add(write);
                case IoOp.CopyFromGpu copy -> {
                    device.stage(copy);
                    schedule(now, op);
                }
                case IoOp.CopyToGpu copy -> {
                    device.load(copy);
                    schedule(now, op);
                }
                case IoOp.Compute compute -> {
                    computeSteps++;
                    device.computed(compute);
                    schedule(now + computeTiming.stepNs(compute), op);
                }
            }
        }
        for (List<IoOp.L2Op> batch : readBatches.values()) {
            submit(batch);
        }
        if (!writes.isEmpty()) {
            submit(writes);
        }
        return true;
    }

    private void submit(List<IoOp.L2Op> batch) {
        storageInFlight += batch.size();
        storage.submit(batch, (op, completion) -> completions.add(new Completed(op, completion)));
    }

    private void schedule(long atNs, IoOp op) {
        due.add(new Due(atNs, dueSequence++, op));
    }

    /** A memcpy or a compute step is done. */
    private void complete(IoOp op, long now) {
        scheduler.onCompletion(IoCompletion.ok(op.ticket()), now);
    }

    @Override
    public void close() {
        device.close();
    }
}
