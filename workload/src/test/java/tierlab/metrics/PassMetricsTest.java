package tierlab.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.request.RequestOutcome;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.StoreCounter;

class PassMetricsTest {

    private static CounterSnapshot snapshot(long l1HitBytes, long l2HitBytes, long l2WriteBytes) {
        long[] counters = new long[StoreCounter.values().length];
        counters[StoreCounter.L1_HIT_BYTES.ordinal()] = l1HitBytes;
        counters[StoreCounter.L2_HIT_BYTES.ordinal()] = l2HitBytes;
        counters[StoreCounter.L2_WRITE_BYTES.ordinal()] = l2WriteBytes;
        return new CounterSnapshot(0, counters, 0, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void l2WriteAmplificationIsBytesWrittenOverBytesServedFromL2() {
        // Over the pass: 3 MiB from L1 + 1 MiB from L2 served, 6 MiB written to L2: 6 / 1 = 6 (the
        // definition: bytes written to L2 / bytes later served from L2; L1 hits do not count).
        PassMetrics pass = PassMetrics.of("warm", List.of(), snapshot(1 << 20, 0, 2 << 20),
                snapshot(4 << 20, 1 << 20, 8 << 20));
        assertEquals(6.0, pass.value(PassMetric.L2_WRITE_AMPLIFICATION));
        assertEquals(0.75, pass.value(PassMetric.L1_HIT_RATIO));
        assertEquals(6.0, pass.value("l2WriteAmplification"));
    }

    @Test
    void l2WriteAmplificationWithNothingServedFromL2() {
        // Nothing written: 0. Written but never read back from L2: undefined, NaN (0 would rank it best).
        assertEquals(0.0, PassMetrics.of("cold", List.of(), snapshot(5, 5, 5), snapshot(9, 5, 5))
                .value(PassMetric.L2_WRITE_AMPLIFICATION));
        assertTrue(Double.isNaN(PassMetrics.of("cold", List.of(), snapshot(5, 5, 5), snapshot(5, 5, 4096))
                .value(PassMetric.L2_WRITE_AMPLIFICATION)));
    }

    @Test
    void l2WriteGiBPerHourIsBytesWrittenOverTraceHours() {
        // 3 GiB written over a pass of half an hour (first arrival at 0, last finish at 1,800 s): 6 GiB/h.
        long[] before = new long[StoreCounter.values().length];
        long[] after = new long[StoreCounter.values().length];
        after[StoreCounter.L2_WRITE_BYTES.ordinal()] = 3L << 30;
        long halfHourNs = 1_800_000_000_000L;
        var outcome = new tierlab.model.request.RequestOutcome(1, 0, 0, 1, halfHourNs, 16, 1,
                tierlab.model.store.LookupResult.HitClass.MISS, 0, 0, 0, false);
        PassMetrics pass = PassMetrics.of("cold", List.of(outcome), new CounterSnapshot(0, before, 0, 0, 0, 0, 0, 0, 0),
                new CounterSnapshot(halfHourNs, after, 0, 0, 0, 0, 0, 0, 0));
        assertEquals(halfHourNs, pass.value(PassMetric.ELAPSED_S) * 1e9, 1);
        assertEquals(6.0, pass.value(PassMetric.L2_WRITE_GIB_PER_HOUR), 1e-12);
    }

    @Test
    void recomputedTokensBySource() {
        // 1,000 prompt tokens computed. Request 1 lost 64 hit tokens to a failed read, request 2 lost 40 to a
        // prefetch stop: 1,000 - 64 - 40 = 896 were misses.
        RequestOutcome failed = new RequestOutcome(1, 0, 0, 10, 20, 600, 1, HitClass.MISS, 0, 0, 0, false, 0, 0, 0, 1, 0, 64);
        RequestOutcome stopped = new RequestOutcome(2, 0, 0, 10, 20, 400, 1, HitClass.L2, 32, 0, 0, true, 0, 0, 32, 1, 40, 0);
        PassMetrics pass = PassMetrics.of("cold", List.of(failed, stopped),
                new CounterSnapshot(0, new long[StoreCounter.values().length], 0, 0, 0, 0, 0, 0, 0),
                new CounterSnapshot(0, new long[StoreCounter.values().length], 0, 0, 0, 0, 0, 0, 1000));
        assertEquals(896.0, pass.value(PassMetric.RECOMPUTED_TOKENS_MISS));
        assertEquals(64.0, pass.value(PassMetric.RECOMPUTED_TOKENS_FAILED_READ));
        assertEquals(40.0, pass.value(PassMetric.RECOMPUTED_TOKENS_PREFETCH_TIMEOUT));
    }

    @Test
    void tokenSourcesSumTheRequestsAndGpuEvictionsAreACounterDifference() {
        // Request 1: 100 prompt tokens, 48 from the GPU cache, 32 loaded (3 of 4 units in L1: 24 L1, 8 L2), 20 computed,
        // 2 loads waited. Request 2: 60 tokens, all computed. 160 prompt tokens: GPU hit ratio 48 / 160 = 0.3.
        RequestOutcome first = new RequestOutcome(1, 0, 0, 10, 20, 100, 1, HitClass.MIXED, 32, 0, 0, true, 48, 24, 8, 2);
        RequestOutcome second = new RequestOutcome(2, 0, 0, 10, 20, 60, 1, HitClass.MISS, 0, 0, 0, false);
        long[] counters = new long[StoreCounter.values().length];
        PassMetrics pass = PassMetrics.of("warm", List.of(first, second),
                new CounterSnapshot(0, counters, 0, 0, 0, 0, 0, 0, 0, 5), new CounterSnapshot(0, counters, 0, 0, 0, 0, 0, 0, 0, 12));
        assertEquals(48, pass.value(PassMetric.GPU_CACHED_TOKENS));
        assertEquals(24, pass.value(PassMetric.L1_TOKENS));
        assertEquals(8, pass.value(PassMetric.L2_TOKENS));
        assertEquals(20 + 60, pass.value(PassMetric.RECOMPUTED_TOKENS));
        assertEquals(0.3, pass.value(PassMetric.GPU_PREFIX_HIT_RATIO), 1e-12);
        assertEquals(7, pass.value(PassMetric.GPU_BLOCKS_EVICTED));
        assertEquals(2, pass.value(PassMetric.LOADS_WAITED));
    }

    @Test
    void ttftsOfHoursAndDaysAreMeasuredNotRefused() {
        // A serial engine queueing thousands of long prompts reaches a TTFT of hours; a slow drive, days. The
        // metrics must hold them: 2 h and 30 days, each to three significant digits.
        long twoHoursNs = 7_200_000_000_000L;
        long thirtyDaysNs = 30L * 24 * 3_600_000_000_000L;
        RequestOutcome late = new RequestOutcome(1, 0, 0, twoHoursNs, twoHoursNs + 1, 32_768, 1, HitClass.MISS, 0, 0, 0, false);
        RequestOutcome later = new RequestOutcome(2, 0, 0, thirtyDaysNs, thirtyDaysNs + 1, 32_768, 1, HitClass.MISS, 0, 0, 0, false);
        long[] counters = new long[StoreCounter.values().length];
        PassMetrics pass = PassMetrics.of("cold", List.of(late, later), new CounterSnapshot(0, counters, 0, 0, 0, 0, 0, 0, 0),
                new CounterSnapshot(thirtyDaysNs, counters, 0, 0, 0, 0, 0, 0, 0));
        double twoHoursMs = twoHoursNs / 1e6;
        double thirtyDaysMs = thirtyDaysNs / 1e6;
        assertEquals(twoHoursMs, pass.value(PassMetric.TTFT_P50_MS), twoHoursMs * 1e-3);
        assertEquals(thirtyDaysMs, pass.value(PassMetric.TTFT_P99_MS), thirtyDaysMs * 1e-3);
        assertEquals((twoHoursMs + thirtyDaysMs) / 2, pass.value(PassMetric.TTFT_MEAN_MS), thirtyDaysMs * 1e-3);
    }
}
