package tierlab.sim.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tierlab.sim.kernel.Simulator;

/**
 * Events per second of the discrete-event kernel alone (target: at least 10 M/s): a steady
 * population of {@code pending} self-rescheduling events, the shape of a busy simulation where
 * every completion schedules the next operation. Score in events per microsecond (×1e6 per second).
 * Run with {@code ./tierlab bench sim}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class KernelBenchmark {
    static final int EVENTS = 1_000_000;

    @Param({"64", "4096"})
    public int pending;

    private long fired;

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long fireEvents() {
        Simulator simulator = new Simulator();
        fired = 0;
        Simulator.Event[] reschedule = new Simulator.Event[1];
        reschedule[0] = now -> {
            if (++fired < EVENTS) {
                // A pseudo-random but deterministic delay spreads events over the queue.
                simulator.at(now + 1 + ((fired * 0x9E3779B97F4A7C15L) >>> 50), reschedule[0]);
            }
        };
        for (int i = 0; i < pending; i++) {
            simulator.at(i, reschedule[0]);
        }
        simulator.run();
        return simulator.eventsFired();
    }
}
