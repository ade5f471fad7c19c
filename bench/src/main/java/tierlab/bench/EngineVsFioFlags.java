package tierlab.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The flags of {@code ./tierlab bench engine} as a picocli mixin, declared once for the command
 * line's {@code bench engine} subcommand and for {@link EngineVsFio#main}. picocli checks the flags
 * themselves (names, values present, none twice); the values are kept as typed and checked by
 * {@link #options()}, after the whole line is read, so that {@code --help} wins over a bad value
 * and each mistake is one sentence naming the flag and the range.
 */
public final class EngineVsFioFlags {

    /** The command's description, shared by both commands that show it. */
    public static final String DESCRIPTION = "Runs the io_uring engine and fio (ioengine=io_uring, direct=1, fixedbufs) on the same"
            + " O_DIRECT file, interleaved run by run, for 128 KiB random reads and writes at queue depth 1, 8 and 32"
            + " and 1 MiB sequential reads and writes at queue depth 8; prints median MiB/s of each, the median and"
            + " range of the per-round ratios engine/fio, and io_uring_enter calls per read with and without"
            + " batching. Writes target/bench/engine-vs-fio.{csv,md} and engine-vs-fio-rounds.csv.";

    @Option(names = "--rounds", paramLabel = "N",
            description = "engine/fio pairs per case (1.." + EngineVsFioOptions.MAX_ROUNDS + "; default "
                    + EngineVsFioOptions.DEFAULT_ROUNDS + ")")
    String rounds;

    @Option(names = "--seconds", paramLabel = "N",
            description = "seconds per run (1.." + EngineVsFioOptions.MAX_SECONDS + "; default " + EngineVsFioOptions.DEFAULT_SECONDS + ")")
    String seconds;

    @Option(names = "--size-mib", paramLabel = "N",
            description = "test file size in MiB (" + EngineVsFioOptions.MIN_SIZE_MIB + ".." + EngineVsFioOptions.MAX_SIZE_MIB
                    + "; default " + EngineVsFioOptions.DEFAULT_SIZE_MIB + ")")
    String sizeMib;

    @Option(names = "--dir", paramLabel = "PATH",
            description = "directory for the test file; must support O_DIRECT (default: target/bench, else /tmp)")
    String dir;

    @Option(names = "--rings", paramLabel = "N",
            description = "io_uring rings of the engine (1.." + EngineVsFioOptions.MAX_RINGS + "; default " + EngineVsFioOptions.DEFAULT_RINGS + ")")
    String rings;

    @Option(names = "--cases", paramLabel = "A,B",
            completionCandidates = CaseNames.class, description = "run only these cases (default: all: ${COMPLETION-CANDIDATES})")
    String cases;

    @Option(names = "--quick",
            description = "smoke test: " + EngineVsFioOptions.QUICK_ROUNDS + " round, " + EngineVsFioOptions.QUICK_SECONDS
                    + " s runs, a " + EngineVsFioOptions.QUICK_SIZE_MIB + " MiB file (flags given too win)")
    boolean quick;

    /** The case names for the help of --cases; an annotation's constant cannot name them. */
    static final class CaseNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return BenchCase.acceptanceCases().stream().map(BenchCase::name).iterator();
        }
    }

    /** The options the flags ask for, defaults filled in; a bad value is an IllegalArgumentException naming its flag. */
    public EngineVsFioOptions options() {
        Integer roundsGiven = rounds == null ? null : (int) number("--rounds", rounds, 1, EngineVsFioOptions.MAX_ROUNDS);
        Integer secondsGiven = seconds == null ? null : (int) number("--seconds", seconds, 1, EngineVsFioOptions.MAX_SECONDS);
        Long sizeGiven = sizeMib == null ? null
                : number("--size-mib", sizeMib, EngineVsFioOptions.MIN_SIZE_MIB, EngineVsFioOptions.MAX_SIZE_MIB);
        Integer ringsGiven = rings == null ? null : (int) number("--rings", rings, 1, EngineVsFioOptions.MAX_RINGS);
        List<BenchCase> casesGiven = cases == null ? null : cases(cases);
        if (dir != null && dir.isBlank()) {
            throw new IllegalArgumentException("--dir needs a directory path, was empty");
        }
        return new EngineVsFioOptions(
                roundsGiven != null ? roundsGiven : quick ? EngineVsFioOptions.QUICK_ROUNDS : EngineVsFioOptions.DEFAULT_ROUNDS,
                secondsGiven != null ? secondsGiven : quick ? EngineVsFioOptions.QUICK_SECONDS : EngineVsFioOptions.DEFAULT_SECONDS,
                sizeGiven != null ? sizeGiven : quick ? EngineVsFioOptions.QUICK_SIZE_MIB : EngineVsFioOptions.DEFAULT_SIZE_MIB,
                dir == null ? null : Path.of(dir),
                ringsGiven != null ? ringsGiven : EngineVsFioOptions.DEFAULT_RINGS,
                casesGiven != null ? casesGiven : BenchCase.acceptanceCases(),
                quick);
    }

    private static List<BenchCase> cases(String value) {
        List<BenchCase> chosen = new ArrayList<>();
        for (String name : value.split(",")) {
            String wanted = name.strip();
            BenchCase found = BenchCase.acceptanceCases().stream().filter(c -> c.name().equals(wanted)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--cases: no case named '" + wanted + "'; the cases are "
                            + EngineVsFioOptions.caseNames(BenchCase.acceptanceCases())));
            if (chosen.contains(found)) {
                throw new IllegalArgumentException("--cases names " + wanted + " twice");
            }
            chosen.add(found);
        }
        return List.copyOf(chosen);
    }

    private static long number(String flag, String value, long min, long max) {
        long parsed;
        try {
            parsed = Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " must be a whole number between " + min + " and " + max
                    + ", was '" + value + "'");
        }
        if (parsed < min || parsed > max) {
            throw new IllegalArgumentException(flag + " must be between " + min + " and " + max + ", was " + parsed);
        }
        return parsed;
    }
}
