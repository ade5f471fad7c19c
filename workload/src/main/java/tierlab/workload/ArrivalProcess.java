package tierlab.workload;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.apache.commons.math3.distribution.ExponentialDistribution;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * When requests (or, with multi-turn sessions, sessions) arrive. In a settings file it is an object
 * with a {@code kind}: {@code {kind: poisson, ratePerSecond: 20}} or
 * {@code {kind: bursty, burstRatePerSecond: 200, burstLengthRequests: 50, idleGapMeanSeconds: 5}}.
 *
 * <p>The first arrival is at time 0 (a run starts with work rather than with an idle gap); the
 * gaps after it are drawn from Commons Math exponentials over the generator passed in, so the
 * times depend on the seed alone.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = ArrivalProcess.Poisson.class, name = "poisson"),
    @JsonSubTypes.Type(value = ArrivalProcess.Bursty.class, name = "bursty")})
public sealed interface ArrivalProcess {

    /** {@code count} arrival times in ns, non-decreasing, the first at 0. */
    long[] arrivalTimesNs(int count, RandomGenerator random);

    /** Arrivals at a constant rate: exponential gaps of mean 1/{@code ratePerSecond}. */
    record Poisson(double ratePerSecond) implements ArrivalProcess {
        public Poisson {
            positive("ratePerSecond", ratePerSecond);
        }

        @Override
        public long[] arrivalTimesNs(int count, RandomGenerator random) {
            ExponentialDistribution gapNs = new ExponentialDistribution(random, 1e9 / ratePerSecond);
            long[] times = new long[count];
            for (int i = 1; i < count; i++) {
                times[i] = Math.addExact(times[i - 1], Math.round(gapNs.sample()));
            }
            return times;
        }
    }

    /**
     * On/off Poisson: bursts of {@code burstLengthRequests} arrivals at {@code burstRatePerSecond},
     * separated by idle gaps drawn from an exponential of mean {@code idleGapMeanSeconds} (0: no
     * gap, which is a Poisson process at the burst rate). The idle gap replaces the in-burst gap
     * before each burst's first arrival.
     */
    record Bursty(double burstRatePerSecond, int burstLengthRequests, double idleGapMeanSeconds)
            implements ArrivalProcess {
        public Bursty {
            positive("burstRatePerSecond", burstRatePerSecond);
            if (burstLengthRequests <= 0) {
                throw new IllegalArgumentException("burstLengthRequests must be > 0, was " + burstLengthRequests);
            }
            if (!(idleGapMeanSeconds >= 0) || Double.isInfinite(idleGapMeanSeconds)) {
                throw new IllegalArgumentException("idleGapMeanSeconds must be >= 0 and finite, was " + idleGapMeanSeconds);
            }
        }

        @Override
        public long[] arrivalTimesNs(int count, RandomGenerator random) {
            ExponentialDistribution inBurstGapNs = new ExponentialDistribution(random, 1e9 / burstRatePerSecond);
            ExponentialDistribution idleGapNs = idleGapMeanSeconds == 0
                    ? null
                    : new ExponentialDistribution(random, idleGapMeanSeconds * 1e9);
            long[] times = new long[count];
            for (int i = 1; i < count; i++) {
                boolean burstStarts = i % burstLengthRequests == 0;
                double gapNs = burstStarts && idleGapNs != null ? idleGapNs.sample() : inBurstGapNs.sample();
                times[i] = Math.addExact(times[i - 1], Math.round(gapNs));
            }
            return times;
        }
    }

    private static void positive(String field, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + " must be > 0 and finite, was " + value);
        }
    }
}
