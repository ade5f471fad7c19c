package tierlab.sim.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.sched.RequestOutcome;
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
    void l2WriteAmplificationIsBytesWrittenOverBytesServed() {
        // Over the pass: 3 MiB from L1 + 1 MiB from L2 served, 6 MiB written to L2: 6 / 4 = 1.5.
        PassMetrics pass = PassMetrics.of("warm", List.of(), snapshot(1 << 20, 0, 2 << 20),
                snapshot(4 << 20, 1 << 20, 8 << 20));
        assertEquals(1.5, pass.value(PassMetric.L2_WRITE_AMPLIFICATION));
        assertEquals(0.75, pass.value(PassMetric.L1_HIT_RATIO));
        assertEquals(1.5, pass.value("l2WriteAmplification"));
    }

    @Test
    void l2WriteAmplificationOfAPassThatServedNothingIsZero() {
        // 0 / 0 and (writes) / 0 are both 0: no NaN, no infinity in results.csv.
        assertEquals(0.0, PassMetrics.of("cold", List.of(), snapshot(5, 5, 5), snapshot(5, 5, 5))
                .value(PassMetric.L2_WRITE_AMPLIFICATION));
        assertEquals(0.0, PassMetrics.of("cold", List.of(), snapshot(5, 5, 5), snapshot(5, 5, 4096))
                .value(PassMetric.L2_WRITE_AMPLIFICATION));
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
}
