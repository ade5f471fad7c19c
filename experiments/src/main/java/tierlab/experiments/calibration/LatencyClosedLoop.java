package tierlab.experiments.calibration;

import java.time.Duration;
import org.HdrHistogram.Histogram;
import tierlab.bench.BenchCase;
import tierlab.bench.ClosedLoopRunner;
import tierlab.model.io.StoragePort;

/**
 * The calibration's view of the engine benchmark's closed loop ({@link ClosedLoopRunner}: queue
 * depth slots, each completion submits its slot's next operation until the deadline), timed: every
 * successful operation's latency from {@code submit} to completion goes into a histogram. Random
 * offsets are uniform over block-aligned positions with repetition (fio's {@code norandommap});
 * sequential ones come from one shared cursor that wraps.
 */
final class LatencyClosedLoop {

    /** What one run produced; {@code latencies} holds one value per successful operation, in ns. */
    record Outcome(long ops, long bytes, long elapsedNs, long errors, String firstError, Histogram latencies) {}

    private LatencyClosedLoop() {}

    static Outcome run(StoragePort port, BenchCase benchCase, long fileBytes, Duration duration, long seed) {
        ClosedLoopRunner.Timed timed = ClosedLoopRunner.runTimed(port, benchCase, fileBytes, duration, seed);
        ClosedLoopRunner.Result result = timed.result();
        return new Outcome(result.ops(), result.bytes(), result.elapsedNs(), result.errors(), result.firstError(),
                timed.latencies());
    }
}
