package tierlab.bench;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * What the flags of {@code ./tierlab bench engine} ask for; {@link EngineVsFioFlags} declares the
 * flags (picocli) and {@link #parse} reads them for {@link EngineVsFio#main}, one clear sentence per mistake.
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
    static final int MAX_RINGS = 64;

    /** What the command line asked for. */
    public sealed interface Parsed permits Run, Help, Invalid {}

    public record Run(EngineVsFioOptions options) implements Parsed {}

    public record Help() implements Parsed {}

    /** A mistake, as one sentence naming the flag and the value. */
    public record Invalid(String message) implements Parsed {}

    /** The flags' help, as picocli writes it from {@link EngineVsFioFlags}. */
    public static String usage() {
        return commandLine().getUsageMessage();
    }

    private static final List<String> FLAGS = List.of("--rounds", "--seconds", "--size-mib", "--dir", "--rings", "--cases", "--quick", "--help");

    /** {@link EngineVsFio#main}'s command: the shared flags and picocli's --help. */
    @Command(name = "tierlab bench engine", mixinStandardHelpOptions = true, description = EngineVsFioFlags.DESCRIPTION)
    static final class Standalone {
        @Mixin
        EngineVsFioFlags flags = new EngineVsFioFlags();
    }

    private static CommandLine commandLine() {
        return new CommandLine(new Standalone());
    }

    /**
     * The flags read by picocli; its mistakes (an unknown flag, a value missing, a flag twice) are
     * worded as the engine benchmark has always said them, the values checked by {@link EngineVsFioFlags#options()}.
     */
    public static Parsed parse(String... args) {
        Standalone command = new Standalone();
        CommandLine line = new CommandLine(command);
        try {
            line.parseArgs(args);
        } catch (UnmatchedArgumentException e) {
            String first = e.getUnmatched().getFirst();
            if (!first.startsWith("-")) {
                return new Invalid("unexpected argument '" + first + "'; every setting is a flag (" + String.join(" ", FLAGS) + ")");
            }
            int equals = first.indexOf('=');
            String flag = first.startsWith("--") && equals > 0 ? first.substring(0, equals) : first;
            return new Invalid("unknown flag '" + flag + "'; the flags are " + String.join(" ", FLAGS));
        } catch (MissingParameterException e) {
            return new Invalid(flagName(e.getMissing().getFirst()) + " needs a value");
        } catch (OverwrittenOptionException e) {
            return new Invalid(flagName(e.getOverwritten()) + " is given twice");
        } catch (ParameterException e) {
            // The one flag without a value: --quick=VALUE is the only way left to get here.
            if (e.getArgSpec() instanceof OptionSpec option && option.longestName().equals("--quick")) {
                return new Invalid("--quick takes no value, was given '" + e.getValue() + "'");
            }
            return new Invalid(e.getMessage());
        }
        if (line.isUsageHelpRequested() || line.isVersionHelpRequested()) {
            return new Help(); // --help wins over every bad value around it
        }
        try {
            return new Run(command.flags.options());
        } catch (IllegalArgumentException e) {
            return new Invalid(e.getMessage());
        }
    }

    private static String flagName(ArgSpec spec) {
        return spec instanceof OptionSpec option ? option.longestName() : spec.paramLabel();
    }

    static String caseNames(List<BenchCase> cases) {
        return String.join(",", cases.stream().map(BenchCase::name).toList());
    }

    public long sizeBytes() {
        return sizeMib << 20;
    }
}
