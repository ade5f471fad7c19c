package tierlab.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import tierlab.engine.IoCounters;
import tierlab.engine.IoUringBackend;
import tierlab.engine.IoUringSettings;
import tierlab.engine.PinnedArena;
import tierlab.engine.persist.AtomicFiles;
import tierlab.engine.persist.CallerPaths;
import tierlab.engine.uring.IoUringProbe;
import tierlab.metrics.Percentiles;
import tierlab.model.io.IoOp;

/**
 * {@code ./tierlab bench engine}: the io_uring engine against fio on the same file.
 *
 * <h2>Method</h2>
 * The disk of the build machines is a virtio device whose throughput drifts 2-3.5x within minutes,
 * so absolute numbers from different moments do not compare. Each case therefore runs the engine and
 * fio back to back, R rounds, and the comparison is the ratio within a round:
 * <pre>
 *   case k:  round 1: engine, fio    round 2: fio, engine    round 3: engine, fio    ...
 *            ratio_r = engine MiB/s / fio MiB/s of round r
 *   report:  median engine MiB/s, median fio MiB/s, median ratio, min-max ratio
 * </pre>
 * The order inside a pair alternates (engine first in odd rounds, fio first in even rounds) so that
 * a drift within a pair, or a write run leaving dirty data for the next run to pay for, does not
 * favour whichever side always goes first. Both sides use the same file, offset range, block size,
 * queue depth, O_DIRECT, fixed (registered) buffers and run length; the engine keeps its queue
 * depth with {@link ClosedLoopRunner}, fio with its own iodepth loop (see {@link Fio}).
 *
 * <p>Then the same 128 KiB random reads are submitted in batches of 8 and one by one on one ring,
 * and io_uring_enter calls per read are counted ({@link SubmissionBatchingProbe}).
 *
 * <p>Results go to stdout and to {@code target/bench/engine-vs-fio.md}, {@code engine-vs-fio.csv}
 * (one row per case) and {@code engine-vs-fio-rounds.csv} (one row per round). Nothing is
 * hard-coded: every figure printed is measured in this run.
 */
public final class EngineVsFio {

    /** Where the tables go, relative to the folder the command was called from (tierlab.callerDir). */
    static final Path OUTPUT_DIR = Path.of("target", "bench");
    static final String TEST_FILE_NAME = "engine-vs-fio.bin";
    private static final int RING_ENTRIES = 64;
    static final int BATCH_SIZE = 8;
    private static final int BATCH_GROUPS = 256;
    private static final long SEED = 20_260_503L;

    private final EngineVsFioOptions options;
    private final PrintStream out;
    private final Fio fio;
    /**
     * {@link #OUTPUT_DIR} in the caller's folder: the launcher of the distribution archive starts the
     * JVM in the archive's own folder, where a bare host's results have no place.
     */
    private final Path outputDir = CallerPaths.resolve(OUTPUT_DIR);

    /** One engine/fio pair; {@code fio} is null when fio is not there (the engine ran alone). */
    record Round(BenchCase benchCase, int round, boolean engineFirst, ClosedLoopRunner.Result engine, IoCounters engineCounters,
                 FioResult fio) {
        double ratio() {
            return fio == null ? Double.NaN : engine.mibPerSecond() / fio.mibPerSecond();
        }

        double fioMibPerSecond() {
            return fio == null ? Double.NaN : fio.mibPerSecond();
        }

        double engineEnterCallsPerOp() {
            return engine.ops() == 0 ? 0 : (double) engineCounters.enterCalls() / engine.ops();
        }
    }

    /** The medians and ratio range of one case. */
    record CaseSummary(BenchCase benchCase, int rounds, double engineMibMedian, double fioMibMedian, double ratioMedian,
                       double ratioMin, double ratioMax, double engineEnterPerOpMedian, double[] ratios) {
        static CaseSummary of(BenchCase benchCase, List<Round> rounds) {
            if (rounds.isEmpty()) {
                // Commons Math's median of no values is NaN; a case that ran no rounds is a bug, not a row.
                throw new IllegalArgumentException("median of no values");
            }
            List<Double> engine = rounds.stream().map(r -> r.engine().mibPerSecond()).toList();
            List<Double> fio = rounds.stream().map(Round::fioMibPerSecond).toList();
            List<Double> ratios = rounds.stream().map(Round::ratio).toList();
            List<Double> enters = rounds.stream().map(Round::engineEnterCallsPerOp).toList();
            return new CaseSummary(benchCase, rounds.size(), Percentiles.medianInterpolated(BenchStats.toArray(engine)),
                    Percentiles.medianInterpolated(BenchStats.toArray(fio)), Percentiles.medianInterpolated(BenchStats.toArray(ratios)),
                    BenchStats.min(ratios), BenchStats.max(ratios), Percentiles.medianInterpolated(BenchStats.toArray(enters)),
                    BenchStats.toArray(ratios));
        }
    }

    EngineVsFio(EngineVsFioOptions options, PrintStream out, Fio fio) {
        this.options = options;
        this.out = out;
        this.fio = fio;
    }

    /**
     * Runs the comparison with options already parsed (the {@code tierlab bench engine} subcommand),
     * printing to {@code out}; a failure is one line on {@code err}. Returns the exit status.
     */
    public static int run(EngineVsFioOptions options, PrintStream out, PrintStream err) {
        try {
            return new EngineVsFio(options, out, new Fio("fio")).run();
        } catch (BenchFailure e) {
            err.println("tierlab bench engine: " + e.getMessage());
            return e.exitCode;
        }
    }

    public static void main(String[] args) {
        EngineVsFioOptions.Parsed parsed = EngineVsFioOptions.parse(args);
        switch (parsed) {
            case EngineVsFioOptions.Help help -> {
                System.out.print(EngineVsFioOptions.usage());
                return;
            }
            case EngineVsFioOptions.Invalid invalid -> {
                System.err.println("tierlab bench engine: " + invalid.message() + " (--help lists the flags)");
                System.exit(2);
                return;
            }
            case EngineVsFioOptions.Run run -> {
                int status;
                try {
                    status = new EngineVsFio(run.options(), System.out, new Fio("fio")).run();
                } catch (BenchFailure e) {
                    System.err.println("tierlab bench engine: " + e.getMessage());
                    status = e.exitCode;
                }
                System.exit(status);
            }
        }
    }

    /** A failure that ends the benchmark with one sentence and an exit code (2: bad setup given by the user; 1: anything else). */
    static final class BenchFailure extends Exception {
        final int exitCode;

        BenchFailure(int exitCode, String message) {
            super(message);
            this.exitCode = exitCode;
        }

        BenchFailure(int exitCode, String message, Throwable cause) {
            super(message, cause);
            this.exitCode = exitCode;
        }
    }

    int run() throws BenchFailure {
        IoUringProbe probe = IoUringBackend.probe();
        if (!probe.available()) {
            throw new BenchFailure(1, "io_uring is unavailable here, so the engine cannot run: " + probe.cause());
        }
        // fio is the yardstick, not a requirement: without it the engine side runs alone and says so.
        String fioVersion;
        String fioMissing = null;
        try {
            fioVersion = fio.version();
        } catch (IOException e) {
            fioMissing = e.getMessage();
            fioVersion = "no fio";
            out.println("tierlab bench engine: fio not found (" + fioMissing + "): running the engine side alone; skipped: the fio"
                    + " runs, the engine/fio ratios and the target check (engine within 5% of fio) (the tables are written with those columns empty)");
        }
        Path dir = chooseDirectory();
        Path file = dir.resolve(TEST_FILE_NAME);
        long fileBytes = options.sizeBytes();
        try {
            Files.createDirectories(outputDir);
        } catch (IOException e) {
            throw new BenchFailure(1, "cannot create " + outputDir.toAbsolutePath() + ": " + e.getMessage(), e);
        }
        checkFreeSpace(dir, file, fileBytes);

        out.printf(Locale.ROOT, "engine vs fio: %s; kernel %s; %s%n", fioVersion, System.getProperty("os.version"), probe);
        out.printf(Locale.ROOT, "file %s, %d MiB; %d round(s) of %d s per run; engine: %d ring(s) x %d entries%n",
                file.toAbsolutePath(), options.sizeMib(), options.rounds(), options.seconds(), options.rings(), RING_ENTRIES);
        prepareTestFile(file, fileBytes);
        try {
            measureAndWrite(probe, fioVersion, fioMissing, file, fileBytes);
        } finally {
            // The file is kept for the next run to reuse (its stamp saves the fill), so say where it is, also after a failure.
            out.println("test file: left " + file.toAbsolutePath() + " (" + (fileBytes >> 20) + " MiB) and its stamp "
                    + TestFile.stampOf(file).getFileName() + " for the next run to reuse; delete both to free the space");
        }
        return 0;
    }

    /** The rounds, the batching probe and the tables, on a test file already written. */
    private void measureAndWrite(IoUringProbe probe, String fioVersion, String fioMissing, Path file, long fileBytes)
            throws BenchFailure {
        String fixedStatus = warmUp(file, fileBytes);
        out.println("engine buffers: " + fixedStatus);
        if (fioMissing == null) {
            out.println("fio job: " + String.join(" ", fio.command(BenchCase.acceptanceCases().get(1), file, fileBytes,
                    options.seconds(), outputDir.resolve("fio-<case>-r<round>.json"))));
        }
        out.println();

        List<Round> rounds = new ArrayList<>();
        List<CaseSummary> summaries = new ArrayList<>();
        for (BenchCase benchCase : options.cases()) {
            List<Round> caseRounds = runCase(benchCase, file, fileBytes, fioMissing == null);
            rounds.addAll(caseRounds);
            summaries.add(CaseSummary.of(benchCase, caseRounds));
        }
        List<SubmissionBatchingProbe.Result> batching = probeBatching(file, fileBytes);

        String header = headerLines(fioVersion, fioMissing, probe, file, fixedStatus);
        String markdown = EngineVsFioReport.markdown(header, summaries, batching);
        out.println();
        out.print(markdown);
        try {
            AtomicFiles.writeString(outputDir.resolve("engine-vs-fio.md"), markdown);
            AtomicFiles.writeString(outputDir.resolve("engine-vs-fio.csv"), EngineVsFioReport.summaryCsv(summaries));
            AtomicFiles.writeString(outputDir.resolve("engine-vs-fio-rounds.csv"), EngineVsFioReport.roundsCsv(rounds));
            AtomicFiles.writeString(outputDir.resolve("engine-vs-fio-batching.csv"), EngineVsFioReport.batchingCsv(batching));
        } catch (IOException e) {
            throw new BenchFailure(1, "writing the results under " + outputDir.toAbsolutePath() + " failed: " + e.getMessage(), e);
        }
        out.println();
        out.println("wrote " + outputDir.resolve("engine-vs-fio.md") + ", engine-vs-fio.csv, engine-vs-fio-rounds.csv, "
                + "engine-vs-fio-batching.csv" + (fioMissing == null ? " (fio's JSON reports: " + outputDir.resolve("fio-*.json") + ")"
                : " (engine side only: no fio)"));
    }

    // ---- set-up --------------------------------------------------------------------------------

    /** --dir when given (it must take O_DIRECT), else target/bench, else the temp directory. */
    private Path chooseDirectory() throws BenchFailure {
        if (options.dir() != null) {
            String refused = directIoRefusal(options.dir());
            if (refused != null) {
                throw new BenchFailure(2, "--dir " + options.dir() + " cannot hold the test file: " + refused);
            }
            return options.dir();
        }
        List<String> refusals = new ArrayList<>();
        for (Path candidate : List.of(outputDir, Path.of(System.getProperty("java.io.tmpdir")))) {
            String refused = directIoRefusal(candidate);
            if (refused == null) {
                return candidate;
            }
            refusals.add(candidate + ": " + refused);
        }
        throw new BenchFailure(2, "no default directory supports O_DIRECT (" + String.join("; ", refusals)
                + "); give one with --dir");
    }

    /** Null when {@code dir} exists (or can be created) and takes an O_DIRECT write through the engine; else why not. */
    static String directIoRefusal(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            return "cannot create the directory (" + e + ")";
        }
        if (!Files.isDirectory(dir)) {
            return "not a directory";
        }
        Path probeFile = dir.resolve(".tierlab-direct-probe");
        try (PinnedArena arena = PinnedArena.allocate(4096, false)) {
            try (IoUringBackend backend = IoUringBackend.open(probeFile, arena, IoUringSettings.defaults().withRings(1, 8)
                    .withFixedBuffers(false).withL2PreallocateBytes(4096))) {
                AtomicReference<String> error = new AtomicReference<>();
                CountDownLatch done = new CountDownLatch(1);
                backend.submit(List.of(new IoOp.L2Write(1, 0, 0, 4096)), (op, completion) -> {
                    if (!completion.succeeded()) {
                        error.set(completion.errorName());
                    }
                    done.countDown();
                });
                if (!done.await(30, TimeUnit.SECONDS)) {
                    return "an O_DIRECT write of 4096 bytes did not complete within 30 s";
                }
                if (error.get() != null) {
                    return "an O_DIRECT write of 4096 bytes failed with " + error.get();
                }
            }
            return null;
        } catch (IOException e) {
            return "opening a probe file there with O_DIRECT failed (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } finally {
            try {
                Files.deleteIfExists(probeFile);
            } catch (IOException e) {
                // A probe file left behind is harmless.
            }
        }
    }

    private static void checkFreeSpace(Path dir, Path file, long fileBytes) throws BenchFailure {
        try {
            long existing = Files.exists(file) ? Files.size(file) : 0;
            long usable = Files.getFileStore(dir).getUsableSpace();
            long needed = fileBytes - existing + (64L << 20);
            if (usable < needed) {
                throw new BenchFailure(2, "the test file needs " + (fileBytes >> 20) + " MiB in " + dir.toAbsolutePath()
                        + " but only " + (usable >> 20) + " MiB are free; use --size-mib or --dir");
            }
        } catch (IOException e) {
            throw new BenchFailure(1, "cannot check the free space in " + dir.toAbsolutePath() + ": " + e.getMessage(), e);
        }
    }

    /** The test file, written once with random bytes and reused by later runs ({@link TestFile}). */
    private void prepareTestFile(Path file, long fileBytes) throws BenchFailure {
        try {
            long startNs = System.nanoTime();
            if (TestFile.prepare(file, fileBytes, SEED)) {
                out.println("test file: reusing " + file + " (written by an earlier run)");
            } else {
                out.printf(Locale.ROOT, "test file: wrote %d MiB of random bytes in %.1f s%n", fileBytes >> 20,
                        (System.nanoTime() - startNs) / 1e9);
            }
        } catch (IOException e) {
            throw new BenchFailure(1, "preparing the test file " + file + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * One untimed second of the QD 8 random-read loop, so that the first measured run does not pay
     * for class loading and JIT compilation of the engine. Returns the engine's fixed-buffer status.
     */
    private String warmUp(Path file, long fileBytes) throws BenchFailure {
        BenchCase warm = new BenchCase(BenchCase.Access.RANDOM_READ, 128 << 10, 8);
        try (PinnedArena arena = PinnedArena.allocate((long) warm.queueDepth() * warm.blockBytes())) {
            try (IoUringBackend backend = IoUringBackend.open(file, arena, engineSettings(warm))) {
                ClosedLoopRunner.Result result = ClosedLoopRunner.run(backend, warm, fileBytes, Duration.ofSeconds(1), SEED);
                if (result.errors() > 0) {
                    throw new BenchFailure(1, "the engine's warm-up reads failed: " + result.firstError());
                }
                return backend.fixedBuffersActive() ? "READ_FIXED/WRITE_FIXED on the registered arena"
                        : "plain READ/WRITE: " + String.join("; ", backend.fixedBufferStatus());
            }
        } catch (IOException e) {
            throw new BenchFailure(1, "opening the engine on " + file + " failed: " + e.getMessage(), e);
        }
    }

    private IoUringSettings engineSettings(BenchCase benchCase) {
        int entries = Math.max(RING_ENTRIES, Integer.highestOneBit(Math.max(1, benchCase.queueDepth() - 1)) << 1);
        return IoUringSettings.defaults().withRings(options.rings(), Math.min(entries, IoUringSettings.MAX_RING_ENTRIES));
    }

    // ---- measuring -----------------------------------------------------------------------------

    private List<Round> runCase(BenchCase benchCase, Path file, long fileBytes, boolean withFio) throws BenchFailure {
        List<Round> rounds = new ArrayList<>();
        long arenaBytes = (long) benchCase.queueDepth() * benchCase.blockBytes();
        try (PinnedArena arena = PinnedArena.allocate(arenaBytes)) {
            TestFile.fillRandom(arena, SEED + benchCase.name().hashCode());
            for (int round = 1; round <= options.rounds(); round++) {
                boolean engineFirst = round % 2 == 1;
                Path json = outputDir.resolve("fio-" + benchCase.name() + "-r" + round + ".json");
                EngineRun engine;
                FioResult fioResult;
                if (!withFio) {
                    engine = runEngine(benchCase, file, fileBytes, arena, round);
                    fioResult = null;
                } else if (engineFirst) {
                    engine = runEngine(benchCase, file, fileBytes, arena, round);
                    fioResult = runFio(benchCase, file, fileBytes, json);
                } else {
                    fioResult = runFio(benchCase, file, fileBytes, json);
                    engine = runEngine(benchCase, file, fileBytes, arena, round);
                }
                Round result = new Round(benchCase, round, engineFirst, engine.result, engine.counters, fioResult);
                rounds.add(result);
                if (fioResult == null) {
                    out.printf(Locale.ROOT, "%-20s round %d/%d: engine %8.1f MiB/s (%.2f io_uring_enter/op)%n",
                            benchCase.name(), round, options.rounds(), engine.result.mibPerSecond(), result.engineEnterCallsPerOp());
                } else {
                    out.printf(Locale.ROOT, "%-20s round %d/%d (%s first): engine %8.1f MiB/s (%.2f io_uring_enter/op)  fio %8.1f MiB/s  ratio %.3f%n",
                            benchCase.name(), round, options.rounds(), engineFirst ? "engine" : "fio", engine.result.mibPerSecond(),
                            result.engineEnterCallsPerOp(), fioResult.mibPerSecond(), result.ratio());
                }
            }
        }
        return rounds;
    }

    private record EngineRun(ClosedLoopRunner.Result result, IoCounters counters) {}

    private EngineRun runEngine(BenchCase benchCase, Path file, long fileBytes, PinnedArena arena, int round) throws BenchFailure {
        try (IoUringBackend backend = IoUringBackend.open(file, arena, engineSettings(benchCase))) {
            IoCounters before = backend.counters();
            // Seeded from the case's name (String hash codes are stable; enum and record ones differ between
            // JVMs), so the offsets of a round repeat from run to run.
            ClosedLoopRunner.Result result = ClosedLoopRunner.run(backend, benchCase, fileBytes,
                    Duration.ofSeconds(options.seconds()), SEED + 31L * round + benchCase.name().hashCode());
            IoCounters delta = backend.counters().minus(before);
            if (result.errors() > 0) {
                throw new BenchFailure(1, "the engine's " + benchCase.name() + " run had " + result.errors()
                        + " failed operations; first: " + result.firstError());
            }
            return new EngineRun(result, delta);
        } catch (IOException e) {
            throw new BenchFailure(1, "opening the engine on " + file + " failed: " + e.getMessage(), e);
        }
    }

    private FioResult runFio(BenchCase benchCase, Path file, long fileBytes, Path json) throws BenchFailure {
        try {
            return fio.run(benchCase, file, fileBytes, options.seconds(), json);
        } catch (IOException | FioResult.FioOutputException e) {
            throw new BenchFailure(1, e.getMessage() + " (command: " + String.join(" ",
                    fio.command(benchCase, file, fileBytes, options.seconds(), json)) + ")", e);
        }
    }

    private List<SubmissionBatchingProbe.Result> probeBatching(Path file, long fileBytes) throws BenchFailure {
        int blockBytes = 128 << 10;
        try (PinnedArena arena = PinnedArena.allocate((long) BATCH_SIZE * blockBytes)) {
            try (IoUringBackend backend = IoUringBackend.open(file, arena, IoUringSettings.defaults().withRings(1, RING_ENTRIES))) {
                List<SubmissionBatchingProbe.Result> results = SubmissionBatchingProbe.run(backend, fileBytes, blockBytes,
                        BATCH_SIZE, BATCH_GROUPS, SEED);
                for (SubmissionBatchingProbe.Result result : results) {
                    if (result.errors() > 0) {
                        throw new BenchFailure(1, result.errors() + " reads of the " + result.mode() + " batching probe failed");
                    }
                }
                return results;
            }
        } catch (IOException e) {
            throw new BenchFailure(1, "opening the engine on " + file + " failed: " + e.getMessage(), e);
        }
    }

    // ---- reporting -----------------------------------------------------------------------------

    private String headerLines(String fioVersion, String fioMissing, IoUringProbe probe, Path file, String fixedStatus) {
        if (fioMissing != null) {
            return String.format(Locale.ROOT, """
                    Measured %s on kernel %s (%d CPUs), without fio (%s): the engine side alone. File %s, %d MiB, O_DIRECT.
                    Engine: IoUringBackend, %d ring(s) x %d entries, %s; closed loop (each completion submits the next op).
                    %d round(s) per case of %d s per run; the fio columns and ratios are empty (not measured).
                    """, ZonedDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE), System.getProperty("os.version"),
                    Runtime.getRuntime().availableProcessors(), fioMissing, file.toAbsolutePath(), options.sizeMib(),
                    options.rings(), RING_ENTRIES, fixedStatus, options.rounds(), options.seconds());
        }
        return String.format(Locale.ROOT, """
                Measured %s on kernel %s (%d CPUs), %s. File %s, %d MiB, O_DIRECT on both sides.
                Engine: IoUringBackend, %d ring(s) x %d entries, %s; closed loop (each completion submits the next op).
                fio: ioengine=io_uring direct=1 fixedbufs=1 (norandommap=1 for random), same rw/bs/iodepth/file/size, time_based.
                %d round(s) per case of %d s per run, engine and fio alternating first; ratio = engine / fio within a round.
                """, ZonedDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE), System.getProperty("os.version"),
                Runtime.getRuntime().availableProcessors(), fioVersion, file.toAbsolutePath(), options.sizeMib(),
                options.rings(), RING_ENTRIES, fixedStatus, options.rounds(), options.seconds());
    }
}
