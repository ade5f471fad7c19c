package tierlab.experiments;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tierlab.bench.EngineVsFio;
import tierlab.bench.EngineVsFioOptions;

/**
 * {@code tierlab bench}: benchmarks that print a ratio against a reference run beside them. The JMH
 * benchmarks of the model and the simulator kernel live in test sources, so the launcher runs them
 * ({@code ./tierlab bench model|sim}); the engine comparison is a subcommand here.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Benchmarks. 'bench engine' compares the io_uring engine with fio on one O_DIRECT file;"
                    + " 'bench pcie' measures host<->GPU copies through the CUDA binding;"
                    + " 'bench live FILE' holds a live experiment's L2 rates against the engine's closed loop"
                    + " ('bench live' and 'bench pcie' are added by the command line's Main: they live with the experiments"
                    + " and the calibration they run).",
            "The JMH benchmarks run through the launcher: ./tierlab bench model|sim [jmh args]."},
        subcommands = {BenchCommand.Engine.class})
public final class BenchCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "name a benchmark: engine, pcie or live (or, through the launcher, model, sim or replay)");
    }

    /**
     * The engine against fio, interleaved round by round; the launcher installs fio first when it is
     * missing and it can, and without fio the engine side runs alone.
     */
    @Command(
            name = "engine",
            mixinStandardHelpOptions = true,
            description = {
                "The io_uring engine and fio (ioengine=io_uring, direct=1, fixedbufs) on the same O_DIRECT file,"
                        + " interleaved round by round: 128 KiB random reads and writes at queue depth 1, 8 and 32,"
                        + " 1 MiB sequential reads and writes at queue depth 8. Prints median MiB/s, the median and"
                        + " range of the per-round ratios engine/fio, and io_uring_enter calls per read with and"
                        + " without batching; writes target/bench/engine-vs-fio.{csv,md} and engine-vs-fio-rounds.csv."})
    static final class Engine implements Callable<Integer> {

        @Spec
        private CommandSpec spec;

        @Option(names = "--rounds", paramLabel = "N", description = "Engine/fio pairs per case [default: 5].")
        private Integer rounds;

        @Option(names = "--seconds", paramLabel = "N", description = "Seconds per run [default: 5].")
        private Integer seconds;

        @Option(names = "--size-mib", paramLabel = "N", description = "Test file size in MiB [default: 1024].")
        private Long sizeMib;

        @Option(names = "--dir", paramLabel = "PATH",
                description = "Folder for the test file; must support O_DIRECT [default: target/bench, else /tmp].")
        private Path dir;

        @Option(names = "--rings", paramLabel = "N", description = "io_uring rings of the engine [default: 1].")
        private Integer rings;

        @Option(names = "--cases", paramLabel = "A,B", split = ",", description = "Run only these cases [default: all].")
        private List<String> cases;

        @Option(names = "--quick", description = "Smoke test: 1 round of 2 s runs on a 256 MiB file (flags given too win).")
        private boolean quick;

        @Override
        public Integer call() {
            // The engine module validates the values (ranges, case names) in one place; picocli has
            // already checked the flags and their types.
            List<String> args = new ArrayList<>();
            add(args, "--rounds", rounds);
            add(args, "--seconds", seconds);
            add(args, "--size-mib", sizeMib);
            add(args, "--dir", dir);
            add(args, "--rings", rings);
            if (cases != null) {
                add(args, "--cases", String.join(",", cases));
            }
            if (quick) {
                args.add("--quick");
            }
            return switch (EngineVsFioOptions.parse(args.toArray(String[]::new))) {
                case EngineVsFioOptions.Invalid invalid -> throw new ParameterException(spec.commandLine(), invalid.message());
                case EngineVsFioOptions.Help help -> {
                    spec.commandLine().usage(spec.commandLine().getOut());
                    yield 0;
                }
                case EngineVsFioOptions.Run run -> EngineVsFio.run(run.options(), System.out, System.err);
            };
        }

        private static void add(List<String> args, String flag, Object value) {
            if (value != null) {
                args.add(flag);
                args.add(value.toString());
            }
        }
    }
}
