package tierlab.model.serving;

import tierlab.model.Settings;
import tierlab.model.store.L2WritePolicy;

/**
 * Knobs of the vLLM-like engine step loop.
 *
 * @param maxNumSeqs           most requests running at once (vLLM {@code max_num_seqs})
 * @param maxBatchedTokens     token budget of one engine step (decode tokens first, then prefill chunks)
 * @param gpuKvBlocks          GPU KV-cache blocks of {@code blockTokens} tokens each
 * @param prefetchMaxRequests  most concurrent prefetches of mixed/L2 hits [2]; 0 turns prefetch off
 * @param allL1Bypass          L1 hits are admitted at once and never count against the prefetch bound [true]
 * @param offload              use the tiered store at all; false is the no-offload baseline (every token recomputed,
 *                             nothing saved)
 * @param engine               which serving engine runs these knobs, by its registry name; a crash restart
 *                             creates the same kind. An experiment file without one gets {@link #DEFAULT_ENGINE}
 *                             ({@code vllm-v1}); the shorter constructors here name {@link #VLLM}, the engine
 *                             without a GPU prefix cache whose decisions the hand-computed tests spell out
 * @param prefixCaching        automatic prefix caching of the GPU KV blocks (vLLM {@code enable_prefix_caching})
 *                             [true]; only engines with a GPU prefix cache ({@code vllm-v1}) read it
 * @param prefetchStop         when a prefetch stops being waited for, the rest of the prompt recomputed
 *                             [wait-complete: always waited for]
 * @param loadLayerGroups      a load is copied to the GPU in this many layer groups, so compute of group i
 *                             overlaps the copy of group i+1 [1: the whole block at once]
 * @param hostWritePolicy      when the GPU's KV is saved to the store (SGLang HiCache's GPU→host write policy:
 *                             {@code write-through} [default] as soon as computed, {@code write-after-hits:N} after
 *                             N GPU prefix hits, {@code write-back} when evicted from the GPU); only {@code sglang}
 *                             reads it
 * @param waitingOrder         the waiting queue's order, {@code lpm} [default] or {@code fcfs}; only {@code sglang}
 *                             reads it
 * @param saveTiming           whether a step ends only once its saves are staged ({@code in-step}, vLLM's
 *                             {@code wait_for_save}) or saves run after it ({@code after-step} [default]); only
 *                             {@code vllm} and {@code vllm-v1} read it
 */
public record SchedulerSettings(int maxNumSeqs, long maxBatchedTokens, long gpuKvBlocks, int prefetchMaxRequests,
                                boolean allL1Bypass, boolean offload, String engine, boolean prefixCaching,
                                PrefetchStop prefetchStop, int loadLayerGroups, L2WritePolicy hostWritePolicy,
                                WaitingOrder waitingOrder, SaveTiming saveTiming) {

    /** The most layer groups a load may be split into: more than a model's layers would split nothing further. */
    public static final int MAX_LOAD_LAYER_GROUPS = 1024;

    public SchedulerSettings(int maxNumSeqs, long maxBatchedTokens, long gpuKvBlocks, int prefetchMaxRequests,
                             boolean allL1Bypass, boolean offload, String engine, boolean prefixCaching,
                             PrefetchStop prefetchStop, int loadLayerGroups, L2WritePolicy hostWritePolicy,
                             WaitingOrder waitingOrder) {
        this(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine, prefixCaching,
                prefetchStop, loadLayerGroups, hostWritePolicy, waitingOrder, SaveTiming.AFTER_STEP);
    }

    public SchedulerSettings(int maxNumSeqs, long maxBatchedTokens, long gpuKvBlocks, int prefetchMaxRequests,
                             boolean allL1Bypass, boolean offload, String engine, boolean prefixCaching,
                             PrefetchStop prefetchStop, int loadLayerGroups) {
        this(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine, prefixCaching,
                prefetchStop, loadLayerGroups, L2WritePolicy.WRITE_THROUGH, WaitingOrder.LPM);
    }

    public SchedulerSettings(int maxNumSeqs, long maxBatchedTokens, long gpuKvBlocks, int prefetchMaxRequests,
                             boolean allL1Bypass, boolean offload, String engine, boolean prefixCaching) {
        this(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine, prefixCaching,
                PrefetchStop.WAIT_COMPLETE, 1);
    }

    public SchedulerSettings(int maxNumSeqs, long maxBatchedTokens, long gpuKvBlocks, int prefetchMaxRequests,
                             boolean allL1Bypass, boolean offload, String engine) {
        this(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine, true);
    }

    /**
     * The registry name of the default engine of experiment files and commands: vLLM V1 with automatic
     * prefix caching on, as vLLM V1 itself defaults (docs/engines.md, "Which engine is the default").
     */
    public static final String DEFAULT_ENGINE = "vllm-v1";

    /**
     * The registry name of the vLLM-like engine without a GPU prefix cache, which the shorter constructors
     * name: code and tests that spell out its decisions by hand keep it.
     */
    public static final String VLLM = "vllm";

    public SchedulerSettings(int maxNumSeqs, long maxBatchedTokens, long gpuKvBlocks, int prefetchMaxRequests,
                             boolean allL1Bypass, boolean offload) {
        this(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, VLLM);
    }

    public SchedulerSettings(int maxNumSeqs, long maxBatchedTokens, long gpuKvBlocks, int prefetchMaxRequests,
                             boolean allL1Bypass) {
        this(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, true);
    }

    public SchedulerSettings {
        Settings.positive("maxNumSeqs", maxNumSeqs);
        Settings.positive("maxBatchedTokens", maxBatchedTokens);
        Settings.positive("gpuKvBlocks", gpuKvBlocks);
        Settings.nonNegative("prefetchMaxRequests", prefetchMaxRequests);
        if (engine == null || engine.isBlank()) {
            throw new IllegalArgumentException("engine must name a serving engine, was " + (engine == null ? "null" : "blank"));
        }
        if (prefetchStop == null) {
            throw new IllegalArgumentException("prefetchStop must be set");
        }
        if (loadLayerGroups < 1 || loadLayerGroups > MAX_LOAD_LAYER_GROUPS) {
            throw new IllegalArgumentException("loadLayerGroups must be within [1, " + MAX_LOAD_LAYER_GROUPS + "], was "
                    + loadLayerGroups);
        }
        if (hostWritePolicy == null) {
            throw new IllegalArgumentException("hostWritePolicy must be set");
        }
        if (waitingOrder == null) {
            throw new IllegalArgumentException("waitingOrder must be set");
        }
        if (saveTiming == null) {
            throw new IllegalArgumentException("saveTiming must be set");
        }
    }

    /** vLLM-like defaults: 256 sequences, 8192 tokens per step, prefetch bound 2 with the L1 bypass. */
    public static SchedulerSettings defaults(long gpuKvBlocks) {
        return new SchedulerSettings(256, 8192, gpuKvBlocks, 2, true);
    }

    public SchedulerSettings withConcurrency(int newMaxNumSeqs) {
        return new SchedulerSettings(newMaxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine, prefixCaching, prefetchStop, loadLayerGroups, hostWritePolicy, waitingOrder, saveTiming);
    }

    public SchedulerSettings withPrefetch(int newPrefetchMaxRequests, boolean newAllL1Bypass) {
        return new SchedulerSettings(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, newPrefetchMaxRequests, newAllL1Bypass, offload, engine, prefixCaching, prefetchStop, loadLayerGroups, hostWritePolicy, waitingOrder, saveTiming);
    }

    /** The no-offload baseline: the engine alone, recomputing every prompt. */
    public SchedulerSettings withoutOffload() {
        return new SchedulerSettings(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, false, engine, prefixCaching, prefetchStop, loadLayerGroups, hostWritePolicy, waitingOrder, saveTiming);
    }

    /** The same knobs run by another serving engine (a registry name). */
    public SchedulerSettings withEngine(String newEngine) {
        return new SchedulerSettings(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, newEngine, prefixCaching, prefetchStop,
                loadLayerGroups, hostWritePolicy, waitingOrder, saveTiming);
    }

    /** The same knobs with automatic prefix caching of GPU blocks on or off. */
    public SchedulerSettings withPrefixCaching(boolean newPrefixCaching) {
        return new SchedulerSettings(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine,
                newPrefixCaching, prefetchStop, loadLayerGroups, hostWritePolicy, waitingOrder, saveTiming);
    }

    /** The same knobs with another prefetch stop policy. */
    public SchedulerSettings withPrefetchStop(PrefetchStop newPrefetchStop) {
        return new SchedulerSettings(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine,
                prefixCaching, newPrefetchStop, loadLayerGroups, hostWritePolicy, waitingOrder, saveTiming);
    }

    /** The same knobs with loads copied in {@code newLoadLayerGroups} layer groups (1: whole blocks). */
    public SchedulerSettings withLoadLayerGroups(int newLoadLayerGroups) {
        return new SchedulerSettings(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine,
                prefixCaching, prefetchStop, newLoadLayerGroups, hostWritePolicy, waitingOrder, saveTiming);
    }

    /** The same knobs with another GPU→store write policy (engine {@code sglang}). */
    public SchedulerSettings withHostWritePolicy(L2WritePolicy newHostWritePolicy) {
        return new SchedulerSettings(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine,
                prefixCaching, prefetchStop, loadLayerGroups, newHostWritePolicy, waitingOrder, saveTiming);
    }

    /** The same knobs with another waiting-queue order (engine {@code sglang}). */
    public SchedulerSettings withWaitingOrder(WaitingOrder newWaitingOrder) {
        return new SchedulerSettings(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine,
                prefixCaching, prefetchStop, loadLayerGroups, hostWritePolicy, newWaitingOrder, saveTiming);
    }

    /** The same knobs with another save timing (engines {@code vllm} and {@code vllm-v1}). */
    public SchedulerSettings withSaveTiming(SaveTiming newSaveTiming) {
        return new SchedulerSettings(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass, offload, engine,
                prefixCaching, prefetchStop, loadLayerGroups, hostWritePolicy, waitingOrder, newSaveTiming);
    }

    public boolean prefetchEnabled() {
        return prefetchMaxRequests > 0;
    }
}
