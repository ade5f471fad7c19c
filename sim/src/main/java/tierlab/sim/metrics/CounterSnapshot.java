package tierlab.sim.metrics;

import tierlab.model.store.StoreCounter;
import tierlab.sim.SimRuntime;

/** Every cumulative counter of a run at one instant, so a pass's figures are differences of two snapshots. */
public record CounterSnapshot(long atNs, long[] storeCounters, long submissions, long prefetchCalls, long deferrals,
                              long loadMatches, long loadMismatches, long stagingMismatches, long computedPromptTokens) {

    public static CounterSnapshot take(SimRuntime runtime) {
        long[] counters = new long[StoreCounter.values().length];
        for (StoreCounter counter : StoreCounter.values()) {
            counters[counter.ordinal()] = runtime.store().counter(counter);
        }
        return new CounterSnapshot(runtime.simulator().nowNs(), counters, runtime.submitter().submissions(),
                runtime.scheduler().prefetchCalls(), runtime.scheduler().deferrals(), runtime.ledger().loadMatches(),
                runtime.ledger().loadMismatches(), runtime.ledger().stagingMismatches(),
                runtime.scheduler().computedPromptTokens());
    }

    public long store(StoreCounter counter) {
        return storeCounters[counter.ordinal()];
    }
}
