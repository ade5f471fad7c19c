package tierlab.model.serving;

import java.util.List;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.store.TieredStore;

/**
 * The serving-engine port: what every runtime (sim, hybrid, live), the hunt, the experiment runner
 * and the test harnesses need from a serving engine over the tiered store. Runtimes hold this
 * type only, so a second engine (another scheduler, another serving system's model) is one class
 * plus one entry in {@link ServingEngines}; no runtime changes.
 *
 * <p>An engine is a duty cycle like the store: {@link #tick} does whatever can be done now and
 * returns; operations leave through {@link #drainOps} and come back through
 * {@link #onCompletion}. Time is only ever a {@code long nowNs} parameter, so the same engine runs
 * under a virtual or a wall clock.
 */
public interface ServingEngine {

    /** The registry name of this engine's kind: a crash restart creates the same kind through it. */
    String kind();

    /** A request arrives now. */
    void submit(RequestSpec spec, long nowNs);

    /** Routes a completion: the engine's own (compute) tickets to itself, everything else to the store. */
    void onCompletion(IoCompletion completion, long nowNs);

    /** Does everything that can be done now. */
    void tick(long nowNs);

    /** Operations to perform now: the store's and the engine's own (compute steps). */
    List<IoOp> drainOps();

    /** Preempts a running request by id (a test or fault campaign asks); false if it cannot be now. */
    boolean preempt(long requestId, long nowNs);

    SchedulerSettings settings();

    TieredStore store();

    /** Requests submitted but not finished, in id order: what a restarted engine must serve again. */
    List<RequestSpec> unfinished();

    List<RequestOutcome> finished();

    /** How many requests have finished, without copying them (a closed-loop client asks after every event). */
    int finishedCount();

    /** Finished request ids in finishing order. */
    List<Long> finishedIds();

    boolean allFinished();

    int runningCount();

    int waitingCount();

    /** Prefetches in flight now (0 for an engine without a prefetch window). */
    int activePrefetches();

    long freeGpuBlockCount();

    /** Cumulative: prefetches started. */
    long prefetchCalls();

    /** Cumulative: times a request was parked by the prefetch bound. */
    long deferrals();

    /** Cumulative: recompute preemptions. */
    long preemptions();

    /** Cumulative: prompt tokens the engine computed (rather than loaded). */
    long computedPromptTokens();

    /** Cumulative: cached GPU blocks whose KV was dropped to reuse the block (0 for an engine without a GPU prefix cache). */
    default long gpuBlocksEvicted() {
        return 0;
    }

    /**
     * Cumulative: prompt tokens of store hits recomputed because a prefetch stopped being waited for
     * ({@link SchedulerSettings#prefetchStop()}); 0 for an engine that always waits.
     */
    default long prefetchTimeoutTokens() {
        return 0;
    }

    /** The engine's own invariants, then the store's; throws IllegalStateException naming the broken rule. */
    /**
     * Leading blocks of {@code chain} whose KV this engine's GPU cache holds now (0 for an engine
     * without a prefix cache): what a fleet's router sees of the instance's GPU. Changes nothing.
     */
    int gpuCachedPrefixBlocks(List<tierlab.model.geometry.BlockKey> chain);

    /** Prompt tokens of the waiting and running requests not computed yet: a router's prefill load. */
    long pendingPrefillTokens();

    void checkInvariants();
}
