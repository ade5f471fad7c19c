package tierlab.model.serving;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.store.LookupResult;
import tierlab.model.store.StoreEvent;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * The simplest real serving engine over the tiered store: one request at a time, first come first
 * served, no prefetch window and no preemption. A request looks its prefix up, loads the hit (an
 * L2 part is promoted first), computes the rest of its prompt in chunks of {@code maxBatchedTokens},
 * saves its full blocks, then decodes one token per step, and finishes once its save is staged.
 *
 * <p>It is the second entry of {@link ServingEngines}: the runtimes run it without a change, which
 * is the point (a baseline without batching, and the proof that an engine is one class).
 */
public final class SerialEngine implements ServingEngine {

    private enum Stage { NONE, ACQUIRING, LOADING, COMPUTING, SAVING }

    private final SchedulerSettings settings;
    private final TieredStore store;
    private final DecisionTrace trace;
    private final int blockTokens;
    private final GpuBlockPool gpuBlocks;
    private final EngineRequests requests = new EngineRequests();
    private final ArrayDeque<EngineRequest> waiting = new ArrayDeque<>();
    private final List<IoOp> ownOps = new ArrayList<>();
    /** The one request being served (null: none). */
    private EngineRequest current;
    private Stage stage = Stage.NONE;
    private long computeTicket = -1;
    private IoOp.Compute currentCompute;
    private long stepIndex;
    private long computedPromptTokens;

    public SerialEngine(SchedulerSettings settings, TieredStore store, DecisionTrace trace) {
        this.settings = settings;
        this.store = store;
        this.trace = trace;
        this.blockTokens = store.settings().geometry().blockTokens();
        this.gpuBlocks = new GpuBlockPool(settings.gpuKvBlocks());
    }

    @Override
    public String kind() {
        return ServingEngines.SERIAL;
    }

    @Override
    public void submit(RequestSpec spec, long nowNs) {
        waiting.addLast(requests.add(spec, blockTokens, settings.gpuKvBlocks()));
        trace.record("arrive", spec.requestId(), spec.promptTokens(), spec.outputTokens());
    }

    @Override
    public void onCompletion(IoCompletion completion, long nowNs) {
        if (completion.ticket() == computeTicket) {
            finishStep(nowNs);
        } else {
            store.onCompletion(completion, nowNs);
        }
        handleStoreEvents(nowNs);
    }

    @Override
    public void tick(long nowNs) {
        handleStoreEvents(nowNs);
        if (current == null && !waiting.isEmpty()) {
            start(waiting.pollFirst(), nowNs);
        }
        handleStoreEvents(nowNs);
    }

    @Override
    public List<IoOp> drainOps() {
        return EngineRequests.drain(store.drainOps(), ownOps);
    }

    // ------------------------------------------------------------------------------------------

    /** Takes the request's GPU blocks, looks its prefix up, and loads the hit or computes at once. */
    private void start(EngineRequest request, long nowNs) {
        current = request;
        request.phase = EngineRequest.Phase.RUNNING;
        request.admittedNs = nowNs;
        gpuBlocks.fillTo(request.gpuBlocks,
                Math.ceilDiv(request.spec.promptTokens() + request.spec.outputTokens(), blockTokens));
        LookupResult hit = settings.offload() ? store.lookup(request.spec.requestId(), request.spec.chain(), 0,
                request.spec.promptTokens(), nowNs) : null;
        request.hit = hit;
        request.recordAdmission(hit);
        trace.record("admit", request.spec.requestId(), request.admittedClass.ordinal(), request.admittedHitTokens);
        if (hit == null || !hit.isHit() || hit.leaseStatus() == LookupResult.LeaseStatus.ADMISSION_WAIT) {
            recompute(request, nowNs);
        } else if (store.hasLease(request.spec.requestId())) {
            load(request, nowNs);
        } else {
            switch (store.acquire(request.spec.requestId(), hit, nowNs)) {
                case READY -> load(request, nowNs);
                case PROMOTING -> stage = Stage.ACQUIRING;
                case ADMISSION_WAIT, NOTHING_TO_ACQUIRE -> recompute(request, nowNs);
            }
        }
    }

    private void load(EngineRequest request, long nowNs) {
        int firstBlock = request.hit.startBlock();
        List<Long> targets = new ArrayList<>(request.gpuBlocks.subList(firstBlock, firstBlock + request.hit.hitBlocks()));
        if (store.load(request.spec.requestId(), targets, nowNs) == TieredStore.LoadOutcome.STARTED) {
            stage = Stage.LOADING;
            request.loadsWaited++;
        } else {
            recompute(request, nowNs);
        }
    }

    /** No load (or a failed one): the lease goes and every prompt token is computed. */
    private void recompute(EngineRequest request, long nowNs) {
        store.releaseLease(request.spec.requestId(), nowNs);
        request.admittedHitTokens = 0;
        nextStep(request);
    }

    private void handleStoreEvents(long nowNs) {
        List<StoreEvent> events = store.drainEvents();
        for (int i = 0; i < events.size(); i++) {
            StoreEvent event = events.get(i);
            EngineRequest request = requests.get(event.requestId());
            if (request == null || request != current) {
                continue;
            }
            switch (event) {
                case StoreEvent.AcquireDone done when stage == Stage.ACQUIRING -> {
                    if (done.succeeded()) {
                        load(request, nowNs);
                    } else {
                        // Its L2 reads failed: the hit is computed instead, and counted as a failed read.
                        request.hitReadFailed();
                        recompute(request, nowNs);
                    }
                }
                case StoreEvent.LoadDone done when stage == Stage.LOADING -> {
                    trace.record("loaded", request.spec.requestId(), done.succeeded() ? 1 : 0);
                    if (done.succeeded()) {
                        request.computedTokens = request.hit.computedTokens() + request.hit.hitTokens();
                        nextStep(request);
                    } else {
                        request.hitReadFailed();
                        recompute(request, nowNs);
                    }
                }
                case StoreEvent.SaveStaged staged when !staged.cancelled() && request.saveQueued -> {
                    // May land while the request still decodes: it finishes once both are done.
                    request.saveStaged = true;
                    maybeFinish(request, nowNs);
                }
                default -> {
                    // An event of a stage this request has left (or a cancelled save): nothing waits for it.
                }
            }
        }
    }

    /** Emits the next step of the current request: a prefill chunk, or one decode token. */
    private void nextStep(EngineRequest request) {
        IoOp.ComputeItem item;
        if (request.computedTokens < request.spec.promptTokens()) {
            item = request.prefillItem(Math.min(settings.maxBatchedTokens(),
                    request.spec.promptTokens() - request.computedTokens), blockTokens);
        } else {
            item = new IoOp.ComputeItem(request.spec.requestId(), 1, request.spec.promptTokens() + request.outputDone, List.of());
        }
        computeTicket = store.newTicket();
        currentCompute = new IoOp.Compute(computeTicket, stepIndex++, List.of(item));
        ownOps.add(currentCompute);
        stage = Stage.COMPUTING;
        trace.record("step", currentCompute.stepIndex(), 1, item.newTokens());
    }

    private void finishStep(long nowNs) {
        EngineRequest request = current;
        IoOp.ComputeItem item = currentCompute.items().getFirst();
        trace.record("step-done", currentCompute.stepIndex());
        computeTicket = -1;
        currentCompute = null;
        if (request.computedTokens < request.spec.promptTokens()) {
            request.computedTokens += item.newTokens();
            computedPromptTokens += item.newTokens();
            if (request.computedTokens == request.spec.promptTokens()) {
                // Prefill done: the first output token exists now, and the new KV is saved.
                request.outputDone = 1;
                request.firstTokenNs = nowNs;
                request.startSave(store, blockTokens, settings.offload(), nowNs);
            }
        } else {
            request.outputDone++;
        }
        if (request.outputDone < request.spec.outputTokens()) {
            nextStep(request);
        } else {
            stage = Stage.SAVING;
            maybeFinish(request, nowNs);
        }
    }

    private void maybeFinish(EngineRequest request, long nowNs) {
        if (stage != Stage.SAVING || !request.saveStaged) {
            return;
        }
        request.phase = EngineRequest.Phase.FINISHED;
        store.releaseLease(request.spec.requestId(), nowNs);
        gpuBlocks.release(request.gpuBlocks);
        request.gpuBlocks.clear();
        // A serial request is never deferred, preempted or prefetched: those fields stay 0 and false.
        requests.finish(request.outcome(nowNs));
        trace.record("finish", request.spec.requestId(), nowNs);
        current = null;
        stage = Stage.NONE;
    }

    // ------------------------------------------------------------------------------------------
    // Queries and invariants
    // ------------------------------------------------------------------------------------------

    /** Never: a serial engine holds the blocks its one request needs from start to finish. */
    @Override
    public boolean preempt(long requestId, long nowNs) {
        return false;
    }

    @Override public SchedulerSettings settings() { return settings; }
    @Override public TieredStore store() { return store; }
    @Override public List<RequestOutcome> finished() { return requests.finished(); }
    @Override public int finishedCount() { return requests.finishedCount(); }
    @Override public List<RequestSpec> unfinished() { return requests.unfinished(); }
    @Override public List<Long> finishedIds() { return requests.finishedIds(); }
    @Override public boolean allFinished() { return requests.allFinished(); }
    @Override public int runningCount() { return current == null ? 0 : 1; }

    @Override
    public int gpuCachedPrefixBlocks(List<tierlab.model.geometry.BlockKey> chain) {
        return gpuBlocks.cachedPrefixBlocks(chain);
    }

    @Override
    public long pendingPrefillTokens() {
        long tokens = current == null ? 0 : Math.max(0, current.promptTokens - current.computedTokens);
        for (EngineRequest request : waiting) {
            tokens += request.promptTokens - request.computedTokens;
        }
        return tokens;
    }
    @Override public int waitingCount() { return waiting.size(); }
    @Override public int activePrefetches() { return 0; }
    @Override public long freeGpuBlockCount() { return gpuBlocks.freeCount(); }
    @Override public long prefetchCalls() { return 0; }
    @Override public long deferrals() { return 0; }
    @Override public long preemptions() { return 0; }
    @Override public long computedPromptTokens() { return computedPromptTokens; }

    /** One request at most is served, only it holds GPU blocks, and every queued request waits; then the store's. */
    @Override
    public void checkInvariants() {
        long held = 0;
        for (EngineRequest request : requests.inIdOrder()) {
            held += request.gpuBlocks.size();
            if (request.phase == EngineRequest.Phase.RUNNING && request != current) {
                throw new IllegalStateException("serial: request " + request.spec.requestId() + " runs beside "
                        + (current == null ? "none" : current.spec.requestId()));
            }
            if (request != current && !request.gpuBlocks.isEmpty()) {
                throw new IllegalStateException("serial: request " + request.spec.requestId() + " holds GPU blocks but is not served");
            }
        }
        gpuBlocks.checkInvariants(held);
        if ((current == null) != (stage == Stage.NONE)) {
            throw new IllegalStateException("serial: stage " + stage + " with " + (current == null ? "no" : "a") + " current request");
        }
        for (EngineRequest request : waiting) {
            if (request.phase != EngineRequest.Phase.WAITING) {
                throw new IllegalStateException("request " + request.spec.requestId() + " is queued but " + request.phase);
            }
        }
        store.checkInvariants();
    }
}
