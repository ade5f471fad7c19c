package tierlab.model.sched;

import tierlab.model.store.LookupResult.HitClass;

/**
 * What happened to one finished request; the metrics layer aggregates these.
 *
 * @param hitClass      classification of the lookup that admitted it
 * @param hitTokens     prompt tokens loaded instead of computed
 * @param deferrals     times it was parked by the prefetch bound
 * @param preemptions   times the engine preempted it
 */
public record RequestOutcome(long requestId, long arrivalNs, long admittedNs, long firstTokenNs, long finishNs,
                             long promptTokens, long outputTokens, HitClass hitClass, long hitTokens,
                             int deferrals, int preemptions, boolean prefetched) {

    public long ttftNs() {
        return firstTokenNs - arrivalNs;
    }
}
