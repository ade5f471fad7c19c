package tierlab.model.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tierlab.model.policy.Policies;
import tierlab.model.policy.PolicyCapability;
import tierlab.model.policy.PolicyOptions;
import tierlab.model.policy.ReplacementPolicy;

/**
 * Policy operations per second (target: at least 10 M/s for {@code lru}). Each reference of a
 * skewed stream is one policy operation: an access on a hit, or a victim selection, a removal
 * and an insertion on a miss (counted as one operation, the cache-replay unit). The cache holds
 * {@code capacity} entries, 29,127 by default: a 64 GiB L1 of 2.25 MiB Qwen3-8B blocks.
 *
 * <p>Run with {@code ./tierlab bench model PolicyBenchmark}; the score is in operations per
 * microsecond (×1e6 for per second).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PolicyBenchmark {
    static final int STREAM = 1 << 20;

    @Param({"lru", "prefix-lru", "bip", "arc", "s3-fifo", "sieve", "belady", "fifo", "lfu", "slru", "2q", "w-tinylfu", "clock", "lfuda", "gdsf", "lirs", "lecar"})
    public String policyName;

    @Param({"29127"})
    public int capacity;

    long[] references;
    ReplacementPolicy policy;
    int cursor;

    @Setup(Level.Iteration)
    public void setUp() {
        // Keys drawn from a skewed distribution over 4× the capacity: hits and misses both happen.
        SplittableRandom random = new SplittableRandom(42);
        references = new long[STREAM];
        long universe = capacity * 4L;
        for (int i = 0; i < STREAM; i++) {
            double u = random.nextDouble();
            references[i] = (long) (universe * u * u);
        }
        long[] future = Policies.has(policyName, PolicyCapability.NEEDS_FUTURE_REFERENCES) ? repeat(references, 64) : null;
        policy = Policies.create(policyName, PolicyOptions.defaults(capacity).withFutureReferences(future));
        cursor = 0;
    }

    private static long[] repeat(long[] stream, int times) {
        long[] out = new long[stream.length * times];
        for (int t = 0; t < times; t++) {
            System.arraycopy(stream, 0, out, t * stream.length, stream.length);
        }
        return out;
    }

    @Benchmark
    @OperationsPerInvocation(1024)
    public int references1024() {
        int hits = 0;
        for (int i = 0; i < 1024; i++) {
            long key = references[cursor];
            cursor = (cursor + 1) & (STREAM - 1);
            if (policy.contains(key)) {
                policy.onAccess(key);
                hits++;
            } else {
                if (policy.size() >= capacity) {
                    policy.onRemove(policy.selectVictim(k -> true));
                }
                policy.onInsert(key, key, 0);
            }
        }
        return hits;
    }
}
