package tierlab.model.serving;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import tierlab.model.KnownBug;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.LookupResult;
import tierlab.model.store.StoreEvent;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.LongMap;

/**
 * A vLLM-like serving engine over the tiered store: arrivals, admission under {@code maxNumSeqs}
 * and free GPU blocks, the prefetch window with parking, then per engine step load → compute →
 * save → finish, with recompute preemption when decode runs out of GPU blocks.
 *
 * <p>Like the store it is a duty cycle: {@link #tick(long)} does whatever can be done now and
 * returns; nothing blocks. The engine step waits for its loads and its compute as state
 * ({@link StepPhase}), resumed by {@link #onCompletion}. Time is only ever a parameter.
 */
public final class EngineScheduler implements ServingEngine {

    /**
     * Where the engine's current step is. {@code SAVING} only with {@code saveTiming: in-step}: the
     * compute is done and the step waits for its saves to be staged before it ends.
     */
    public enum StepPhase { IDLE, LOADING, COMPUTING, SAVING }

    private final SchedulerSettings settings;
    private final TieredStore store;
    /** The R13 ablation, read once: the admission pass asks for it on every request it looks at. */
    private final boolean r13StalePrefetchBound;
    private final DecisionTrace trace;
    private final ParkedHits parked;
    private final int blockTokens;

    /** Every request by id, in id order (iterated: crash recovery, invariants, the newest prefetch). */
    private final TreeMap<Long, EngineRequest> requestsById = new TreeMap<>();
    /**
     * The same requests for lookups by id, which every completion and every item of every step does;
     * never iterated, so its hash order decides nothing.
     */
    private final LongMap<EngineRequest> requestIndex = new LongMap<>();
    private final ArrayDeque<EngineRequest> waiting = new ArrayDeque<>();
    private final List<EngineRequest> running = new ArrayList<>();
    private final GpuBlockPool gpuBlocks;
    private final String kind;
    private final List<RequestOutcome> finished = new ArrayList<>();
    private final List<IoOp> ownOps = new ArrayList<>();

    private StepPhase stepPhase = StepPhase.IDLE;
    /**
     * Something that can let a waiting request in has happened since the last admission pass (an
     * arrival, a finished step, a store event, a preemption). Without it a pass would only repeat
     * the last one's lookups, on every I/O completion.
     */
    private boolean admissionDirty = true;
    private long computeTicket = -1;
    private IoOp.Compute currentCompute;
    /** Reused by every step; its {@code itemRequests} are the requests of {@link #currentCompute}'s items. */
    private final EngineRequests.StepBuffers stepBuffers = new EngineRequests.StepBuffers();
    private final List<EngineRequest> stepLoads = new ArrayList<>();
    private final PrefetchWindow prefetches;
    private long stepIndex;
    private long deferralCount;
    private long preemptionCount;
    private long computedPromptTokens;
    private final PrefetchRetryBound retryBound = new PrefetchRetryBound();
    /** With {@code saveTiming: in-step}: the step whose compute is done, waiting for its saves (null otherwise). */
    private HeldStep heldStep;
    /** Bumped whenever a request is put back at the front of the waiting queue (appends leave the front alone). */
    private long waitingFrontEpoch;

    public EngineScheduler(SchedulerSettings settings, TieredStore store, DecisionTrace trace) {
        this(settings, store, trace, ServingEngines.VLLM, new GpuBlockPool(settings.gpuKvBlocks()));
    }

    /** The same step loop over another GPU block pool ({@code vllm-v1}: the prefix-caching one), registered as {@code kind}. */
    EngineScheduler(SchedulerSettings settings, TieredStore store, DecisionTrace trace, String kind, GpuBlockPool pool) {
        this.settings = settings;
        this.store = store;
        this.trace = trace;
        this.parked = new ParkedHits(store);
        this.blockTokens = store.settings().geometry().blockTokens();
        this.gpuBlocks = pool;
        this.kind = kind;
        this.r13StalePrefetchBound = store.settings().has(KnownBug.R13_STALE_PREFETCH_BOUND);
        this.prefetches = new PrefetchWindow(store, trace, pool, blockTokens, retryBound, settings.prefetchStop(), new PrefetchWindow.Owner() {
            @Override
            public void admitRunning(EngineRequest request, LookupResult hit, long nowNs) {
                EngineScheduler.this.admitRunning(request, hit, nowNs);
            }

            @Override
            public void backToWaiting(EngineRequest request, long nowNs) {
                EngineScheduler.this.backToWaiting(request, nowNs);
            }
        });
    }

    /** A request arrives now. */
    public void submit(RequestSpec spec, long nowNs) {
        if (requestsById.containsKey(spec.requestId())) {
            throw new IllegalArgumentException("request " + spec.requestId() + " submitted twice");
        }
        EngineRequest.checkChainCoversPrompt(spec, blockTokens);
        long blocksNeeded = Math.ceilDiv(spec.promptTokens() + spec.outputTokens(), blockTokens);
        if (blocksNeeded > settings.gpuKvBlocks()) {
            throw new IllegalArgumentException("request " + spec.requestId() + " needs " + blocksNeeded
                    + " GPU blocks but gpuKvBlocks is " + settings.gpuKvBlocks());
        }
        EngineRequest request = new EngineRequest(spec);
        requestsById.put(spec.requestId(), request);
        requestIndex.put(spec.requestId(), request);
        waiting.addLast(request);
        admissionDirty = true;
        trace.record("arrive", spec.requestId(), spec.promptTokens(), spec.outputTokens());
    }

    /** Routes a completion: compute tickets are the engine's, everything else the store's. */
    public void onCompletion(IoCompletion completion, long nowNs) {
        if (completion.ticket() == computeTicket) {
            finishCompute(nowNs);
        } else {
            store.onCompletion(completion, nowNs);
        }
        handleStoreEvents(nowNs);
    }

    /** Does everything that can be done now: store events, admission, and the next engine step. */
    public void tick(long nowNs) {
        handleStoreEvents(nowNs);
        if (stepPhase == StepPhase.SAVING && heldStep.mayEnd(requestIndex, store)) {
            endHeldStep(nowNs);
        }
        if (stepPhase == StepPhase.IDLE) {
            // The prefetch stop policy is applied at engine steps: overdue prefetches run with what arrived.
            admissionDirty |= prefetches.stopOverdue(nowNs);
            if (admissionDirty) {
                admissionDirty = false;
                admit(nowNs);
            }
            startStep(nowNs);
        }
        handleStoreEvents(nowNs);
    }

    /** Operations to perform: the store's and the engine's compute steps. */
    public List<IoOp> drainOps() {
        return EngineRequests.drain(store.drainOps(), ownOps);
    }


    // ------------------------------------------------------------------------------------------

    private void handleStoreEvents(long nowNs) {
        List<StoreEvent> events = store.drainEvents();
        // Indexed: runs after every completion, and an iterator per call is garbage for nothing.
        for (int i = 0; i < events.size(); i++) {
            StoreEvent event = events.get(i);
            admissionDirty = true;
            EngineRequest request = requestIndex.get(event.requestId());
            switch (event) {
                case StoreEvent.AcquireDone done -> onAcquireDone(request, done.succeeded(), nowNs);
                case StoreEvent.LoadDone done -> onLoadDone(request, done.succeeded(), nowNs);
                case StoreEvent.SaveStaged staged -> onSaveStaged(event.requestId(), staged.cancelled(), nowNs);
            }
        }
    }

    private void onAcquireDone(EngineRequest request, boolean succeeded, long nowNs) {
        if (request == null || !request.acquiring) {
            return;
        }
        if (request.phase == EngineRequest.Phase.PREFETCHING) {
            prefetches.onAcquireDone(request, succeeded, nowNs);
            return;
        }
        request.acquiring = false;
        if (request.phase == EngineRequest.Phase.RUNNING) {
            // Synchronous L2 path of a load (prefetch off).
            if (succeeded) {
                startLoad(request, nowNs);
            } else {
                store.releaseLease(request.spec.requestId(), nowNs);
                request.hitReadFailed();
                request.needsLoad = false;
                stepLoads.remove(request);
                maybeCompute(nowNs);
            }
        }
    }

    private void onLoadDone(EngineRequest request, boolean succeeded, long nowNs) {
        if (request == null || !request.loading) {
            return;
        }
        request.loading = false;
        request.needsLoad = false;
        if (succeeded) {
            request.computedTokens = request.hit.computedTokens() + request.hit.hitTokens();
            gpuBlocks.cacheFullBlocks(request, blockTokens);
        } else {
            // Fall back to recompute: the lease goes, the tokens are computed.
            store.releaseLease(request.spec.requestId(), nowNs);
            request.hitReadFailed();
        }
        trace.record("loaded", request.spec.requestId(), succeeded ? 1 : 0, request.computedTokens);
        stepLoads.remove(request);
        maybeCompute(nowNs);
    }

    private void onSaveStaged(long requestId, boolean cancelled, long nowNs) {
        if (cancelled) {
            // A save cancelled by a preemption finished copying: the old blocks are free once no cancelled
            // copy of this request reads them. It is not the current incarnation's save.
            if (!store.cancelledStagingInFlight(requestId)) {
                gpuBlocks.releaseHeld(requestId);
            }
            return;
        }
        EngineRequest request = requestIndex.get(requestId);
        if (request != null && request.saveQueued) {
            request.saveStaged = true;
            maybeFinish(request, nowNs);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Admission
    // ------------------------------------------------------------------------------------------

    /**
     * The admission pass in progress: whether it is still in the leading run of skipped parked requests,
     * that run's length and largest GPU-block need. Fields rather than a pass object: a pass runs on
     * nearly every event.
     */
    private boolean passLeading;
    private int passRunLength;
    private long passRunMaxNeedBlocks;

    private void admit(long nowNs) {
        // The R13 ablation reads the prefetch count once per pass, as the buggy version did.
        int prefetchesAtPassStart = prefetches.active();
        // One pass looks at no more than maxNumSeqs waiting requests: parked ones are looked up again
        // on the next pass, and a queue of thousands is not re-walked on every event.
        // The pass walks the queue in place and removes only the requests it lets in: a request it
        // defers keeps its place, so the queue ends as the deferred ones in order, then the unscanned
        // rest (what taking every scanned request out and putting the deferred back in front gave,
        // without moving up to maxNumSeqs requests twice on every pass).
        int scanned = 0;
        Iterator<EngineRequest> queue = waiting.iterator();
        // With the prefetch window full, an overloaded engine's queue starts with a long run of parked
        // requests that every pass skips. When nothing a skip rests on has changed since the last pass
        // (the same front of the queue, no gain of L1 content on a watched witness unit, no L2 entry
        // removed), the run is skipped again as a whole: only the capacity test can come out
        // differently, and a failure there ends the pass inside the run, having done nothing.
        // A GPU prefix cache that changed since the last pass may have moved parked requests' lookup starts.
        boolean skipping = settings.offload() && settings.prefetchEnabled() && settings.allL1Bypass()
                && prefetches.active() >= settings.prefetchMaxRequests() && !gpuBlocks.changedSinceLastAsked();
        long frontEpochAtStart = waitingFrontEpoch;
        long watchedGainsAtStart = store.watchedResidencyGains();
        long removalsAtStart = store.indexRemovals();
        passRunLength = 0;
        passRunMaxNeedBlocks = 0;
        passLeading = skipping;
        if (skipping && parked.runHolds(frontEpochAtStart, watchedGainsAtStart, removalsAtStart)) {
            boolean capacityFails = running.size() + prefetches.active() >= settings.maxNumSeqs()
                    || gpuBlocks.freeCount() < parked.skipRunMaxNeedBlocks;
            if (parked.crossCheck()) {
                parked.crossCheckRun(waiting.iterator(), parked.skipRunLength,
                        r -> gpuBlocks.blocksToTake(r, Math.ceilDiv(r.spec.promptTokens(), blockTokens)),
                        need -> running.size() + prefetches.active() >= settings.maxNumSeqs() || gpuBlocks.freeCount() < need,
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
        boolean unchanged = waitingFrontEpoch == frontEpochAtStart && store.watchedResidencyGains() == watchedGainsAtStart
                && store.indexRemovals() == removalsAtStart;
        parked.rememberRun(skipping && unchanged ? passRunLength : 0, passRunMaxNeedBlocks, waitingFrontEpoch);
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
        if (running.size() + prefetches.active() >= settings.maxNumSeqs() || gpuBlocks.freeCount() < takeBlocks) {
            passLeading = false;
            return false;
        }
        if (!settings.offload() || request.recomputeStored) {
            queue.remove();
            admitRunning(request, null, nowNs);
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
            admitRunning(request, null, nowNs);
        } else if (hitClass == HitClass.L1 && hit.leaseStatus() == LookupResult.LeaseStatus.ADMISSION_WAIT) {
            passLeading = false;
            return true;
        } else if (l1Bypass || !settings.prefetchEnabled()) {
            queue.remove();
            admitRunning(request, hit, nowNs);
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

    /**
     * Recomputes every shortcut answer the slow way as well and throws IllegalStateException if they
     * differ (for tests: it costs what the shortcuts save).
     */
    public void setCrossCheck(boolean check) {
        parked.setCrossCheck(check);
    }

    /** Starts a prefetch; false when the lease must wait for admission (the request stays queued). */
    private boolean startPrefetch(EngineRequest request, LookupResult hit, long nowNs) {
        request.parkedNow = false;
        parked.drop(request);
        return prefetches.start(request, hit, nowNs);
    }

    private void admitRunning(EngineRequest request, LookupResult hit, long nowNs) {
        request.parkedNow = false;
        parked.drop(request);
        request.phase = EngineRequest.Phase.RUNNING;
        request.hit = hit;
        if (request.admittedNs < 0) {
            request.admittedNs = nowNs;
        }
        request.recordAdmission(hit);
        long needBlocks = Math.ceilDiv(request.spec.promptTokens(), blockTokens);
        gpuBlocks.fillTo(request, needBlocks);
        request.needsLoad = hit != null && hit.isHit();
        running.add(request);
        trace.record("admit", request.spec.requestId(), request.admittedClass.ordinal(), request.admittedHitTokens);
    }

    // ------------------------------------------------------------------------------------------
    // The engine step
    // ------------------------------------------------------------------------------------------

    private void startStep(long nowNs) {
        if (running.isEmpty()) {
            return;
        }
        stepLoads.clear();
        for (EngineRequest request : running) {
            if (request.needsLoad && !request.loading && !request.acquiring) {
                stepLoads.add(request);
            }
        }
        stepPhase = StepPhase.LOADING;
        for (EngineRequest request : new ArrayList<>(stepLoads)) {
            if (store.hasLease(request.spec.requestId())) {
                startLoad(request, nowNs);
            } else {
                // Prefetch off: read the L2 misses now, stalling this step.
                TieredStore.AcquireOutcome outcome = store.acquire(request.spec.requestId(), request.hit, nowNs);
                switch (outcome) {
                    case READY -> startLoad(request, nowNs);
                    case PROMOTING -> request.acquiring = true;
                    case ADMISSION_WAIT, NOTHING_TO_ACQUIRE -> {
                        // No lease to be had now: compute instead of waiting on other requests' leases.
                        request.needsLoad = false;
                        request.admittedHitTokens = 0;
                        stepLoads.remove(request);
                    }
                }
            }
        }
        maybeCompute(nowNs);
    }

    private void startLoad(EngineRequest request, long nowNs) {
        EngineRequests.startLoad(request, store, stepLoads, false, nowNs);
    }

    /** Once every load of the step has landed, run the forward pass over the batch. */
    private void maybeCompute(long nowNs) {
        if (stepPhase != StepPhase.LOADING || !stepLoads.isEmpty()) {
            return;
        }
        // Decode first: one token each, growing the KV by a block when needed (preempting if none is free).
        List<IoOp.ComputeItem> items = EngineRequests.stepItems(running, settings.maxBatchedTokens(), blockTokens,
                request -> growOrPreempt(request, nowNs), stepBuffers);
        if (items.isEmpty()) {
            stepPhase = StepPhase.IDLE;
            return;
        }
        currentCompute = EngineRequests.newStep(store, stepIndex++, items, ownOps, trace);
        computeTicket = currentCompute.ticket();
        stepPhase = StepPhase.COMPUTING;
    }

    private boolean growOrPreempt(EngineRequest request, long nowNs) {
        // A prefetch holding GPU blocks gives them back before any running request is preempted; otherwise
        // a lone running request preempts itself and the two can take turns forever.
        while (gpuBlocks.noneFree() && cancelNewestPrefetch(nowNs)) {
            // retry with the blocks it gave back
        }
        // vLLM's order: the most recently scheduled running request goes first, and the request itself
        // only when nobody newer is left. Unlike vLLM, a victim whose save is still staging frees nothing
        // now: its blocks come back when the copy lands (R10). Preempting the request itself then
        // throws its progress away for nothing, and the two can re-create the same state forever
        // (hunt finding F2: two one-block requests, 4 GPU blocks). So while blocks are on their way
        // back, the request keeps its blocks and skips this step's decode; the copy that frees them is
        // in flight and no new one starts meanwhile (every newer request was preempted above), so the
        // oldest running request is never preempted by its own growth and always makes progress.
        while (gpuBlocks.noneFree()) {
            EngineRequest victim = running.get(running.size() - 1);
            if (victim == request && gpuBlocks.requestsHoldingForStaging() > 0) {
                trace.record("grow-wait-staging", request.spec.requestId(), gpuBlocks.requestsHoldingForStaging());
                return false;
            }
            preempt(victim, nowNs);
            if (victim == request) {
                return false;
            }
        }
        gpuBlocks.fillTo(request.gpuBlocks, request.gpuBlocks.size() + 1);
        return true;
    }

    /**
     * A prefetching request that will not run now: its lease (and so its promotions) goes, its GPU
     * blocks are freed, and it waits again at the front of the queue, to be looked up afresh.
     */
    private void backToWaiting(EngineRequest request, long nowNs) {
        store.releaseLease(request.spec.requestId(), nowNs);
        request.hit = null;
        gpuBlocks.release(request.gpuBlocks);
        request.gpuBlocks.clear();
        request.phase = EngineRequest.Phase.WAITING;
        waitingFrontEpoch++;
        waiting.addFirst(request);
    }

    /** Cancels the newest prefetch: its lease (and so its promotions) go, its blocks are freed, it waits again. */
    private boolean cancelNewestPrefetch(long nowNs) {
        return prefetches.cancelNewest(requestsById.descendingMap().values(), nowNs);
    }

    /**
     * Recompute preemption: the request loses its GPU blocks and its lease and goes back to the
     * front of the queue. Its queued saves are cancelled so that none of them copies GPU blocks
     * the engine hands to someone else (R10); blocks under an in-flight staging copy are held
     * until the copy lands.
     */
    private void preempt(EngineRequest request, long nowNs) {
        admissionDirty = true;
        running.remove(request);
        stepLoads.remove(request);
        request.preemptions++;
        preemptionCount++;
        store.releaseLease(request.spec.requestId(), nowNs);
        boolean copying = store.cancelSaves(request.spec.requestId(), nowNs);
        if (copying && !store.settings().has(KnownBug.R10_SAVE_AFTER_PREEMPT)) {
            gpuBlocks.holdForStaging(request.spec.requestId(), request.gpuBlocks);
        } else {
            gpuBlocks.release(request.gpuBlocks);
        }
        request.gpuBlocks.clear();
        request.computedTokens = 0;
        request.outputDone = 0;
        request.hit = null;
        request.needsLoad = false;
        request.loading = false;
        request.acquiring = false;
        request.saveQueued = false;
        request.saveStaged = false;
        request.phase = EngineRequest.Phase.WAITING;
        waitingFrontEpoch++;
        waiting.addFirst(request);
        trace.record("preempt", request.spec.requestId());
    }

    /** Preempts a running request by id (a test or fault campaign asks); false if it is not running. */
    public boolean preempt(long requestId, long nowNs) {
        EngineRequest request = requestIndex.get(requestId);
        if (request == null || request.phase != EngineRequest.Phase.RUNNING || request.loading || request.acquiring) {
            return false;
        }
        preempt(request, nowNs);
        return true;
    }

    private void finishCompute(long nowNs) {
        if (settings.saveTiming() == SaveTiming.IN_STEP) {
            holdStepForSaves(nowNs);
            return;
        }
        IoOp.Compute compute = takeCompute(StepPhase.IDLE);
        List<IoOp.ComputeItem> items = compute.items();
        for (int i = 0; i < items.size(); i++) {
            IoOp.ComputeItem item = items.get(i);
            EngineRequest request = stepBuffers.itemRequests.get(i);
            if (request.phase != EngineRequest.Phase.RUNNING) {
                continue;
            }
            if (request.computedTokens < request.promptTokens) {
                request.computedTokens += item.newTokens();
                computedPromptTokens += item.newTokens();
                gpuBlocks.cacheFullBlocks(request, blockTokens);
                if (request.computedTokens == request.promptTokens) {
                    // Prefill done: the first output token exists now, and the new KV is saved.
                    request.outputDone = 1;
                    if (request.firstTokenNs < 0) {
                        request.firstTokenNs = nowNs;
                    }
                    request.startSave(store, blockTokens, settings.offload(), nowNs);
                }
            } else {
                request.outputDone++;
            }
            maybeFinish(request, nowNs);
        }
        trace.record("step-done", compute.stepIndex());
    }

    /** The step's compute completed: takes it from the engine and moves to {@code next}; admission looks again. */
    private IoOp.Compute takeCompute(StepPhase next) {
        admissionDirty = true;
        IoOp.Compute compute = currentCompute;
        currentCompute = null;
        computeTicket = -1;
        stepPhase = next;
        return compute;
    }

    /**
     * {@code saveTiming: in-step}: the compute is done and its prompts' saves are queued ({@link HeldStep#hold});
     * the step ends only once they are staged, which {@link #tick} asks after every event.
     */
    private void holdStepForSaves(long nowNs) {
        IoOp.Compute compute = takeCompute(StepPhase.SAVING);
        heldStep = HeldStep.hold(compute, requestIndex, gpuBlocks, store, settings.offload(), nowNs);
        computedPromptTokens += heldStep.promptTokensComputed();
        trace.record("step-saving", compute.stepIndex(), heldStep.savesPending(requestIndex));
        if (heldStep.mayEnd(requestIndex, store)) {
            endHeldStep(nowNs);
        }
    }

    /** The held step's saves are staged: its tokens come out now (first tokens included), and it ends. */
    private void endHeldStep(long nowNs) {
        HeldStep step = heldStep;
        heldStep = null;
        stepPhase = StepPhase.IDLE;
        admissionDirty = true;
        for (EngineRequest request : step.emitTokens(requestIndex, nowNs)) {
            maybeFinish(request, nowNs);
        }
        trace.record("step-done", step.stepIndex());
    }

    private void maybeFinish(EngineRequest request, long nowNs) {
        if (request.phase != EngineRequest.Phase.RUNNING || request.outputDone < request.outputTokens
                || !request.saveQueued || !request.saveStaged) {
            return;
        }
        running.remove(request);
        request.phase = EngineRequest.Phase.FINISHED;
        store.releaseLease(request.requestId, nowNs);
        gpuBlocks.release(request.gpuBlocks);
        request.gpuBlocks.clear();
        finished.add(request.outcome(nowNs));
        trace.record("finish", request.requestId, nowNs);
    }

    // ------------------------------------------------------------------------------------------
    // Queries and invariants
    // ------------------------------------------------------------------------------------------

    @Override
    public String kind() {
        return kind;
    }

    public SchedulerSettings settings() {
        return settings;
    }

    /** Requests submitted but not finished, in id order: what a restarted engine must serve again. */
    public List<RequestSpec> unfinished() {
        List<RequestSpec> specs = new ArrayList<>();
        for (EngineRequest request : requestsById.values()) {
            if (request.phase != EngineRequest.Phase.FINISHED) {
                specs.add(request.spec);
            }
        }
        return specs;
    }

    public List<RequestOutcome> finished() {
        return List.copyOf(finished);
    }

    /** How many requests have finished, without copying them (a closed-loop client asks after every event). */
    public int finishedCount() {
        return finished.size();
    }

    public boolean allFinished() {
        for (EngineRequest request : requestsById.values()) {
            if (request.phase != EngineRequest.Phase.FINISHED) {
                return false;
            }
        }
        return true;
    }

    public StepPhase stepPhase() {
        return stepPhase;
    }

    public int activePrefetches() {
        return prefetches.active();
    }

    public long prefetchCalls() {
        return prefetches.calls();
    }

    public long deferrals() {
        return deferralCount;
    }

    /** Parked requests an admission pass passed over without a lookup (the witness or the skipped run said so). */
    public long parkedSkips() {
        return parked.parkedSkips;
    }

    /** Admission passes that passed over the whole parked run at the front of the queue at once. */
    public long runSkips() {
        return parked.runSkips;
    }

    public long preemptions() { return preemptionCount; }
    public long computedPromptTokens() { return computedPromptTokens; }
    public int runningCount() { return running.size(); }
    public int waitingCount() { return waiting.size(); }
    public long freeGpuBlockCount() { return gpuBlocks.freeCount(); }
    public long gpuBlocksEvicted() { return gpuBlocks.evictions(); }
    public TieredStore store() { return store; }

    /** The bound on failed prefetches per request, after which it recomputes (settable for tests). */
    public PrefetchRetryBound retryBound() { return retryBound; }

    /** Finished request ids in ascending order (for tests). */
    public List<Long> finishedIds() {
        List<Long> ids = new ArrayList<>();
        for (RequestOutcome outcome : finished) {
            ids.add(outcome.requestId());
        }
        return ids;
    }

    /**
     * I5 and the scheduler's own bookkeeping, then the store's invariants. Throws
     * IllegalStateException naming the broken rule.
     */
    public void checkInvariants() {
        int prefetching = 0;
        long heldBlocks = 0;
        long givenUp = 0;
        long givenUpAfterFailures = 0;
        for (EngineRequest request : requestsById.values()) {
            if (request.phase == EngineRequest.Phase.PREFETCHING) {
                prefetching++;
            }
            heldBlocks += request.gpuBlocks.size();
            givenUp += request.recomputeStored ? 1 : 0;
            givenUpAfterFailures += request.recomputeStored && request.failedPrefetches > 0 ? 1 : 0;
        }
        retryBound.checkInvariants(givenUp, givenUpAfterFailures);
        if (prefetching != prefetches.active()) {
            throw new IllegalStateException("I5: " + prefetching + " requests prefetching but the count says " + prefetches.active());
        }
        if (prefetches.active() > settings.prefetchMaxRequests()) {
            throw new IllegalStateException("I5: " + prefetches.active() + " active prefetches exceed prefetchMaxRequests "
                    + settings.prefetchMaxRequests());
        }
        gpuBlocks.checkInvariants(heldBlocks);
        HeldStep.check(heldStep, stepPhase == StepPhase.SAVING, settings.saveTiming(), currentCompute != null || computeTicket != -1,
                requestIndex);
        if (running.size() + prefetches.active() > settings.maxNumSeqs()) {
            throw new IllegalStateException("running " + running.size() + " + prefetching " + prefetches.active()
                    + " > maxNumSeqs " + settings.maxNumSeqs());
        }
        for (Iterator<EngineRequest> it = waiting.iterator(); it.hasNext(); ) {
            EngineRequest request = it.next();
            if (request.phase != EngineRequest.Phase.WAITING) {
                throw new IllegalStateException("request " + request.spec.requestId() + " is queued but " + request.phase);
            }
        }
        for (int i = 0; currentCompute != null && i < currentCompute.items().size(); i++) {
            long itemRequestId = currentCompute.items().get(i).requestId();
            if (i >= stepBuffers.itemRequests.size() || stepBuffers.itemRequests.get(i) != requestIndex.get(itemRequestId)) {
                throw new IllegalStateException("step " + currentCompute.stepIndex() + ": item " + i + " of request "
                        + itemRequestId + " is not matched by the step's request list");
            }
        }
        store.checkInvariants();
    }
}
