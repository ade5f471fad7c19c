package tierlab.metrics;

import java.util.function.ToDoubleFunction;
import tierlab.model.request.RequestOutcome;
import tierlab.model.store.StoreCounter;

/**
 * The per-pass metrics, one entry each: name, unit, one-line doc, and how it is computed from a
 * pass's requests and counter snapshots ({@link PassWindow}). This list is the single source of the
 * metrics a pass reports, of the {@code PASS.metric} columns of {@code results.csv} and their order
 * (declaration order), of the names charts and reference rows may use, and of the metric table in
 * the experiment catalogue. A new metric computed from existing counters is one more entry.
 */
public enum PassMetric {

    REQUESTS("requests", "requests", "requests finished in the pass", w -> w.requests()),
    ELAPSED_S("elapsedS", "s", "first arrival to last finish", w -> w.elapsedNs() / 1e9),
    PROMPT_TOKENS_PER_S("promptTokensPerS", "tokens/s", "prompt tokens / elapsed time",
            w -> w.elapsedNs() == 0 ? 0 : w.promptTokens() * 1e9 / w.elapsedNs()),
    TTFT_MEAN_MS("ttftMeanMs", "ms", "mean time to first token",
            w -> w.outcomes().isEmpty() ? 0 : w.ttftNs().getMean() / Units.NS_PER_MS),
    TTFT_P50_MS("ttftP50Ms", "ms", "median time to first token", w -> w.ttftNs().getValueAtPercentile(50) / Units.NS_PER_MS),
    TTFT_P90_MS("ttftP90Ms", "ms", "90th percentile time to first token",
            w -> w.ttftNs().getValueAtPercentile(90) / Units.NS_PER_MS),
    TTFT_P99_MS("ttftP99Ms", "ms", "99th percentile time to first token",
            w -> w.ttftNs().getValueAtPercentile(99) / Units.NS_PER_MS),
    EXTERNAL_HIT_RATIO("externalHitRatio", "ratio", "prompt tokens served from the store (L1 or L2) / prompt tokens",
            w -> w.promptTokens() == 0 ? 0 : (double) w.hitTokens() / w.promptTokens()),
    L1_HIT_RATIO("l1HitRatio", "ratio", "loaded bytes found in L1 / all loaded bytes", w -> {
        long l1Bytes = w.delta(StoreCounter.L1_HIT_BYTES);
        long l2Bytes = w.delta(StoreCounter.L2_HIT_BYTES);
        return l1Bytes + l2Bytes == 0 ? 0 : (double) l1Bytes / (l1Bytes + l2Bytes);
    }),
    L1_HIT_GIB("l1HitGiB", "GiB", "bytes loaded to the GPU from L1", w -> w.delta(StoreCounter.L1_HIT_BYTES) / Units.GIB),
    L2_HIT_GIB("l2HitGiB", "GiB", "bytes loaded to the GPU from L2", w -> w.delta(StoreCounter.L2_HIT_BYTES) / Units.GIB),
    L2_READ_OPS("l2ReadOps", "operations", "L2 reads", w -> w.delta(StoreCounter.L2_READ_OPS)),
    L2_READ_GIB("l2ReadGiB", "GiB", "bytes read from L2", w -> w.delta(StoreCounter.L2_READ_BYTES) / Units.GIB),
    L2_WRITE_OPS("l2WriteOps", "operations", "L2 writes", w -> w.delta(StoreCounter.L2_WRITE_OPS)),
    L2_WRITE_GIB("l2WriteGiB", "GiB", "bytes written to L2", w -> w.delta(StoreCounter.L2_WRITE_BYTES) / Units.GIB),
    IO_URING_ENTERS("ioUringEnters", "calls", "io_uring_enter calls the run makes (one per submission)",
            w -> w.delta(CounterSnapshot::submissions)),
    PREFETCH_CALLS("prefetchCalls", "calls", "store acquisitions (prefetch or load of a hit) the scheduler started", w -> w.delta(CounterSnapshot::prefetchCalls)),
    DEFERRALS("deferrals", "times", "times a request was parked because the prefetch bound was reached",
            w -> w.delta(CounterSnapshot::deferrals)),
    COMPUTED_PROMPT_TOKENS("computedPromptTokens", "tokens", "prompt tokens the GPU computed (not loaded)",
            w -> w.delta(CounterSnapshot::computedPromptTokens)),
    MISMATCHES("mismatches", "blocks", "loads or staging copies whose bytes were not their key's (must be 0)",
            w -> w.delta(CounterSnapshot::loadMismatches) + w.delta(CounterSnapshot::stagingMismatches)),
    // The store's write-policy figures: L2 wear and what recomputation was for, which the write policies trade.
    L2_WRITE_AMPLIFICATION("l2WriteAmplification", "ratio",
            "bytes written to L2 / bytes later served from L2 (L1 hits cost no wear and do not count); 0 when nothing was written, NaN when bytes"
                    + " were written and none served from L2",
            w -> {
                long writtenBytes = w.delta(StoreCounter.L2_WRITE_BYTES);
                long servedFromL2Bytes = w.delta(StoreCounter.L2_HIT_BYTES);
                if (servedFromL2Bytes == 0) {
                    // Writes that nothing read back have no finite amplification: NaN says so, where 0
                    // would rank them best. A pass that wrote nothing amplified nothing.
                    return writtenBytes == 0 ? 0 : Double.NaN;
                }
                return (double) writtenBytes / servedFromL2Bytes;
            }),
    L2_WRITE_GIB_PER_HOUR("l2WriteGiBPerHour", "GiB/h",
            "bytes written to L2 per hour of the pass's trace time (first arrival to last finish): SSD wear",
            w -> w.elapsedNs() == 0 ? 0 : w.delta(StoreCounter.L2_WRITE_BYTES) / Units.GIB / (w.elapsedNs() / Units.NS_PER_HOUR)),
    RECOMPUTED_TOKENS_MISS("recomputedTokensMiss", "tokens",
            "prompt tokens computed because the store did not hold them (computed tokens less the other causes)",
            w -> Math.max(0, w.delta(CounterSnapshot::computedPromptTokens)
                    - w.sum(RequestOutcome::failedReadTokens) - w.sum(RequestOutcome::prefetchTimeoutTokens))),
    RECOMPUTED_TOKENS_PREFETCH_TIMEOUT("recomputedTokensPrefetchTimeout", "tokens",
            "store hit tokens recomputed because the engine stopped waiting for their prefetch (scheduler.prefetchStop),"
                    + " summed over the pass's requests at the admission that served each",
            w -> w.sum(RequestOutcome::prefetchTimeoutTokens)),
    RECOMPUTED_TOKENS_FAILED_READ("recomputedTokensFailedRead", "tokens",
            "store hit tokens recomputed because reading them failed (an L2 read, after the prefetch retries, or the"
                    + " load to the GPU), summed over the pass's requests at the admission that served each",
            w -> w.sum(RequestOutcome::failedReadTokens)),
    // End of the store's write-policy figures.
    // Where prompt tokens come from, for every serving engine (docs/engines.md): per request at the
    // admission that served it, gpuCachedTokens + l1Tokens + l2Tokens + recomputedTokens = prompt tokens.
    GPU_CACHED_TOKENS("gpuCachedTokens", "tokens", "prompt tokens served by the engine's GPU prefix cache (0 without one)",
            w -> w.sum(RequestOutcome::gpuCachedTokens)),
    L1_TOKENS("l1Tokens", "tokens", "prompt tokens loaded from the store whose KV was in L1 at the lookup",
            w -> w.sum(RequestOutcome::l1Tokens)),
    L2_TOKENS("l2Tokens", "tokens", "prompt tokens loaded from the store whose KV was read from L2",
            w -> w.sum(RequestOutcome::l2Tokens)),
    RECOMPUTED_TOKENS("recomputedTokens", "tokens",
            "prompt tokens computed at the admission that served each request (neither GPU-cached nor loaded)",
            w -> w.sum(RequestOutcome::recomputedTokens)),
    GPU_PREFIX_HIT_RATIO("gpuPrefixHitRatio", "ratio", "prompt tokens served by the GPU prefix cache / prompt tokens",
            w -> w.promptTokens() == 0 ? 0 : (double) w.sum(RequestOutcome::gpuCachedTokens) / w.promptTokens()),
    GPU_BLOCKS_EVICTED("gpuBlocksEvicted", "blocks", "cached GPU blocks whose KV was dropped to reuse the block",
            w -> w.delta(CounterSnapshot::gpuBlocksEvicted)),
    LOADS_WAITED("loadsWaited", "loads", "store loads and prefetches the pass's requests waited for",
            w -> w.sum(RequestOutcome::loadsWaited));

    private final String metricName;
    private final String unit;
    private final String doc;
    private final ToDoubleFunction<PassWindow> compute;

    PassMetric(String metricName, String unit, String doc, ToDoubleFunction<PassWindow> compute) {
        this.metricName = metricName;
        this.unit = unit;
        this.doc = doc;
        this.compute = compute;
    }

    /** The column and chart name ({@code l1HitRatio}; a pass's column is {@code PASS.l1HitRatio}). */
    public String metricName() {
        return metricName;
    }

    public String unit() {
        return unit;
    }

    public String doc() {
        return doc;
    }

    public double compute(PassWindow window) {
        return compute.applyAsDouble(window);
    }

    /** The unit conversions the entries share, in one place so every GiB is the same GiB. */
    private static final class Units {
        static final double GIB = 1L << 30;
        static final double NS_PER_MS = 1e6;
        static final double NS_PER_HOUR = 3600e9;
    }
}
