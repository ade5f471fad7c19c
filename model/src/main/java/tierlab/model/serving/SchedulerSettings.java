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
 *                             ({@code vllm-v1}); {@link #builder} names {@link #VLLM}, the engine
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

    /**
     * The registry name of the default engine of experiment files and commands: vLLM V1 with automatic
     * prefix caching on, as vLLM V1 itself defaults (docs/engines.md, "Which engine is the default").
     */
    public static final String DEFAULT_ENGINE = "vllm-v1";

    /**
     * The registry name of the vLLM-like engine without a GPU prefix cache, which {@link #builder} names:
     * code and tests that spell out its decisions by hand keep it.
     */
    public static final String VLLM = "vllm";

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
        return builder(gpuKvBlocks).build();
    }

    /**
     * Knobs by name over {@code gpuKvBlocks} GPU blocks, every other one at its default: 256 sequences,
     * 8192 tokens per step, prefetch bound 2 with the L1 bypass, offload on, engine {@link #VLLM}, prefix
     * caching on, prefetches waited for, whole-block loads, write-through, {@code lpm}, saves after the step.
     */
    public static Builder builder(long gpuKvBlocks) {
        return new Builder(gpuKvBlocks);
    }

    /** A builder holding these knobs, to change some by name. */
    public Builder toBuilder() {
        return new Builder(gpuKvBlocks).maxNumSeqs(maxNumSeqs).maxBatchedTokens(maxBatchedTokens)
                .prefetchMaxRequests(prefetchMaxRequests).allL1Bypass(allL1Bypass).offload(offload).engine(engine)
                .prefixCaching(prefixCaching).prefetchStop(prefetchStop).loadLayerGroups(loadLayerGroups)
                .hostWritePolicy(hostWritePolicy).waitingOrder(waitingOrder).saveTiming(saveTiming);
    }

    public SchedulerSettings withConcurrency(int newMaxNumSeqs) {
        return toBuilder().maxNumSeqs(newMaxNumSeqs).build();
    }

    public SchedulerSettings withPrefetch(int newPrefetchMaxRequests, boolean newAllL1Bypass) {
        return toBuilder().prefetchMaxRequests(newPrefetchMaxRequests).allL1Bypass(newAllL1Bypass).build();
    }

    /** The no-offload baseline: the engine alone, recomputing every prompt. */
    public SchedulerSettings withoutOffload() {
        return toBuilder().offload(false).build();
    }

    /** The same knobs run by another serving engine (a registry name). */
    public SchedulerSettings withEngine(String newEngine) {
        return toBuilder().engine(newEngine).build();
    }

    /** The same knobs with automatic prefix caching of GPU blocks on or off. */
    public SchedulerSettings withPrefixCaching(boolean newPrefixCaching) {
        return toBuilder().prefixCaching(newPrefixCaching).build();
    }

    /** The same knobs with another prefetch stop policy. */
    public SchedulerSettings withPrefetchStop(PrefetchStop newPrefetchStop) {
        return toBuilder().prefetchStop(newPrefetchStop).build();
    }

    /** The same knobs with loads copied in {@code newLoadLayerGroups} layer groups (1: whole blocks). */
    public SchedulerSettings withLoadLayerGroups(int newLoadLayerGroups) {
        return toBuilder().loadLayerGroups(newLoadLayerGroups).build();
    }

    /** The same knobs with another GPU→store write policy (engine {@code sglang}). */
    public SchedulerSettings withHostWritePolicy(L2WritePolicy newHostWritePolicy) {
        return toBuilder().hostWritePolicy(newHostWritePolicy).build();
    }

    /** The same knobs with another waiting-queue order (engine {@code sglang}). */
    public SchedulerSettings withWaitingOrder(WaitingOrder newWaitingOrder) {
        return toBuilder().waitingOrder(newWaitingOrder).build();
    }

    /** The same knobs with another save timing (engines {@code vllm} and {@code vllm-v1}). */
    public SchedulerSettings withSaveTiming(SaveTiming newSaveTiming) {
        return toBuilder().saveTiming(newSaveTiming).build();
    }

    public boolean prefetchEnabled() {
        return prefetchMaxRequests > 0;
    }

    /** Named construction: each knob by its record component's name; {@link #build} validates them all. */
    public static final class Builder {
        private int maxNumSeqs = 256;
        private long maxBatchedTokens = 8192;
        private final long gpuKvBlocks;
        private int prefetchMaxRequests = 2;
        private boolean allL1Bypass = true;
        private boolean offload = true;
        private String engine = VLLM;
        private boolean prefixCaching = true;
        private PrefetchStop prefetchStop = PrefetchStop.WAIT_COMPLETE;
        private int loadLayerGroups = 1;
        private L2WritePolicy hostWritePolicy = L2WritePolicy.WRITE_THROUGH;
        private WaitingOrder waitingOrder = WaitingOrder.LPM;
        private SaveTiming saveTiming = SaveTiming.AFTER_STEP;

        private Builder(long gpuKvBlocks) {
            this.gpuKvBlocks = gpuKvBlocks;
        }

        public Builder maxNumSeqs(int value) { maxNumSeqs = value; return this; }
        public Builder maxBatchedTokens(long value) { maxBatchedTokens = value; return this; }
        public Builder prefetchMaxRequests(int value) { prefetchMaxRequests = value; return this; }
        public Builder allL1Bypass(boolean value) { allL1Bypass = value; return this; }
        public Builder offload(boolean value) { offload = value; return this; }
        public Builder engine(String value) { engine = value; return this; }
        public Builder prefixCaching(boolean value) { prefixCaching = value; return this; }
        public Builder prefetchStop(PrefetchStop value) { prefetchStop = value; return this; }
        public Builder loadLayerGroups(int value) { loadLayerGroups = value; return this; }
        public Builder hostWritePolicy(L2WritePolicy value) { hostWritePolicy = value; return this; }
        public Builder waitingOrder(WaitingOrder value) { waitingOrder = value; return this; }
        public Builder saveTiming(SaveTiming value) { saveTiming = value; return this; }

        public SchedulerSettings build() {
            return new SchedulerSettings(maxNumSeqs, maxBatchedTokens, gpuKvBlocks, prefetchMaxRequests, allL1Bypass,
                    offload, engine, prefixCaching, prefetchStop, loadLayerGroups, hostWritePolicy, waitingOrder, saveTiming);
        }
    }
}
