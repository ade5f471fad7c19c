package tierlab.bench;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The flags of {@code ./tierlab bench engine}, parsed by hand (the engine module has no command-line
 * library) with one clear sentence per mistake.
 *
 * @param rounds   engine/fio pairs per case
 * @param seconds  length of each run
 * @param sizeMib  size of the test file
 * @param dir      where the test file goes; null: the first of target/bench and /tmp that takes O_DIRECT
 * @param rings    io_uring rings of the engine
 * @param cases    the cases to run, in order (default: all of {@link BenchCase#acceptanceCases()})
 * @param quick    whether --quick chose the defaults
 */
public record EngineVsFioOptions(int rounds, int seconds, long sizeMib, Path dir, int rings, List<BenchCase> cases, boolean quick) {

    public static final int DEFAULT_ROUNDS = 5;
    public static final int DEFAULT_SECONDS = 5;
    public static final long DEFAULT_SIZE_MIB = 1024;
    public static final int QUICK_ROUNDS = 1;
    public static final int QUICK_SECONDS = 2;
    public static final long QUICK_SIZE_MIB = 256;
    /**
     * One ring, like fio's one job: at a queue depth of 8 the default 8 rings would each hold one
     * operation and pay one io_uring_enter per operation (see the README's benchmark section).
     */
    public static final int DEFAULT_RINGS = 1;

    static final int MAX_ROUNDS = 100;
    static final int MAX_SECONDS = 600;
    static final long MIN_SIZE_MIB = 64;
    static final long MAX_SIZE_MIB = 1L << 20;

    /** What the command line asked for. */
    public sealed interface Parsed permits Run, Help, Invalid {}

    public record Run(EngineVsFioOptions options) implements Parsed {}

    public record Help() implements Parsed {}

    /** A mistake, as one sentence naming the flag and the value. */
    public record Invalid(String message) implements Parsed {}

    public static String usage() {
        return """
                usage: ./tierlab bench engine [--rounds N] [--seconds N] [--size-mib N] [--dir PATH] [--rings N] [--cases A,B] [--quick]

                Runs the io_uring engine and fio (ioengine=io_uring, direct=1) on the same O_DIRECT file, interleaved
                run by run, for 128 KiB random reads and writes at queue depth 1, 8 and 32 and 1 MiB sequential reads
                and writes at queue depth 8; prints median MiB/s of each, the median and range of the per-round
                ratios engine/fio, and io_uring_enter calls per read with and without batching. Writes
                target/bench/engine-vs-fio.{csv,md} and engine-vs-fio-rounds.csv.

                  --rounds N     engine/fio pairs per case (1..%d; default %d)
                  --seconds N    seconds per run (1..%d; default %d)
                  --size-mib N   test file size in MiB (%d..%d; default %d)
                  --dir PATH     directory for the test file; must support O_DIRECT
                                 (default: target/bench, else /tmp)
                  --rings N      io_uring rings of the engine (1..64; default %d)
                  --cases A,B    run only these cases (default: all: %s)
                  --quick        smoke test: %d round, %d s runs, a %d MiB file (flags given too win)
                  --help         this text
                """.formatted(MAX_ROUNDS, DEFAULT_ROUNDS, MAX_SECONDS, DEFAULT_SECONDS, MIN_SIZE_MIB, MAX_SIZE_MIB,
                DEFAULT_SIZE_MIB, DEFAULT_RINGS, caseNames(BenchCase.acceptanceCases()), QUICK_ROUNDS, QUICK_SECONDS, QUICK_SIZE_MIB);
    }

    private static final List<String> FLAGS = List.of("--rounds", "--seconds", "--size-mib", "--dir", "--rings", "--cases", "--quick", "--help");

    public static Parsed parse(String... args) {
        Integer rounds = null;
        Integer seconds = null;
        Long sizeMib = null;
        Path dir = null;
        Integer rings = null;
        List<BenchCase> cases = null;
        boolean quick = false;
        Set<String> seen = new HashSet<>();
        for (String arg : args) {
            if (arg.equals("-h") || arg.equals("--help")) {
                return new Help(); // --help wins over every mistake around it
            }
        }
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String flag = arg;
            String value = null;
            int equals = arg.indexOf('=');
            if (arg.startsWith("--") && equals > 0) {
                flag = arg.substring(0, equals);
                value = arg.substring(equals + 1);
            }
            if (flag.equals("-h") || flag.equals("--help")) {
                return new Help();
            }
            if (!flag.startsWith("-")) {
                return new Invalid("unexpected argument '" + arg + "'; every setting is a flag (" + String.join(" ", FLAGS) + ")");
            }
            if (!FLAGS.contains(flag)) {
                return new Invalid("unknown flag '" + flag + "'; the flags are " + String.join(" ", FLAGS));
            }
            if (!seen.add(flag)) {
                return new Invalid(flag + " is given twice");
            }
            if (flag.equals("--quick")) {
                if (value != null) {
                    return new Invalid("--quick takes no value, was given '" + value + "'");
                }
                quick = true;
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                    return new Invalid(flag + " needs a value");
                }
                value = args[++i];
            }
            try {
                switch (flag) {
                    case "--rounds" -> rounds = (int) number(flag, value, 1, MAX_ROUNDS);
                    case "--seconds" -> seconds = (int) number(flag, value, 1, MAX_SECONDS);
                    case "--size-mib" -> sizeMib = number(flag, value, MIN_SIZE_MIB, MAX_SIZE_MIB);
                    case "--rings" -> rings = (int) number(flag, value, 1, 64);
                    case "--cases" -> cases = cases(value);
                    case "--dir" -> {
                        if (value.isBlank()) {
                            return new Invalid("--dir needs a directory path, was empty");
                        }
                        dir = Path.of(value);
                    }
                    default -> throw new IllegalStateException("flag " + flag + " is listed but not handled");
                }
            } catch (IllegalArgumentException e) {
                return new Invalid(e.getMessage());
            }
        }
        return new Run(new EngineVsFioOptions(
                rounds != null ? rounds : quick ? QUICK_ROUNDS : DEFAULT_ROUNDS,
                seconds != null ? seconds : quick ? QUICK_SECONDS : DEFAULT_SECONDS,
                sizeMib != null ? sizeMib : quick ? QUICK_SIZE_MIB : DEFAULT_SIZE_MIB,
                dir,
                rings != null ? rings : DEFAULT_RINGS,
                cases != null ? cases : BenchCase.acceptanceCases(),
                quick));
    }

    static String caseNames(List<BenchCase> cases) {
        return String.join(",", cases.stream().map(BenchCase::name).toList());
    }

    private static List<BenchCase> cases(String value) {
        List<BenchCase> chosen = new java.util.ArrayList<>();
        for (String name : value.split(",")) {
            String wanted = name.strip();
            BenchCase found = BenchCase.acceptanceCases().stream().filter(c -> c.name().equals(wanted)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--cases: no case named '" + wanted + "'; the cases are "
                            + caseNames(BenchCase.acceptanceCases())));
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

    public long sizeBytes() {
        return sizeMib << 20;
    }
}
