package tierlab.sim.metrics;

import java.util.List;
import org.HdrHistogram.Histogram;
import tierlab.model.sched.RequestOutcome;
import tierlab.model.store.StoreCounter;

/**
 * The figures the reference system reports for one pass (docs/tiered-store.md section 8), computed
 * from the pass's finished requests and the counter differences over the pass.
 *
 * @param elapsedNs           first arrival to last finish
 * @param externalHitRatio    prompt tokens loaded from the store / prompt tokens
 * @param l1HitRatio          loaded bytes that were resident in L1 / all loaded bytes
 * @param ioSubmissions       io_uring_enter calls the run would make (one per submission)
 */
public record PassMetrics(String pass, int requests, long elapsedNs, long promptTokens, double promptTokensPerSecond,
                          double ttftMeanMs, double ttftP50Ms, double ttftP90Ms, double ttftP99Ms, long hitTokens,
                          double externalHitRatio, long l1HitBytes, long l2HitBytes, double l1HitRatio, long l2ReadOps,
                          long l2ReadBytes, long l2WriteOps, long l2WriteBytes, long ioSubmissions, long prefetchCalls,
                          long deferrals, long loadMatches, long mismatches, long computedPromptTokens) {

    public static PassMetrics of(String pass, List<RequestOutcome> outcomes, CounterSnapshot start, CounterSnapshot end) {
        // Three significant digits, up to an hour of TTFT in nanoseconds.
        Histogram ttft = new Histogram(3_600_000_000_000L, 3);
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
        long l1Bytes = end.store(StoreCounter.L1_HIT_BYTES) - start.store(StoreCounter.L1_HIT_BYTES);
        long l2Bytes = end.store(StoreCounter.L2_HIT_BYTES) - start.store(StoreCounter.L2_HIT_BYTES);
        double ms = 1e6;
        return new PassMetrics(pass, outcomes.size(), elapsed, promptTokens,
                elapsed == 0 ? 0 : promptTokens * 1e9 / elapsed,
                outcomes.isEmpty() ? 0 : ttft.getMean() / ms,
                ttft.getValueAtPercentile(50) / ms, ttft.getValueAtPercentile(90) / ms, ttft.getValueAtPercentile(99) / ms,
                hitTokens, promptTokens == 0 ? 0 : (double) hitTokens / promptTokens,
                l1Bytes, l2Bytes, l1Bytes + l2Bytes == 0 ? 0 : (double) l1Bytes / (l1Bytes + l2Bytes),
                end.store(StoreCounter.L2_READ_OPS) - start.store(StoreCounter.L2_READ_OPS),
                end.store(StoreCounter.L2_READ_BYTES) - start.store(StoreCounter.L2_READ_BYTES),
                end.store(StoreCounter.L2_WRITE_OPS) - start.store(StoreCounter.L2_WRITE_OPS),
                end.store(StoreCounter.L2_WRITE_BYTES) - start.store(StoreCounter.L2_WRITE_BYTES),
                end.submissions() - start.submissions(),
                end.prefetchCalls() - start.prefetchCalls(),
                end.deferrals() - start.deferrals(),
                end.loadMatches() - start.loadMatches(),
                end.loadMismatches() - start.loadMismatches() + end.stagingMismatches() - start.stagingMismatches(),
                end.computedPromptTokens() - start.computedPromptTokens());
    }
}
