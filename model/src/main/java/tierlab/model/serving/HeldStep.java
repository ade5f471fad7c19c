package tierlab.model.serving;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import tierlab.model.io.IoOp;
import tierlab.model.store.TieredStore;
import tierlab.model.util.LongMap;

/**
 * An engine step under {@code saveTiming: in-step} whose compute is done but which has not ended:
 * vLLM's model runner calls the KV connector's {@code wait_for_save} as the forward context exits
 * (vLLM v1, {@code vllm/distributed/kv_transfer/kv_connector/v1/base.py}: "Block until all the save
 * operations is done ... before finishing the forward. This prevents overwrites of paged KV buffer
 * before saving done"), so the step's output, first tokens included, comes only after the copies out
 * of the GPU of the KV it computed. What the step waits for is therefore the staging copy GPU→L1 of
 * each prompt it completed ({@code SaveStaged}); the L2 write that follows is asynchronous, as in
 * offloading connectors. It remembers, per item of the step, what the step's end emits.
 */
final class HeldStep {

    /** What an item of the step emits when the step ends. */
    private enum Emit { NOTHING, FIRST_TOKEN, DECODE_TOKEN }

    private final IoOp.Compute compute;
    private final Emit[] emits;

    /** Prompt tokens the step computed, for the engine's count. */
    private long promptTokensComputed;

    /**
     * Applies a finished compute as a step that saves after itself does, but emits nothing: its prompt
     * tokens count as computed, their full blocks are cached, and the saves of the prompts it completed
     * are queued (nothing is saved without {@code offload}). Returns the step, held.
     */
    static HeldStep hold(IoOp.Compute compute, LongMap<EngineRequest> requests, GpuBlockPool gpuBlocks, TieredStore store,
                         boolean offload, long nowNs) {
        HeldStep step = new HeldStep(compute);
        int blockTokens = store.settings().geometry().blockTokens();
        List<IoOp.ComputeItem> items = compute.items();
        for (int i = 0; i < items.size(); i++) {
            IoOp.ComputeItem item = items.get(i);
            EngineRequest request = requests.get(item.requestId());
            if (request.phase != EngineRequest.Phase.RUNNING) {
                continue;
            }
            if (request.computedTokens >= request.spec.promptTokens()) {
                step.emits[i] = Emit.DECODE_TOKEN;
                continue;
            }
            request.computedTokens += item.newTokens();
            step.promptTokensComputed += item.newTokens();
            gpuBlocks.cacheFullBlocks(request, blockTokens);
            if (request.computedTokens == request.spec.promptTokens()) {
                request.startSave(store, blockTokens, offload, nowNs);
                step.emits[i] = Emit.FIRST_TOKEN;
            }
        }
        return step;
    }

    private HeldStep(IoOp.Compute compute) {
        this.compute = compute;
        this.emits = new Emit[compute.items().size()];
        Arrays.fill(emits, Emit.NOTHING);
    }

    long stepIndex() {
        return compute.stepIndex();
    }

    long promptTokensComputed() {
        return promptTokensComputed;
    }

    /**
     * The prompts this step completed whose saves are not staged yet. A request preempted meanwhile
     * (a fault campaign's preemption; the engine preempts only while building a step) waits for nothing:
     * its save was cancelled and it emits nothing.
     */
    int savesPending(LongMap<EngineRequest> requests) {
        int pending = 0;
        for (int i = 0; i < emits.length; i++) {
            if (emits[i] == Emit.FIRST_TOKEN) {
                EngineRequest request = requests.get(item(i).requestId());
                if (request.phase == EngineRequest.Phase.RUNNING && !request.saveStaged) {
                    pending++;
                }
            }
        }
        return pending;
    }

    /**
     * True once the step may end: every save it waits for is staged, or none of them can move on before
     * the step ends. A save waits in the store's queue for L1 space and for leases on its range; only
     * save work in flight (a staging copy landing, an L2 write freeing L1) moves it on meanwhile, since
     * the leases and the L1 the engine's running requests pin go only when they finish, after the step.
     * So with nothing of that in flight the step stops waiting and the stalled save goes on after it
     * (vLLM's offloading connectors do not start a store that finds no room; tierlab's queue keeps it),
     * which also keeps a held step from waiting on itself.
     */
    boolean mayEnd(LongMap<EngineRequest> requests, TieredStore store) {
        return savesPending(requests) == 0 || store.saveWorkInFlight() == 0;
    }

    /**
     * Ends the step at {@code nowNs}: each still-running item's token comes out (the first token of a
     * completed prompt, or a decoded one). Returns the step's running requests in item order, each to be
     * checked for finishing, as a step that saves after itself does.
     */
    List<EngineRequest> emitTokens(LongMap<EngineRequest> requests, long nowNs) {
        List<EngineRequest> running = new ArrayList<>(emits.length);
        for (int i = 0; i < emits.length; i++) {
            EngineRequest request = requests.get(item(i).requestId());
            if (request.phase != EngineRequest.Phase.RUNNING) {
                continue;
            }
            if (emits[i] == Emit.FIRST_TOKEN) {
                request.outputDone = 1;
                if (request.firstTokenNs < 0) {
                    request.firstTokenNs = nowNs;
                }
            } else if (emits[i] == Emit.DECODE_TOKEN) {
                request.outputDone++;
            }
            running.add(request);
        }
        return running;
    }

    /**
     * A step is held exactly while the engine's phase is {@code SAVING} ({@code saving}), only under
     * {@code in-step}, with no compute in flight; then the held step's own invariants.
     */
    static void check(HeldStep held, boolean saving, SaveTiming timing, boolean computeInFlight, LongMap<EngineRequest> requests) {
        if (saving != (held != null)) {
            throw new IllegalStateException("step phase " + (saving ? "SAVING" : "not SAVING") + " but "
                    + (held == null ? "no" : "a") + " step held for saves");
        }
        if (held == null) {
            return;
        }
        if (timing != SaveTiming.IN_STEP || computeInFlight) {
            throw new IllegalStateException("step " + held.stepIndex() + " held for saves with saveTiming "
                    + timing.settingName() + (computeInFlight ? " and a compute in flight" : ""));
        }
        held.checkInvariants(requests);
    }

    /**
     * While held: a running request that completed its prompt in this step has emitted nothing yet and
     * has its save queued; a decoding one has tokens left to emit.
     */
    private void checkInvariants(LongMap<EngineRequest> requests) {
        for (int i = 0; i < emits.length; i++) {
            EngineRequest request = requests.get(item(i).requestId());
            if (request == null || request.phase != EngineRequest.Phase.RUNNING) {
                continue;
            }
            if (emits[i] == Emit.FIRST_TOKEN && (request.outputDone != 0 || !request.saveQueued
                    || request.computedTokens != request.spec.promptTokens())) {
                throw new IllegalStateException("step " + stepIndex() + " held for saves: request " + request.spec.requestId()
                        + " completed its prompt in it but has output " + request.outputDone + ", save queued "
                        + request.saveQueued + ", computed " + request.computedTokens + " of " + request.spec.promptTokens());
            }
            if (emits[i] == Emit.DECODE_TOKEN && request.outputDone >= request.spec.outputTokens()) {
                throw new IllegalStateException("step " + stepIndex() + " held for saves: request " + request.spec.requestId()
                        + " decoded in it but already has all " + request.outputDone + " output tokens");
            }
        }
    }

    private IoOp.ComputeItem item(int i) {
        return compute.items().get(i);
    }
}
