package tierlab.model.request;

import tierlab.model.store.LookupResult.HitClass;

/**
 * What happened to one finished request; the metrics layer aggregates these. Where its prompt's KV came
 * from (at the admission that served it): {@code gpuCachedTokens + l1Tokens + l2Tokens +
 * recomputedTokens() == promptTokens}.
 *
 * @param hitClass        classification of the store lookup that admitted it
 * @param hitTokens       prompt tokens loaded from the store (L1 or L2) instead of computed
 * @param deferrals       times it was parked by the prefetch bound
 * @param preemptions     times the engine preempted it
 * @param gpuCachedTokens prompt tokens served by the engine's GPU prefix cache (0 for an engine without one)
 * @param l1Tokens        of {@code hitTokens}, those whose KV was in L1 at the lookup
 * @param l2Tokens        of {@code hitTokens}, those read from L2
 * @param loadsWaited     store loads and prefetches the request waited for, over all its admissions
 * @param prefetchTimeoutTokens of {@code recomputedTokens()}, store hit tokens recomputed because the engine
 *                        stopped waiting for their prefetch (a prefetch stop policy)
 * @param failedReadTokens of {@code recomputedTokens()}, store hit tokens recomputed because reading them
 *                        failed (an L2 read, or their load to the GPU)
 */
public record RequestOutcome(long requestId, long arrivalNs, long admittedNs, long firstTokenNs, long finishNs,
                             long promptTokens, long outputTokens, HitClass hitClass, long hitTokens,
                             int deferrals, int preemptions, boolean prefetched, long gpuCachedTokens, long l1Tokens,
                             long l2Tokens, int loadsWaited, long prefetchTimeoutTokens, long failedReadTokens) {

    /** An outcome whose recomputed tokens all have the cause "miss" (nothing stopped, nothing failed). */
    public RequestOutcome(long requestId, long arrivalNs, long admittedNs, long firstTokenNs, long finishNs,
                          long promptTokens, long outputTokens, HitClass hitClass, long hitTokens,
                          int deferrals, int preemptions, boolean prefetched, long gpuCachedTokens, long l1Tokens,
                          long l2Tokens, int loadsWaited) {
        this(requestId, arrivalNs, admittedNs, firstTokenNs, finishNs, promptTokens, outputTokens, hitClass, hitTokens,
                deferrals, preemptions, prefetched, gpuCachedTokens, l1Tokens, l2Tokens, loadsWaited, 0, 0);
    }

    /** An outcome without the source split: every hit token counted as L2, nothing from a GPU cache. */
    public RequestOutcome(long requestId, long arrivalNs, long admittedNs, long firstTokenNs, long finishNs,
                          long promptTokens, long outputTokens, HitClass hitClass, long hitTokens,
                          int deferrals, int preemptions, boolean prefetched) {
        this(requestId, arrivalNs, admittedNs, firstTokenNs, finishNs, promptTokens, outputTokens, hitClass, hitTokens,
                deferrals, preemptions, prefetched, 0, 0, hitTokens, 0);
    }

    /** Prompt tokens the engine computed at the admission that served it: neither GPU-cached nor loaded. */
    public long recomputedTokens() {
        return promptTokens - gpuCachedTokens - hitTokens;
    }

    public long ttftNs() {
        return firstTokenNs - arrivalNs;
    }
}
