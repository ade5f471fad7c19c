package tierlab.metrics;

import tierlab.model.serving.ServingEngine;
import tierlab.model.store.StoreCounter;

/** Every cumulative counter of a run at one instant, so a pass's figures are differences of two snapshots. */
public record CounterSnapshot(long atNs, long[] storeCounters, long submissions, long prefetchCalls, long deferrals,
                              long loadMatches, long loadMismatches, long stagingMismatches, long computedPromptTokens,
                              long gpuBlocksEvicted, long prefetchTimeoutTokens) {

    /** A snapshot of an engine that always waits for its prefetches (no tokens recomputed for a stop). */
    public CounterSnapshot(long atNs, long[] storeCounters, long submissions, long prefetchCalls, long deferrals,
                           long loadMatches, long loadMismatches, long stagingMismatches, long computedPromptTokens,
                           long gpuBlocksEvicted) {
        this(atNs, storeCounters, submissions, prefetchCalls, deferrals, loadMatches, loadMismatches, stagingMismatches,
                computedPromptTokens, gpuBlocksEvicted, 0);
    }

    /** A snapshot of an engine without a GPU prefix cache (no GPU evictions). */
    public CounterSnapshot(long atNs, long[] storeCounters, long submissions, long prefetchCalls, long deferrals,
                           long loadMatches, long loadMismatches, long stagingMismatches, long computedPromptTokens) {
        this(atNs, storeCounters, submissions, prefetchCalls, deferrals, loadMatches, loadMismatches, stagingMismatches,
                computedPromptTokens, 0, 0);
    }

    /**
     * The counters of a run in any mode: the engine's and its store's, plus what the runtime measured
     * beside them (the clock, storage submissions, payload checks).
     *
     * @param submissions storage submissions so far (io_uring_enter calls, or the simulated submitter's)
     */
    public static CounterSnapshot of(ServingEngine engine, long atNs, long submissions, long loadMatches,
                                     long loadMismatches, long stagingMismatches) {
        long[] counters = new long[StoreCounter.values().length];
        for (StoreCounter counter : StoreCounter.values()) {
            counters[counter.ordinal()] = engine.store().counter(counter);
        }
        return new CounterSnapshot(atNs, counters, submissions, engine.prefetchCalls(), engine.deferrals(), loadMatches,
                loadMismatches, stagingMismatches, engine.computedPromptTokens(), engine.gpuBlocksEvicted(),
                engine.prefetchTimeoutTokens());
    }

    public long store(StoreCounter counter) {
        return storeCounters[counter.ordinal()];
    }
}
