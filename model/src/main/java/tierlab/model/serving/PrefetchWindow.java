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
 *
 * <p>It also applies the prefetch stop policy ({@link PrefetchStop}; docs/policies.md, "Prefetch stop
 * policies"): at an engine step past a prefetch's deadline the request is admitted with the leading
 * blocks that arrived, and the rest of its hit is recomputed. With {@code wait-complete} nothing is
 * ever stopped and no decision differs from an engine without stop policies.
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
    private final PrefetchStop stop;
    /** The prefetching requests, in the order their prefetches began (at most prefetchMaxRequests). */
    private final List<EngineRequest> prefetching = new ArrayList<>();
    private long calls;

    PrefetchWindow(TieredStore store, DecisionTrace trace, GpuBlockPool gpuBlocks, int blockTokens,
                   PrefetchRetryBound retryBound, PrefetchStop stop, Owner owner) {
        this.store = store;
        this.trace = trace;
        this.gpuBlocks = gpuBlocks;
        this.blockTokens = blockTokens;
        this.retryBound = retryBound;
        this.owner = owner;
        this.stop = stop;
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
                request.prefetchDeadlineNs = stop.deadlineNs(nowNs, request.spec.promptTokens());
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
                request.lastFailedHitTokens = request.hit.hitTokens();
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

    /**
     * Stops waiting for every prefetch whose deadline is at or before {@code nowNs} (in the order the
     * prefetches began): the store keeps the leading blocks whose every lane arrived and releases the
     * rest (a read landing later is dropped, never served to this request); the request is admitted
     * with that shorter hit, or as a miss when nothing arrived. The tokens it loses are counted as
     * recomputed because of the stop, or of a failed read when the first block not kept had failed.
     *
     * @return whether any request was stopped (the admission pass has new room to look at)
     */
    boolean stopOverdue(long nowNs) {
        if (stop.waitsForAll() || prefetching.isEmpty()) {
            return false;
        }
        boolean stopped = false;
        for (EngineRequest request : new ArrayList<>(prefetching)) {
            if (request.prefetchDeadlineNs > nowNs) {
                continue;
            }
            stopped = true;
            prefetching.remove(request);
            request.acquiring = false;
            TieredStore.StoppedAcquire kept = store.stopAcquire(request.spec.requestId(), nowNs);
            trace.record("prefetch-stop", request.spec.requestId(), kept.keptBlocks());
            LookupResult hit = request.hit;
            if (hit.computedTokens() != request.computedTokens) {
                // The computed prefix changed under the prefetch: look it up again, as a completed one would.
                owner.backToWaiting(request, nowNs);
                continue;
            }
            LookupResult keptHit = keptPart(hit, kept);
            request.prefetched = keptHit != null;
            owner.admitRunning(request, keptHit, nowNs);
            long lostTokens = hit.hitTokens() - (keptHit == null ? 0 : keptHit.hitTokens());
            if (kept.failedRead()) {
                request.failedReadTokens = lostTokens;
            } else {
                request.prefetchTimeoutTokens = lostTokens;
            }
        }
        return stopped;
    }

    /** The part of {@code hit} a stopped prefetch kept: its first {@code keptBlocks} blocks (null: none). */
    private LookupResult keptPart(LookupResult hit, TieredStore.StoppedAcquire kept) {
        int keptBlocks = kept.keptBlocks();
        if (keptBlocks == 0) {
            return null;
        }
        int keptUnits = keptBlocks * (hit.units().size() / hit.hitBlocks());
        // The hit's last block may be capped one token short of the prompt; a shorter hit ends on a block.
        long keptTokens = Math.min(hit.hitTokens(), (long) keptBlocks * blockTokens);
        return new LookupResult(hit.requestId(), hit.hitClass(), hit.computedTokens(), keptTokens, hit.startBlock(),
                keptBlocks, hit.units().subList(0, keptUnits), hit.expected().subList(0, keptUnits),
                kept.keptResidentUnits(), hit.leaseStatus(), hit.storeEpoch());
    }
}
