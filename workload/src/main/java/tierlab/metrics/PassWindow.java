package tierlab.metrics;

import java.util.List;
import java.util.function.ToLongFunction;
import org.HdrHistogram.Histogram;
import tierlab.model.request.RequestOutcome;
import tierlab.model.store.StoreCounter;

/**
 * What a pass's metrics are computed from: its finished requests (with their TTFTs in a histogram
 * and the sums every metric would otherwise recompute) and the counter snapshots at its start and end.
 *
 * @param elapsedNs    first arrival to last finish (0 for no requests)
 * @param promptTokens prompt tokens of the finished requests
 * @param hitTokens    of those, tokens loaded from the store
 */
public record PassWindow(List<RequestOutcome> outcomes, CounterSnapshot start, CounterSnapshot end, Histogram ttftNs,
                         long elapsedNs, long promptTokens, long hitTokens) {

    /**
     * Three significant digits. The histogram resizes itself as values arrive, so a pass has no TTFT ceiling:
     * a serial engine queueing thousands of long prompts legally reaches hours or days before a first token.
     */
    private static final int TTFT_SIGNIFICANT_DIGITS = 3;

    public static PassWindow of(List<RequestOutcome> outcomes, CounterSnapshot start, CounterSnapshot end) {
        Histogram ttft = new Histogram(TTFT_SIGNIFICANT_DIGITS);
        long firstArrival = Long.MAX_VALUE;
        long lastFinish = 0;
        long promptTokens = 0;
        long hitTokens = 0;
        for (RequestOutcome outcome : outcomes) {
            ttft.recordValue(Math.max(0, outcome.ttftNs()));
            firstArrival = Math.min(firstArrival, outcome.arrivalNs());
            lastFinish = Math.max(lastFinish, outcome.finishNs());
            promptTokens += outcome.promptTokens();
            hitTokens += outcome.hitTokens();
        }
        long elapsed = outcomes.isEmpty() ? 0 : lastFinish - firstArrival;
        return new PassWindow(List.copyOf(outcomes), start, end, ttft, elapsed, promptTokens, hitTokens);
    }

    public int requests() {
        return outcomes.size();
    }

    /** How much a store counter grew over the pass. */
    public long delta(StoreCounter counter) {
        return end.store(counter) - start.store(counter);
    }

    /** A per-request figure summed over the pass's finished requests. */
    public long sum(ToLongFunction<RequestOutcome> figure) {
        long total = 0;
        for (RequestOutcome outcome : outcomes) {
            total += figure.applyAsLong(outcome);
        }
        return total;
    }

    /** How much one of the run's other counters grew over the pass. */
    public long delta(ToLongFunction<CounterSnapshot> counter) {
        return counter.applyAsLong(end) - counter.applyAsLong(start);
    }
}
