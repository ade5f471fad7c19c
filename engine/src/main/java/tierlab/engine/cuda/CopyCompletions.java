package tierlab.engine.cuda;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.OpSink;

/**
 * The completion thread of a {@link CudaCopyPort}: it polls the oldest event of each stream with
 * {@code cudaEventQuery} (a stream runs its work in order, so only the head can be next), reports a
 * layer-wise load's groups as they land, and hands each finished copy to its op's sink from this thread.
 * Nothing may escape it: a query or a check that throws fails that copy and the others go on.
 */
final class CopyCompletions implements Runnable {

    /** Polls that find nothing before the completion thread parks instead of spinning. */
    private static final int SPINS_BEFORE_PARK = 2_000;
    private static final long PARK_NS = 20_000;

    private final CudaCopyPort port;
    private final LinkedBlockingQueue<Pending> submitted = new LinkedBlockingQueue<>();
    private final AtomicLong inFlight = new AtomicLong();

    CopyCompletions(CudaCopyPort port) {
        this.port = port;
    }

    /** A copy is being submitted: counted in flight before its event exists, so close() waits for it. */
    void begin() {
        inFlight.incrementAndGet();
    }

    /** The submitted copy, for the completion thread to report. */
    void add(Pending pending) {
        submitted.add(pending);
    }

    /** Copies submitted and not yet reported. */
    long inFlight() {
        return inFlight.get();
    }

    enum Direction { TO_GPU, FROM_GPU }

    /**
     * A copy in flight: the event recorded after it, the scratch buffers its verification reads, and for a
     * layer-wise load the events recorded after each layer group but the last (the last group's is
     * {@code event}). The completion thread alone reads and advances {@code groupsLanded} and {@code error}
     * (set at submission, or by the first event that reports a failure).
     */
    static final class Pending {
        final IoOp op;
        final OpSink sink;
        final Direction direction;
        final long event;
        final List<Long> scratch;
        final long[] groupEvents;
        int groupsLanded;
        String error;

        Pending(IoOp op, OpSink sink, Direction direction, long event, String error, List<Long> scratch, long[] groupEvents) {
            this.op = op;
            this.sink = sink;
            this.direction = direction;
            this.event = event;
            this.error = error;
            this.scratch = scratch;
            this.groupEvents = groupEvents;
        }
    }

    /** The completion thread: polls the head event of each stream, reports finished copies in stream order. */
    @Override
    public void run() {
        try {
            port.api.setDevice(port.device);
        } catch (CudaException e) {
            // The model thread set the same device; a failure here shows as failed copies below.
            port.note("completion thread: " + e.getMessage());
        }
        ArrayDeque<Pending> toGpu = new ArrayDeque<>();
        ArrayDeque<Pending> fromGpu = new ArrayDeque<>();
        int idle = 0;
        while (!port.stopping || inFlight.get() > 0) {
            Pending next;
            while ((next = submitted.poll()) != null) {
                (next.direction == Direction.TO_GPU ? toGpu : fromGpu).add(next);
            }
            boolean progress = drain(toGpu) | drain(fromGpu);
            if (progress) {
                idle = 0;
            } else if (toGpu.isEmpty() && fromGpu.isEmpty()) {
                try {
                    next = submitted.poll(10, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
                if (next != null) {
                    (next.direction == Direction.TO_GPU ? toGpu : fromGpu).add(next);
                }
            } else if (++idle < SPINS_BEFORE_PARK) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(PARK_NS);
            }
        }
    }

    /**
     * Completes the finished copies at the head of one stream's queue, reporting a layer-wise load's groups
     * as their events complete (in group order: the stream runs them in order); whether anything moved.
     */
    private boolean drain(ArrayDeque<Pending> queue) {
        boolean progress = false;
        Pending head;
        while ((head = queue.peek()) != null) {
            while (head.groupsLanded < head.groupEvents.length) {
                long groupEvent = head.groupEvents[head.groupsLanded];
                int code = query(head, groupEvent);
                if (code == CudaApi.ERROR_NOT_READY) {
                    return progress;
                }
                port.events.add(groupEvent);
                progress = true;
                if (code != CudaApi.SUCCESS && head.error == null) {
                    head.error = port.api.errorName(code);
                }
                int group = head.groupsLanded++;
                if (head.error == null) {
                    port.layerLanded.accept(group);
                }
            }
            int code = head.event == CudaCopyPort.NO_EVENT ? CudaApi.SUCCESS : query(head, head.event);
            if (code == CudaApi.ERROR_NOT_READY) {
                return progress;
            }
            queue.poll();
            progress = true;
            if (head.groupEvents.length > 0 && head.error == null && code == CudaApi.SUCCESS) {
                // The last layer group is in: reported before the load's completion, which the step waits for.
                port.layerLanded.accept(head.groupEvents.length);
            }
            finish(head, code);
        }
        return progress;
    }

    /**
     * {@code cudaEventQuery} of one of {@code pending}'s events. The completion thread must survive anything:
     * a query that throws fails this copy (after its stream drained, since its bytes may still be moving
     * when the model reuses them) and the others go on.
     */
    private int query(Pending pending, long event) {
        try {
            return port.api.eventQuery(event);
        } catch (RuntimeException e) {
            port.note("cudaEventQuery of request " + requestId(pending.op) + "'s copy: " + e);
            try {
                port.api.streamSynchronize(pending.direction == Direction.TO_GPU ? port.toGpuStream : port.fromGpuStream);
            } catch (RuntimeException ignored) {
                // Nothing more can be done from here; the copy is reported failed either way.
            }
            if (pending.error == null) {
                pending.error = e.getClass().getSimpleName();
            }
            return CudaApi.SUCCESS;
        }
    }

    private void finish(Pending pending, int eventCode) {
        IoOp op = pending.op;
        String error = pending.error != null ? pending.error
                : eventCode != CudaApi.SUCCESS ? port.api.errorName(eventCode) : null;
        if (pending.event != CudaCopyPort.NO_EVENT) {
            port.events.add(pending.event);
        }
        IoCompletion completion;
        try {
            if (error != null) {
                port.failedCopies.incrementAndGet();
                completion = IoCompletion.failed(ticket(op), error);
                port.scratchBuffers.addAll(pending.scratch);
            } else {
                port.copiedBytes.addAndGet(bytes(op));
                if (op instanceof IoOp.CopyFromGpu staging && port.verify) {
                    port.checkStaging(staging);
                }
                completion = IoCompletion.ok(ticket(op));
            }
        } catch (RuntimeException e) {
            // Nothing may escape the completion thread: an unexpected failure is this copy's failed value.
            port.failedCopies.incrementAndGet();
            completion = IoCompletion.failed(ticket(op), e.getClass().getSimpleName());
        }
        if (completion.succeeded() && op instanceof IoOp.CopyToGpu load && port.verify) {
            // Queued before the hand-over: a run that ends as soon as the model sees this completion
            // still finds the comparison ahead of its awaitVerification().
            port.verifier.execute(() -> port.checkLoad(load, pending.scratch));
        }
        inFlight.decrementAndGet();
        pending.sink.completed(op, completion);
    }

    private static long requestId(IoOp op) {
        return switch (op) {
            case IoOp.CopyToGpu load -> load.requestId();
            case IoOp.CopyFromGpu staging -> staging.requestId();
            default -> -1;
        };
    }

    private static long ticket(IoOp op) {
        return op.ticket();
    }

    private static long bytes(IoOp op) {
        return switch (op) {
            case IoOp.CopyToGpu load -> load.totalBytes();
            case IoOp.CopyFromGpu staging -> staging.laneBytes() * staging.gpuBlockIds().size();
            default -> 0;
        };
    }
}
