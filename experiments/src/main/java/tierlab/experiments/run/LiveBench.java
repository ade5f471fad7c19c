package tierlab.experiments.run;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tierlab.bench.BenchCase;
import tierlab.bench.ClosedLoopRunner;
import tierlab.bench.TestFile;
import tierlab.engine.PinnedArena;
import tierlab.engine.StoragePorts;
import tierlab.engine.live.L2Activity;
import tierlab.engine.live.LiveRuntime;
import tierlab.experiments.CommandException;
import tierlab.experiments.IoProblems;
import tierlab.metrics.Percentiles;
import tierlab.model.io.StoragePort;

/**
 * {@code tierlab bench live FILE}: a live experiment's L2 rates held against the storage engine's
 * own closed loop for the same pattern, measured beside each other on the same file system, round
 * after round (live run, then the engine's writes, then its reads).
 *
 * <p>For each direction the live run used, its rate is the bytes moved divided by the time at
 * least one operation of that direction was in flight ({@link L2Activity}): gaps where the run had
 * nothing to read or write (compute, the other pass) are not charged to the I/O path, while a
 * model thread that hands operations over late or one at a time is. The engine then runs the same
 * pattern through the same storage port as live runs get ({@link StoragePorts#open}): sequential
 * operations of the live run's mean size (rounded up to 4 KiB), as many in flight as the live run
 * had on average while busy. The ratio live / engine should be at least 0.8: below it, live mode's own work, not the drive, limits it.
 */
public final class LiveBench {

    /** Settings of one bench: the experiment, rounds, seconds of each engine run, the folder of the files. */
    public record Options(Path file, int rounds, double engineSeconds, Path dir) {}

    private static final long MIB = 1L << 20;
    private static final long SEED = 20261201L;

    private LiveBench() {}

    /** One direction of one round: the live run's activity and the engine's closed loop at its pattern. */
    record Pair(L2Activity live, double engineBytesPerSecond, BenchCase engineCase) {
        double ratio() {
            return live.busyBytesPerSecond() / engineBytesPerSecond;
        }
    }

    /** Runs the bench; returns the exit code. Bad input is a {@link CommandException} with one line. */
    public static int run(Options options, PrintWriter out) {
        ExperimentLoader.Experiment experiment = ExperimentLoader.load(options.file());
        if (!"live".equals(experiment.mode())) {
            throw new CommandException(options.file() + ": mode is '" + experiment.mode()
                    + "'; bench live needs an experiment with mode: live (e.g. experiments/catalog/live-throughput.yaml)");
        }
        RunPoint point = experiment.points().getFirst();
        if (experiment.points().size() > 1) {
            out.println("bench live: the experiment has " + experiment.points().size() + " runs; measuring the first ("
                    + point.label() + ")");
        }
        Path dir = options.dir().toAbsolutePath().normalize();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new CommandException("bench live: cannot create " + dir + ": " + IoProblems.describe(e));
        }
        List<Pair> writes = new ArrayList<>();
        List<Pair> reads = new ArrayList<>();
        Path engineFile = dir.resolve("engine-pattern.bin");
        long l2Bytes = point.config().store().l2CapacityBytes();
        try {
            for (int round = 1; round <= options.rounds(); round++) {
                L2Activity[] live = liveRound(point, dir);
                out.printf(Locale.ROOT, "round %d of %d:%n", round, options.rounds());
                if (live[1].ops() > 0) {
                    writes.add(engineRound(live[1], true, engineFile, l2Bytes, options.engineSeconds()));
                    out.println(describe("writes", writes.getLast()));
                }
                if (live[0].ops() > 0) {
                    reads.add(engineRound(live[0], false, engineFile, l2Bytes, options.engineSeconds()));
                    out.println(describe("reads", reads.getLast()));
                }
                out.flush();
            }
        } finally {
            try {
                TestFile.delete(engineFile);
            } catch (IOException e) {
                out.println("bench live: could not delete " + engineFile + ": " + IoProblems.describe(e));
            }
        }
        out.println(summary("writes", writes));
        out.println(summary("reads", reads));
        return 0;
    }

    /** One live run of the point; returns its L2 reads and writes over all its passes. */
    private static L2Activity[] liveRound(RunPoint point, Path dir) {
        RunExecutor executor = new RunExecutor(dir.resolve("live-scratch"));
        List<LiveRuntime.Report> passes = new ArrayList<>();
        RunResult result = executor.run(point, new RunObserver() {
            @Override
            public void livePass(LiveRuntime.Report report) {
                passes.add(report);
            }
        });
        if (result.failed()) {
            throw new CommandException("bench live: the live run failed: " + result.failure());
        }
        return new L2Activity[] {merged(passes, true), merged(passes, false)};
    }

    /** One direction over every pass: sums, and the largest depth. Passes do not overlap in time. */
    private static L2Activity merged(List<LiveRuntime.Report> passes, boolean reads) {
        long ops = 0;
        long bytes = 0;
        long busyNs = 0;
        long spanNs = 0;
        int maxInFlight = 0;
        double opNs = 0;
        for (LiveRuntime.Report pass : passes) {
            L2Activity activity = reads ? pass.l2Reads() : pass.l2Writes();
            ops += activity.ops();
            bytes += activity.bytes();
            busyNs += activity.busyNs();
            spanNs += activity.spanNs();
            maxInFlight = Math.max(maxInFlight, activity.maxInFlight());
            opNs += activity.meanInFlight() * activity.busyNs();
        }
        return new L2Activity(ops, bytes, busyNs, spanNs, maxInFlight, busyNs == 0 ? 0 : opNs / busyNs);
    }

    /** The engine's closed loop at the live direction's pattern, on a file written beforehand. */
    private static Pair engineRound(L2Activity live, boolean write, Path file, long l2Bytes, double seconds) {
        long opBytes = Math.ceilDiv(live.meanOpBytes(), 4096) * 4096;
        // The live run's depth while it was busy; a drive's rate need not grow with depth (a virtual disk's
        // often falls), so the deepest moment would not be the same pattern.
        int queueDepth = Math.max(1, (int) Math.round(live.meanInFlight()));
        BenchCase benchCase = new BenchCase(write ? BenchCase.Access.SEQUENTIAL_WRITE : BenchCase.Access.SEQUENTIAL_READ,
                Math.toIntExact(opBytes), queueDepth);
        // Room for the loop to move forward: as large as the live run's L2 up to 2 GiB, and at least four
        // times what it keeps in flight.
        long fileBytes = Math.max(Math.min(2048 * MIB, l2Bytes), 4 * queueDepth * opBytes);
        fileBytes = fileBytes / opBytes * opBytes;
        try {
            TestFile.prepare(file, fileBytes, SEED);
            try (PinnedArena arena = PinnedArena.allocate(queueDepth * opBytes)) {
                TestFile.fillRandom(arena, SEED);
                try (StoragePort port = StoragePorts.open(file, arena, fileBytes)) {
                    ClosedLoopRunner.Result result = ClosedLoopRunner.run(port, benchCase, fileBytes,
                            Duration.ofMillis(Math.round(seconds * 1000)), SEED);
                    if (result.errors() > 0) {
                        throw new CommandException("bench live: the engine's " + benchCase.name() + " failed: " + result.firstError());
                    }
                    return new Pair(live, result.bytes() / (result.elapsedNs() / 1e9), benchCase);
                }
            }
        } catch (IOException e) {
            throw new CommandException("bench live: the engine's test file " + file + ": " + IoProblems.describe(e));
        }
    }

    static String describe(String direction, Pair pair) {
        L2Activity live = pair.live();
        return String.format(Locale.ROOT,
                "  %-6s live %6.2f GiB in %4d ops (%.1f MiB each, %.1f in flight on average, up to %d): %7.1f MiB/s while busy (%.2f s busy of a %.2f s span)"
                        + " | engine %s: %7.1f MiB/s | live/engine %.2f",
                direction, live.bytes() / (double) (1L << 30), live.ops(), live.meanOpBytes() / (double) MIB, live.meanInFlight(), live.maxInFlight(),
                live.busyBytesPerSecond() / MIB, live.busyNs() / 1e9, live.spanNs() / 1e9, pair.engineCase().name(),
                pair.engineBytesPerSecond() / MIB, pair.ratio());
    }

    static String summary(String direction, List<Pair> pairs) {
        if (pairs.isEmpty()) {
            return String.format(Locale.ROOT, "%-6s: the live run moved none", direction);
        }
        double[] ratios = pairs.stream().mapToDouble(Pair::ratio).sorted().toArray();
        double[] live = pairs.stream().mapToDouble(p -> p.live().busyBytesPerSecond() / MIB).sorted().toArray();
        double[] engine = pairs.stream().mapToDouble(p -> p.engineBytesPerSecond() / MIB).sorted().toArray();
        return String.format(Locale.ROOT,
                "%-6s: live/engine median %.2f (range %.2f-%.2f over %d rounds); live median %.1f MiB/s (%.1f-%.1f), engine median %.1f MiB/s (%.1f-%.1f)",
                direction, Percentiles.medianMidpoint(ratios), ratios[0], ratios[ratios.length - 1], ratios.length,
                Percentiles.medianMidpoint(live), live[0], live[live.length - 1], Percentiles.medianMidpoint(engine), engine[0], engine[engine.length - 1]);
    }
}
