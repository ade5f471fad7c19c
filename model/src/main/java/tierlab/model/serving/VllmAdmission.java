package tierlab.model.serving;

import java.util.Iterator;
import tierlab.model.KnownBug;
import tierlab.model.store.LookupResult;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * The admission pass of the vLLM engine ({@link EngineScheduler}): it walks the waiting queue under
 * {@code maxNumSeqs} and the free GPU blocks, looks each request's prefix up in the GPU prefix cache
 * (vLLM V1) and the store, and admits it to run, starts its prefetch, or parks it while the prefetch
 * window is full. A long run of parked requests at the front of the queue is passed over whole when
 * nothing a skip rests on has changed ({@link ParkedHits}).
 */
final class VllmAdmission {
    private final EngineScheduler engine;
    private final SchedulerSettings settings;
    private final TieredStore store;
    private final DecisionTrace trace;
    private final GpuBlockPool gpuBlocks;
    private final PrefetchWindow prefetches;
    private final int blockTokens;
    private final ParkedHits parked;
    /** The R13 ablation, read once: the pass asks for it on every request it looks at. */
    private final boolean r13StalePrefetchBound;
    private long deferralCount;

    VllmAdmission(EngineScheduler engine, PrefetchWindow prefetches) {
        this.engine = engine;
        this.settings = engine.settings;
        this.store = engine.store;
        this.trace = engine.trace;
        this.gpuBlocks = engine.gpuBlocks;
        this.prefetches = prefetches;
        this.blockTokens = engine.blockTokens;
        this.parked = new ParkedHits(store);
        this.r13StalePrefetchBound = store.settings().has(KnownBug.R13_STALE_PREFETCH_BOUND);
    }

    /**
     * The admission pass in progress: whether it is still in the leading run of skipped parked requests,
     * that run's length and largest GPU-block need. Fields rather than a pass object: a pass runs on
     * nearly every event.
     */
    private boolean passLeading;
    private int passRunLength;
    private long passRunMaxNeedBlocks;

    /** One admission pass over the waiting queue. */
    void run(long nowNs) {
        // The R13 ablation reads the prefetch count once per pass, as the buggy version did.
        int prefetchesAtPassStart = prefetches.active();
        // One pass looks at no more than maxNumSeqs waiting requests: parked ones are looked up again
        // on the next pass, and a queue of thousands is not re-walked on every event.
        // The pass walks the queue in place and removes only the requests it lets in: a request it
        // defers keeps its place, so the queue ends as the deferred ones in order, then the unscanned
        // rest (what taking every scanned request out and putting the deferred back in front gave,
        // without moving up to maxNumSeqs requests twice on every pass).
        int scanned = 0;
        Iterator<EngineRequest> queue = engine.waiting.iterator();
        // With the prefetch window full, an overloaded engine's queue starts with a long run of parked
        // requests that every pass skips. When nothing a skip rests on has changed since the last pass
        // (the same front of the queue, no gain of L1 content on a watched witness unit, no L2 entry
        // removed), the run is skipped again as a whole: only the capacity test can come out
        // differently, and a failure there ends the pass inside the run, having done nothing.
        // A GPU prefix cache that changed since the last pass may have moved parked requests' lookup starts.
        boolean skipping = settings.offload() && settings.prefetchEnabled() && settings.allL1Bypass()
                && prefetches.active() >= settings.prefetchMaxRequests() && !gpuBlocks.changedSinceLastAsked();
        long frontEpochAtStart = engine.waitingFrontEpoch;
        long watchedGainsAtStart = store.watchedResidencyGains();
        long removalsAtStart = store.indexRemovals();
        passRunLength = 0;
        passRunMaxNeedBlocks = 0;
        passLeading = skipping;
        if (skipping && parked.runHolds(frontEpochAtStart, watchedGainsAtStart, removalsAtStart)) {
            boolean capacityFails = engine.running.size() + prefetches.active() >= settings.maxNumSeqs()
                    || gpuBlocks.freeCount() < parked.skipRunMaxNeedBlocks;
            if (parked.crossCheck()) {
                parked.crossCheckRun(engine.waiting.iterator(), parked.skipRunLength,
                        r -> gpuBlocks.blocksToTake(r, Math.ceilDiv(r.spec.promptTokens(), blockTokens)),
                        need -> engine.running.size() + prefetches.active() >= settings.maxNumSeqs() || gpuBlocks.freeCount() < need,
                        capacityFails);
            }
            if (capacityFails) {
                return;
            }
            for (int i = 0; i < parked.skipRunLength; i++) {
                queue.next();
            }
            parked.parkedSkips += parked.skipRunLength;
            parked.runSkips++;
            scanned = parked.skipRunLength;
            passRunLength = parked.skipRunLength;
            passRunMaxNeedBlocks = parked.skipRunMaxNeedBlocks;
        }
        while (queue.hasNext() && scanned++ < settings.maxNumSeqs()) {
            if (!admitOne(queue, queue.next(), prefetchesAtPassStart, nowNs)) {
                break;
            }
        }
        // Keep the run only if nothing it rests on moved during this pass (a run request was checked
        // before later work in the pass, which could in principle have published on its unit).
        boolean unchanged = engine.waitingFrontEpoch == frontEpochAtStart && store.watchedResidencyGains() == watchedGainsAtStart
                && store.indexRemovals() == removalsAtStart;
        parked.rememberRun(skipping && unchanged ? passRunLength : 0, passRunMaxNeedBlocks, engine.waitingFrontEpoch);
    }

    /**
     * One waiting request of an admission pass: admitted, prefetching, parked or left waiting. False
     * ends the pass (no sequence slot or GPU blocks left, as the request ahead keeps its place).
     */
    private boolean admitOne(Iterator<EngineRequest> queue, EngineRequest request, int prefetchesAtPassStart, long nowNs) {
        long needBlocks = Math.ceilDiv(request.promptTokens, blockTokens);
        if (gpuBlocks.cachesPrefixes()) {
            // vLLM V1: the GPU's own prefix cache answers first; the store is asked for what lies beyond it.
            request.computedTokens = gpuBlocks.cachedPrefixTokens(request, blockTokens);
        }
        // A prefetching request holds its sequence slot and GPU blocks, as vLLM's asynchronous loads do,
        // so a finished prefetch can always run and release its lease.
        // The blocks to take are counted once: a parked request in the leading run needs the figure again below.
        long takeBlocks = gpuBlocks.blocksToTake(request, needBlocks);
        if (engine.running.size() + prefetches.active() >= settings.maxNumSeqs() || gpuBlocks.freeCount() < takeBlocks) {
            passLeading = false;
            return false;
        }
        if (!settings.offload() || request.recomputeStored) {
            queue.remove();
            engine.admitRunning(request, null, nowNs);
            return true;
        }
        int activeNow = r13StalePrefetchBound ? prefetchesAtPassStart : prefetches.active();
        if (settings.prefetchEnabled() && settings.allL1Bypass() && activeNow >= settings.prefetchMaxRequests()
                && request.parkedNow
                && parked.stillMixedOrL2(request)) {
            // Parked before and still a mixed or L2 hit: it stays parked; a full lookup would decide the same.
            parked.parkedSkips++;
            if (passLeading) {
                passRunLength++;
                passRunMaxNeedBlocks = Math.max(passRunMaxNeedBlocks, takeBlocks);
            }
            return true;
        }
        LookupResult hit = store.lookup(request.requestId, request.spec.chain(), request.computedTokens,
                request.promptTokens, nowNs);
        HitClass hitClass = hit.hitClass();
        boolean l1Bypass = hitClass == HitClass.L1 && settings.allL1Bypass();
        if (hitClass == HitClass.MISS) {
            queue.remove();
            engine.admitRunning(request, null, nowNs);
        } else if (hitClass == HitClass.L1 && hit.leaseStatus() == LookupResult.LeaseStatus.ADMISSION_WAIT) {
            passLeading = false;
            return true;
        } else if (l1Bypass || !settings.prefetchEnabled()) {
            queue.remove();
            engine.admitRunning(request, hit, nowNs);
        } else {
            int active = r13StalePrefetchBound ? prefetchesAtPassStart : prefetches.active();
            if (active >= settings.prefetchMaxRequests()) {
                if (!request.parkedNow) {
                    request.parkedNow = true;
                    request.deferrals++;
                    deferralCount++;
                    trace.record("park", request.requestId);
                }
                if (hitClass == HitClass.L1) {
                    store.releaseLease(request.requestId, nowNs);
                }
                passLeading = false;
                return true;
            }
            if (startPrefetch(request, hit, nowNs)) {
                // Admitted (READY) or prefetching (PROMOTING): either way it has left the queue.
                queue.remove();
            } else {
                passLeading = false;
            }
        }
        return true;
    }

    /** Shortcut answers are recomputed the slow way as well (for tests: it costs what the shortcuts save). */
    void setCrossCheck(boolean check) {
        parked.setCrossCheck(check);
    }

    /** Starts a prefetch; false when the lease must wait for admission (the request stays queued). */
    private boolean startPrefetch(EngineRequest request, LookupResult hit, long nowNs) {
        leftQueue(request);
        return prefetches.start(request, hit, nowNs);
    }

    /** The request leaves the queue (admitted or prefetching): it is parked no more. */
    void leftQueue(EngineRequest request) {
        request.parkedNow = false;
        parked.drop(request);
    }

    long deferrals() {
        return deferralCount;
    }

    /** Parked requests a pass passed over without a lookup (the witness or the skipped run said so). */
    long parkedSkips() {
        return parked.parkedSkips;
    }

    /** Passes that passed over the whole parked run at the front of the queue at once. */
    long runSkips() {
        return parked.runSkips;
    }
}
