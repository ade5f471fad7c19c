package tierlab.model.serving;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Predicate;
import tierlab.model.io.IoOp;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.LongMap;

/**
 * The requests a serving engine was given (every engine): by id in id order (iterated for crash recovery
 * and invariants), by id for look-ups (never iterated, so its hash order decides nothing), and the
 * finished ones in finishing order; plus the step pieces {@link StepEngine} builds its steps from (step
 * items, loads of a store hit, a new step's compute).
 */
final class EngineRequests {
    private final TreeMap<Long, EngineRequest> byId = new TreeMap<>();
    private final LongMap<EngineRequest> index = new LongMap<>();
    private final List<RequestOutcome> finished = new ArrayList<>();

    /**
     * Records a new request, refusing a repeated id, a chain shorter than the prompt's full blocks and a
     * request whose prompt and output need more GPU blocks than there are.
     */
    EngineRequest add(RequestSpec spec, int blockTokens, long gpuKvBlocks) {
        if (byId.containsKey(spec.requestId())) {
            throw new IllegalArgumentException("request " + spec.requestId() + " submitted twice");
        }
        EngineRequest.checkChainCoversPrompt(spec, blockTokens);
        long blocksNeeded = Math.ceilDiv(spec.promptTokens() + spec.outputTokens(), blockTokens);
        if (blocksNeeded > gpuKvBlocks) {
            throw new IllegalArgumentException("request " + spec.requestId() + " needs " + blocksNeeded
                    + " GPU blocks but gpuKvBlocks is " + gpuKvBlocks);
        }
        EngineRequest request = new EngineRequest(spec);
        byId.put(spec.requestId(), request);
        index.put(spec.requestId(), request);
        return request;
    }

    /** The request of {@code requestId}, or null. */
    EngineRequest get(long requestId) {
        return index.get(requestId);
    }

    Collection<EngineRequest> inIdOrder() {
        return byId.values();
    }

    /** The requests newest (highest id) first: the vLLM engine cancels the newest prefetch. */
    Collection<EngineRequest> newestFirst() {
        return byId.descendingMap().values();
    }

    /** The look-up by id itself, for the pieces that take one ({@link HeldStep}). */
    LongMap<EngineRequest> index() {
        return index;
    }

    void finish(RequestOutcome outcome) {
        finished.add(outcome);
    }

    List<RequestOutcome> finished() {
        return List.copyOf(finished);
    }

    int finishedCount() {
        return finished.size();
    }

    List<Long> finishedIds() {
        return finished.stream().map(RequestOutcome::requestId).toList();
    }

    boolean allFinished() {
        return finished.size() == byId.size();
    }

    /** Requests submitted but not finished, in id order: what a restarted engine must serve again. */
    List<RequestSpec> unfinished() {
        List<RequestSpec> specs = new ArrayList<>();
        for (EngineRequest request : byId.values()) {
            if (request.phase != EngineRequest.Phase.FINISHED) {
                specs.add(request.spec);
            }
        }
        return specs;
    }

    /** The store's operations, then the engine's own (which are taken: {@code ownOps} is left empty). */
    static List<IoOp> drain(List<IoOp> storeOps, List<IoOp> ownOps) {
        if (ownOps.isEmpty()) {
            // Asked after every event: the store's list serves as it is.
            return storeOps;
        }
        List<IoOp> ops = new ArrayList<>(storeOps.size() + ownOps.size());
        ops.addAll(storeOps);
        ops.addAll(ownOps);
        ownOps.clear();
        return ops;
    }

    /**
     * Starts the load of a request's store hit into its GPU blocks beyond the GPU prefix. When the store
     * does not start it (or, with {@code leaseRequired}, the request holds no lease any more), the request
     * computes those tokens instead: its lease goes back and it leaves the step's loads.
     */
    static void startLoad(EngineRequest request, TieredStore store, List<EngineRequest> stepLoads, boolean leaseRequired,
                          long nowNs) {
        long requestId = request.spec.requestId();
        int firstBlock = request.hit.startBlock();
        List<Long> targets = new ArrayList<>(request.gpuBlocks.subList(firstBlock, firstBlock + request.hit.hitBlocks()));
        if ((!leaseRequired || store.hasLease(requestId))
                && store.load(requestId, targets, nowNs) == TieredStore.LoadOutcome.STARTED) {
            request.loading = true;
            request.loadsWaited++;
        } else {
            request.needsLoad = false;
            request.admittedHitTokens = 0;
            store.releaseLease(requestId, nowNs);
            stepLoads.remove(request);
        }
    }

    /** A step's forward pass over {@code items} (not empty): a new ticket, queued with the engine's own operations, traced. */
    static IoOp.Compute newStep(TieredStore store, long stepIndex, List<IoOp.ComputeItem> items, List<IoOp> ownOps,
                                DecisionTrace trace) {
        IoOp.Compute compute = new IoOp.Compute(store.newTicket(), stepIndex, items);
        ownOps.add(compute);
        trace.record("step", compute.stepIndex(), items.size(), compute.newTokens());
        return compute;
    }

    /**
     * The lists one engine's steps reuse instead of allocating: a step of a loaded engine has dozens of
     * items, and the lists around them were most of what a replay allocated.
     */
    static final class StepBuffers {
        /** The running list as the step started (growing a request may preempt another, which leaves it). */
        private final List<EngineRequest> runningAtStart = new ArrayList<>();
        private final List<IoOp.ComputeItem> items = new ArrayList<>();
        /** The request of each item, in item order: the step's end reaches them without a look-up by id. */
        final List<EngineRequest> itemRequests = new ArrayList<>();
    }

    /**
     * One engine step's items under a token budget: first one decode token for every running request past
     * its prefill (a request whose KV fills its blocks gets one more from {@code grow}, or skips this step
     * when it says no), then prefill chunks in running order for the requests not waiting for a load.
     * The list returned is {@code buffers}' own, valid until the next call with them (an {@link IoOp.Compute}
     * copies it); {@code buffers.itemRequests} then holds each item's request.
     */
    static List<IoOp.ComputeItem> stepItems(List<EngineRequest> running, long maxBatchedTokens, int blockTokens,
                                            Predicate<EngineRequest> grow, StepBuffers buffers) {
        List<IoOp.ComputeItem> items = buffers.items;
        List<EngineRequest> itemRequests = buffers.itemRequests;
        List<EngineRequest> runningAtStart = buffers.runningAtStart;
        items.clear();
        itemRequests.clear();
        runningAtStart.clear();
        runningAtStart.addAll(running);
        long budget = maxBatchedTokens;
        for (int i = 0; i < runningAtStart.size(); i++) {
            EngineRequest request = runningAtStart.get(i);
            if (request.computedTokens < request.promptTokens || request.phase != EngineRequest.Phase.RUNNING
                    || request.outputDone >= request.outputTokens || budget == 0) {
                continue;
            }
            long kvTokens = request.promptTokens + request.outputDone;
            if (kvTokens + 1 > (long) request.gpuBlocks.size() * blockTokens && !grow.test(request)) {
                continue;
            }
            items.add(new IoOp.ComputeItem(request.requestId, 1, kvTokens, List.of()));
            itemRequests.add(request);
            budget--;
        }
        runningAtStart.clear();
        for (int i = 0; i < running.size() && budget != 0; i++) {
            EngineRequest request = running.get(i);
            if (request.phase != EngineRequest.Phase.RUNNING || request.needsLoad
                    || request.computedTokens >= request.promptTokens) {
                continue;
            }
            long chunk = Math.min(budget, request.promptTokens - request.computedTokens);
            items.add(request.prefillItem(chunk, blockTokens));
            itemRequests.add(request);
            budget -= chunk;
        }
        return items;
    }
}
