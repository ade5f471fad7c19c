package tierlab.model.serving;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.store.LookupResult;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * The prefetch window of {@link EngineScheduler}: how many requests are prefetching (promoting their
 * L2 hit into L1 under a lease while holding a sequence slot and their GPU blocks), starting one,
 * its completion, and cancelling the newest when decode needs its GPU blocks. The engine keeps the
 * queues; this class keeps the window's count and the prefetching requests in the order they began.
 */
final class PrefetchWindow {

    /** What the window asks of the engine that owns the queues. */
    interface Owner {
        /** Admits {@code request} to the running batch with {@code hit} (null: a miss). */
        void admitRunning(EngineRequest request, LookupResult hit, long nowNs);

        /** Drops the request's lease and GPU blocks and puts it back at the front of the waiting queue. */
        void backToWaiting(EngineRequest request, long nowNs);
    }

    private final TieredStore store;
    private final DecisionTrace trace;
    private final GpuBlockPool gpuBlocks;
    private final int blockTokens;
    private final PrefetchRetryBound retryBound;
    private final Owner owner;
    /** The prefetching requests, in the order their prefetches began (at most prefetchMaxRequests). */
    private final List<EngineRequest> prefetching = new ArrayList<>();
    private long calls;

    PrefetchWindow(TieredStore store, DecisionTrace trace, GpuBlockPool gpuBlocks, int blockTokens,
                   PrefetchRetryBound retryBound, Owner owner) {
        this.store = store;
        this.trace = trace;
        this.gpuBlocks = gpuBlocks;
        this.blockTokens = blockTokens;
        this.retryBound = retryBound;
        this.owner = owner;
    }

    /** Requests prefetching now. */
    int active() {
        return prefetching.size();
    }

    /** Store acquisitions started by {@link #start}. */
    long calls() {
        return calls;
    }

    /** Starts a prefetch; false when the lease must wait for admission (the request stays queued). */
    boolean start(EngineRequest request, LookupResult hit, long nowNs) {
        TieredStore.AcquireOutcome outcome = store.acquire(request.spec.requestId(), hit, nowNs);
        calls++;
        trace.record("prefetch", request.spec.requestId(), outcome.ordinal());
        request.hit = hit;
        switch (outcome) {
            case READY -> {
                request.prefetched = true;
                owner.admitRunning(request, hit, nowNs);
            }
            case PROMOTING -> {
                request.phase = EngineRequest.Phase.PREFETCHING;
                request.acquiring = true;
                prefetching.add(request);
                request.loadsWaited++;
                long needBlocks = Math.ceilDiv(request.spec.promptTokens(), blockTokens);
                gpuBlocks.fillTo(request, needBlocks);
            }
            case ADMISSION_WAIT, NOTHING_TO_ACQUIRE -> {
                request.hit = null;
                return false;
            }
        }
        return true;
    }

    /** The store reports the prefetching request's lease acquired (or failed). */
    void onAcquireDone(EngineRequest request, boolean succeeded, long nowNs) {
        request.acquiring = false;
        prefetching.remove(request);
        trace.record("prefetch-done", request.spec.requestId(), succeeded ? 1 : 0);
        if (succeeded && request.hit.computedTokens() == request.computedTokens) {
            // Admitted with its lease: its sequence slot and GPU blocks were taken when the prefetch began.
            request.prefetched = true;
            owner.admitRunning(request, request.hit, nowNs);
        } else {
            if (!succeeded) {
                retryBound.failed(request, trace);
            }
            // Failed (or the computed prefix changed): drop the lease and look the request up again.
            owner.backToWaiting(request, nowNs);
        }
    }

    /**
     * Cancels the newest prefetch holding GPU blocks, looking at {@code newestFirst} (every request,
     * highest id first): its lease (and so its promotions) go, its blocks are freed, it waits again.
     */
    boolean cancelNewest(Iterable<EngineRequest> newestFirst, long nowNs) {
        for (EngineRequest request : newestFirst) {
            if (request.phase == EngineRequest.Phase.PREFETCHING && !request.gpuBlocks.isEmpty()) {
                prefetching.remove(request);
                request.acquiring = false;
                owner.backToWaiting(request, nowNs);
                trace.record("prefetch-cancel", request.spec.requestId());
                return true;
            }
        }
        return false;
    }
}
