package tierlab.model.serving;

import tierlab.model.KnownBug;
import tierlab.model.io.IoOp;
import tierlab.model.store.LookupResult;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * A vLLM-like serving engine over the tiered store: arrivals, admission under {@code maxNumSeqs}
 * and free GPU blocks ({@link VllmAdmission}), the prefetch window with parking, then per engine
 * step load → compute → save → finish ({@link StepEngine}), with recompute preemption when decode
 * runs out of GPU blocks.
 *
 * <p>Like the store it is a duty cycle: {@link #tick(long)} does whatever can be done now and
 * returns; nothing blocks. The engine step waits for its loads and its compute as state
 * ({@link StepPhase}), resumed by {@link #onCompletion}. Time is only ever a parameter.
 */
public final class EngineScheduler extends StepEngine {

    private final String kind;
    private final PrefetchWindow prefetches;
    private final VllmAdmission admission;
    private long preemptionCount;
    private final PrefetchRetryBound retryBound = new PrefetchRetryBound();
    /** With {@code saveTiming: in-step}: the step whose compute is done, waiting for its saves (null otherwise). */
    private HeldStep heldStep;
    /** Bumped whenever a request is put back at the front of the waiting queue (appends leave the front alone). */
    long waitingFrontEpoch;

    public EngineScheduler(SchedulerSettings settings, TieredStore store, DecisionTrace trace) {
        this(settings, store, trace, ServingEngines.VLLM, new GpuBlockPool(settings.gpuKvBlocks()));
    }

    /** The same step loop over another GPU block pool ({@code vllm-v1}: the prefix-caching one), registered as {@code kind}. */
    EngineScheduler(SchedulerSettings settings, TieredStore store, DecisionTrace trace, String kind, GpuBlockPool pool) {
        super(settings, store, trace, pool, false);
        this.kind = kind;
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
        this.admission = new VllmAdmission(this, prefetches);
    }

    /** Does everything that can be done now: store events, admission, and the next engine step. */
    public void tick(long nowNs) {
        handleStoreEvents(nowNs);
        if (stepPhase == StepPhase.SAVING && heldStep.mayEnd(requests.index(), store)) {
            endHeldStep(nowNs);
        }
        if (stepPhase == StepPhase.IDLE) {
            // The prefetch stop policy is applied at engine steps: overdue prefetches run with what arrived.
            admissionDirty |= prefetches.stopOverdue(nowNs);
            if (admissionDirty) {
                admissionDirty = false;
                admission.run(nowNs);
            }
            startStep(nowNs);
        }
        handleStoreEvents(nowNs);
    }

    // ------------------------------------------------------------------------------------------
    // Store events
    // ------------------------------------------------------------------------------------------

    @Override
    void onAcquireDone(EngineRequest request, boolean succeeded, long nowNs) {
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

    @Override
    void loadLanded(EngineRequest request, boolean succeeded, long nowNs) {
        if (succeeded) {
            gpuBlocks.cacheFullBlocks(request, blockTokens);
        } else {
            // Fall back to recompute: the lease goes, the tokens are computed.
            store.releaseLease(request.spec.requestId(), nowNs);
            request.hitReadFailed();
        }
    }

    @Override
    void onSaveStaged(long requestId, boolean cancelled, long nowNs) {
        if (cancelled) {
            // A save cancelled by a preemption finished copying: the old blocks are free once no cancelled
            // copy of this request reads them. It is not the current incarnation's save.
            if (!store.cancelledStagingInFlight(requestId)) {
                gpuBlocks.releaseHeld(requestId);
            }
            return;
        }
        EngineRequest request = requests.get(requestId);
        if (request != null && request.saveQueued) {
            request.saveStaged = true;
            maybeFinish(request, nowNs);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Admission
    // ------------------------------------------------------------------------------------------

    /** Recomputes every shortcut answer the slow way as well and throws IllegalStateException if they differ (for tests). */
    public void setCrossCheck(boolean check) {
        admission.setCrossCheck(check);
    }

    void admitRunning(EngineRequest request, LookupResult hit, long nowNs) {
        admission.leftQueue(request);
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

    @Override
    void startStepLoad(EngineRequest request, long nowNs) {
        if (store.hasLease(request.spec.requestId())) {
            startLoad(request, nowNs);
            return;
        }
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

    @Override
    boolean grow(EngineRequest request, long nowNs) {
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
        return prefetches.cancelNewest(requests.newestFirst(), nowNs);
    }

    /**
     * Recompute preemption: the request loses its GPU blocks and its lease and goes back to the
     * front of the queue. Its queued saves are cancelled so that none of them copies GPU blocks
     * the engine hands to someone else (R10); blocks under an in-flight staging copy are held
     * until the copy lands.
     */
    private void preempt(EngineRequest request, long nowNs) {
        resetForRecompute(request, nowNs);
        preemptionCount++;
        boolean copying = store.cancelSaves(request.spec.requestId(), nowNs);
        if (copying && !store.settings().has(KnownBug.R10_SAVE_AFTER_PREEMPT)) {
            gpuBlocks.holdForStaging(request.spec.requestId(), request.gpuBlocks);
        } else {
            gpuBlocks.release(request.gpuBlocks);
        }
        request.gpuBlocks.clear();
        clearProgress(request);
        waitingFrontEpoch++;
        waiting.addFirst(request);
        trace.record("preempt", request.spec.requestId());
    }

    /** Preempts a running request by id (a test or fault campaign asks); false if it is not running. */
    public boolean preempt(long requestId, long nowNs) {
        EngineRequest request = requests.get(requestId);
        if (request == null || request.phase != EngineRequest.Phase.RUNNING || request.loading || request.acquiring) {
            return false;
        }
        preempt(request, nowNs);
        return true;
    }

    @Override
    void finishCompute(long nowNs) {
        if (settings.saveTiming() == SaveTiming.IN_STEP) {
            holdStepForSaves(nowNs);
        } else {
            super.finishCompute(nowNs);
        }
    }

    @Override
    void prefillComputed(EngineRequest request, long nowNs) {
        gpuBlocks.cacheFullBlocks(request, blockTokens);
    }

    /** Prefill done: the new KV is saved. */
    @Override
    void prefillDone(EngineRequest request, long nowNs) {
        request.startSave(store, blockTokens, settings.offload(), nowNs);
    }

    /**
     * {@code saveTiming: in-step}: the compute is done and its prompts' saves are queued ({@link HeldStep#hold});
     * the step ends only once they are staged, which {@link #tick} asks after every event.
     */
    private void holdStepForSaves(long nowNs) {
        IoOp.Compute compute = takeCompute(StepPhase.SAVING);
        heldStep = HeldStep.hold(compute, requests.index(), gpuBlocks, store, settings.offload(), nowNs);
        computedPromptTokens += heldStep.promptTokensComputed();
        trace.record("step-saving", compute.stepIndex(), heldStep.savesPending(requests.index()));
        if (heldStep.mayEnd(requests.index(), store)) {
            endHeldStep(nowNs);
        }
    }

    /** The held step's saves are staged: its tokens come out now (first tokens included), and it ends. */
    private void endHeldStep(long nowNs) {
        HeldStep step = heldStep;
        heldStep = null;
        stepPhase = StepPhase.IDLE;
        admissionDirty = true;
        for (EngineRequest request : step.emitTokens(requests.index(), nowNs)) {
            maybeFinish(request, nowNs);
        }
        trace.record("step-done", step.stepIndex());
    }

    /** A request whose output is done leaves once its save is staged. */
    @Override
    boolean savesAllowFinish(EngineRequest request) {
        return request.saveQueued && request.saveStaged;
    }

    @Override
    void releaseFinishedBlocks(EngineRequest request) {
        gpuBlocks.release(request.gpuBlocks);
        request.gpuBlocks.clear();
    }

    // ------------------------------------------------------------------------------------------
    // Queries and invariants
    // ------------------------------------------------------------------------------------------

    @Override
    public String kind() {
        return kind;
    }

    public int activePrefetches() {
        return prefetches.active();
    }

    public long prefetchCalls() {
        return prefetches.calls();
    }

    public long deferrals() {
        return admission.deferrals();
    }

    /** Parked requests an admission pass passed over without a lookup (the witness or the skipped run said so). */
    public long parkedSkips() {
        return admission.parkedSkips();
    }

    /** Admission passes that passed over the whole parked run at the front of the queue at once. */
    public long runSkips() {
        return admission.runSkips();
    }

    public long preemptions() { return preemptionCount; }
    public long freeGpuBlockCount() { return gpuBlocks.freeCount(); }
    public long gpuBlocksEvicted() { return gpuBlocks.evictions(); }

    /** The bound on failed prefetches per request, after which it recomputes (settable for tests). */
    public PrefetchRetryBound retryBound() { return retryBound; }

    /**
     * I5 and the scheduler's own bookkeeping, then the store's invariants. Throws
     * IllegalStateException naming the broken rule.
     */
    public void checkInvariants() {
        int prefetching = 0;
        long heldBlocks = 0;
        long givenUp = 0;
        long givenUpAfterFailures = 0;
        for (EngineRequest request : requests.inIdOrder()) {
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
        HeldStep.check(heldStep, stepPhase == StepPhase.SAVING, settings.saveTiming(), computeInFlight(), requests.index());
        if (running.size() + prefetches.active() > settings.maxNumSeqs()) {
            throw new IllegalStateException("running " + running.size() + " + prefetching " + prefetches.active()
                    + " > maxNumSeqs " + settings.maxNumSeqs());
        }
        checkStepInvariants("");
        store.checkInvariants();
    }
}
