package tierlab.model.serving;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.store.StoreEvent;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * The batching step loop that {@link EngineScheduler} (vLLM) and {@link SglangEngine} share: requests
 * wait in a queue, an admission pass moves some to the running list, and each engine step loads the
 * store hits its running requests were admitted with, computes one batch (decode first, then prefill
 * chunks), and finishes the requests whose last token it produced. What an engine decides differently
 * is left to it: admission, where a store hit's missing part comes from before the load, how a
 * request grows its KV when no block is free, what a computed prefill caches and saves, and what a
 * finishing request gives back.
 *
 * <p>A duty cycle like the store: {@link #tick} does what can be done now and returns; the step waits
 * for its loads and its compute as state ({@link StepPhase}), resumed by {@link #onCompletion}. Time
 * is only ever a parameter.
 */
public abstract sealed class StepEngine implements ServingEngine permits EngineScheduler, SglangEngine {

    /**
     * Where the engine's current step is. {@code SAVING} only in the vLLM engine with
     * {@code saveTiming: in-step}: the compute is done and the step waits for its saves to be staged.
     */
    public enum StepPhase { IDLE, LOADING, COMPUTING, SAVING }

    final SchedulerSettings settings;
    final TieredStore store;
    final DecisionTrace trace;
    final int blockTokens;
    final GpuBlockPool gpuBlocks;
    final EngineRequests requests = new EngineRequests();
    final ArrayDeque<EngineRequest> waiting = new ArrayDeque<>();
    final List<EngineRequest> running = new ArrayList<>();
    /** The running requests whose loads the current step waits for. */
    final List<EngineRequest> stepLoads = new ArrayList<>();
    private final List<IoOp> ownOps = new ArrayList<>();
    /** Whether a step's load goes ahead only while the request still holds its lease. */
    private final boolean loadNeedsLease;

    StepPhase stepPhase = StepPhase.IDLE;
    /**
     * Something that can let a waiting request in has happened since the last admission pass (an
     * arrival, a finished step, a store event, a preemption). Without it a pass would only repeat
     * the last one's lookups, on every I/O completion.
     */
    boolean admissionDirty = true;
    /** Requests appended to the back of the waiting queue so far (arrivals and re-queued ones). */
    long waitingAppends;
    private long computeTicket = -1;
    IoOp.Compute currentCompute;
    /** Reused by every step; its {@code itemRequests} are the requests of {@link #currentCompute}'s items. */
    final EngineRequests.StepBuffers stepBuffers = new EngineRequests.StepBuffers();
    private long stepIndex;
    long computedPromptTokens;

    StepEngine(SchedulerSettings settings, TieredStore store, DecisionTrace trace, GpuBlockPool gpuBlocks,
               boolean loadNeedsLease) {
        this.settings = settings;
        this.store = store;
        this.trace = trace;
        this.blockTokens = store.settings().geometry().blockTokens();
        this.gpuBlocks = gpuBlocks;
        this.loadNeedsLease = loadNeedsLease;
    }

    // ------------------------------------------------------------------------------------------
    // What each engine decides
    // ------------------------------------------------------------------------------------------

    /** A store event: the acquire (promotion of a hit's L2 part) of {@code request} (null: unknown) ended. */
    abstract void onAcquireDone(EngineRequest request, boolean succeeded, long nowNs);

    /** A store event: a save of {@code requestId} was staged ({@code cancelled}: a cancelled one's copy landed). */
    abstract void onSaveStaged(long requestId, boolean cancelled, long nowNs);

    /**
     * A load of the step ended: with success the request's KV covers its hit ({@code computedTokens} is
     * set already); without, its hit is computed instead.
     */
    abstract void loadLanded(EngineRequest request, boolean succeeded, long nowNs);

    /** The current step starts the load of {@code request}'s hit (one of {@link #stepLoads}). */
    abstract void startStepLoad(EngineRequest request, long nowNs);

    /**
     * A decoding request's KV fills its blocks: one more block for it, else what the engine does instead
     * (preempting others or itself); false when it skips this step's decode.
     */
    abstract boolean grow(EngineRequest request, long nowNs);

    /** The step computed a chunk of the request's prompt ({@code computedTokens} counts it already). */
    abstract void prefillComputed(EngineRequest request, long nowNs);

    /** The step computed the last token of the request's prompt: its first output token exists now. */
    void prefillDone(EngineRequest request, long nowNs) {
    }

    /** Whether a request whose output is done may leave now (the vLLM engine waits for its save). */
    boolean savesAllowFinish(EngineRequest request) {
        return true;
    }

    /** A finishing request's GPU blocks go (to the free pool, or stay cached where the engine caches them). */
    abstract void releaseFinishedBlocks(EngineRequest request);

    /** After a completion was handled, before the store's events are (the SGLang engine stops overdue prefetches). */
    void afterCompletion(long nowNs) {
    }

    // ------------------------------------------------------------------------------------------
    // Arrivals, completions, store events
    // ------------------------------------------------------------------------------------------

    @Override
    public void submit(RequestSpec spec, long nowNs) {
        appendWaiting(requests.add(spec, blockTokens, settings.gpuKvBlocks()));
        admissionDirty = true;
        trace.record("arrive", spec.requestId(), spec.promptTokens(), spec.outputTokens());
    }

    final void appendWaiting(EngineRequest request) {
        waiting.addLast(request);
        waitingAppends++;
    }

    @Override
    public void onCompletion(IoCompletion completion, long nowNs) {
        if (completion.ticket() == computeTicket) {
            finishCompute(nowNs);
        } else {
            store.onCompletion(completion, nowNs);
        }
        afterCompletion(nowNs);
        handleStoreEvents(nowNs);
    }

    @Override
    public List<IoOp> drainOps() {
        return EngineRequests.drain(store.drainOps(), ownOps);
    }

    final void handleStoreEvents(long nowNs) {
        List<StoreEvent> events = store.drainEvents();
        // Indexed: runs after every completion, and an iterator per call is garbage for nothing.
        for (int i = 0; i < events.size(); i++) {
            StoreEvent event = events.get(i);
            admissionDirty = true;
            EngineRequest request = requests.get(event.requestId());
            switch (event) {
                case StoreEvent.AcquireDone done -> onAcquireDone(request, done.succeeded(), nowNs);
                case StoreEvent.LoadDone done -> onLoadDone(request, done.succeeded(), nowNs);
                case StoreEvent.SaveStaged staged -> onSaveStaged(event.requestId(), staged.cancelled(), nowNs);
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
        }
        loadLanded(request, succeeded, nowNs);
        trace.record("loaded", request.spec.requestId(), succeeded ? 1 : 0, request.computedTokens);
        stepLoads.remove(request);
        maybeCompute(nowNs);
    }

    // ------------------------------------------------------------------------------------------
    // The engine step
    // ------------------------------------------------------------------------------------------

    /** A new step: the loads its running requests wait for start, and once they have landed, the compute. */
    final void startStep(long nowNs) {
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
            startStepLoad(request, nowNs);
        }
        maybeCompute(nowNs);
    }

    /** Starts the load of the request's store hit into its GPU blocks beyond its GPU prefix. */
    final void startLoad(EngineRequest request, long nowNs) {
        EngineRequests.startLoad(request, store, stepLoads, loadNeedsLease, nowNs);
    }

    /** Once every load of the step has landed, run the forward pass over the batch. */
    final void maybeCompute(long nowNs) {
        if (stepPhase != StepPhase.LOADING || !stepLoads.isEmpty()) {
            return;
        }
        // Decode first: one token each, growing the KV by a block when needed.
        List<IoOp.ComputeItem> items = EngineRequests.stepItems(running, settings.maxBatchedTokens(), blockTokens,
                request -> grow(request, nowNs), stepBuffers);
        if (items.isEmpty()) {
            stepPhase = StepPhase.IDLE;
            return;
        }
        currentCompute = EngineRequests.newStep(store, stepIndex++, items, ownOps, trace);
        computeTicket = currentCompute.ticket();
        stepPhase = StepPhase.COMPUTING;
    }

    /** The step's compute completed: its tokens come out, and the requests it finished leave. */
    void finishCompute(long nowNs) {
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
                prefillComputed(request, nowNs);
                if (request.computedTokens == request.promptTokens) {
                    request.outputDone = 1;
                    if (request.firstTokenNs < 0) {
                        request.firstTokenNs = nowNs;
                    }
                    prefillDone(request, nowNs);
                }
            } else {
                request.outputDone++;
            }
            maybeFinish(request, nowNs);
        }
        trace.record("step-done", compute.stepIndex());
    }

    /** The step's compute completed: takes it from the engine and moves to {@code next}; admission looks again. */
    final IoOp.Compute takeCompute(StepPhase next) {
        admissionDirty = true;
        IoOp.Compute compute = currentCompute;
        currentCompute = null;
        computeTicket = -1;
        stepPhase = next;
        return compute;
    }

    final boolean computeInFlight() {
        return currentCompute != null || computeTicket != -1;
    }

    final void maybeFinish(EngineRequest request, long nowNs) {
        if (request.phase != EngineRequest.Phase.RUNNING || request.outputDone < request.outputTokens
                || !savesAllowFinish(request)) {
            return;
        }
        running.remove(request);
        request.phase = EngineRequest.Phase.FINISHED;
        store.releaseLease(request.requestId, nowNs);
        releaseFinishedBlocks(request);
        requests.finish(request.outcome(nowNs));
        trace.record("finish", request.requestId, nowNs);
    }

    /**
     * A running request is sent back to be recomputed: it leaves the running list and the step's loads,
     * its lease goes, and its progress is reset. The engine frees its blocks and re-queues it.
     */
    final void resetForRecompute(EngineRequest request, long nowNs) {
        admissionDirty = true;
        running.remove(request);
        stepLoads.remove(request);
        request.preemptions++;
        store.releaseLease(request.spec.requestId(), nowNs);
    }

    /** The second half of {@link #resetForRecompute}, once the engine has dealt with the request's blocks. */
    static void clearProgress(EngineRequest request) {
        request.computedTokens = 0;
        request.outputDone = 0;
        request.hit = null;
        request.needsLoad = false;
        request.loading = false;
        request.acquiring = false;
        request.saveQueued = false;
        request.saveStaged = false;
        request.phase = EngineRequest.Phase.WAITING;
    }

    // ------------------------------------------------------------------------------------------
    // Queries and invariants
    // ------------------------------------------------------------------------------------------

    public StepPhase stepPhase() { return stepPhase; }
    @Override public SchedulerSettings settings() { return settings; }
    @Override public TieredStore store() { return store; }
    @Override public List<RequestOutcome> finished() { return requests.finished(); }
    @Override public int finishedCount() { return requests.finishedCount(); }
    @Override public boolean allFinished() { return requests.allFinished(); }
    @Override public List<RequestSpec> unfinished() { return requests.unfinished(); }
    @Override public List<Long> finishedIds() { return requests.finishedIds(); }
    @Override public int runningCount() { return running.size(); }

    @Override
    public int gpuCachedPrefixBlocks(List<tierlab.model.geometry.BlockKey> chain) {
        return gpuBlocks.cachedPrefixBlocks(chain);
    }

    @Override
    public long pendingPrefillTokens() {
        long tokens = 0;
        for (EngineRequest request : waiting) {
            tokens += request.promptTokens - request.computedTokens;
        }
        for (EngineRequest request : running) {
            tokens += Math.max(0, request.promptTokens - request.computedTokens);
        }
        return tokens;
    }
    @Override public int waitingCount() { return waiting.size(); }
    @Override public long computedPromptTokens() { return computedPromptTokens; }

    /**
     * The rules every step engine keeps: every queued request is waiting, and the current step's
     * request list matches its items. {@code rule} prefixes the message (the engine's rule name).
     */
    final void checkStepInvariants(String rule) {
        for (EngineRequest request : waiting) {
            if (request.phase != EngineRequest.Phase.WAITING) {
                throw new IllegalStateException(rule + "request " + request.spec.requestId() + " is queued but "
                        + request.phase);
            }
        }
        for (int i = 0; currentCompute != null && i < currentCompute.items().size(); i++) {
            long itemRequestId = currentCompute.items().get(i).requestId();
            if (i >= stepBuffers.itemRequests.size() || stepBuffers.itemRequests.get(i) != requests.get(itemRequestId)) {
                throw new IllegalStateException("step " + currentCompute.stepIndex() + ": item " + i + " of request "
                        + itemRequestId + " is not matched by the step's request list");
            }
        }
    }
}
