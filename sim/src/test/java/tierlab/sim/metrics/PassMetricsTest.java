package tierlab.sim.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
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
}
