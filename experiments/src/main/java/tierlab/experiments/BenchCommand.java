package tierlab.experiments;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tierlab.bench.EngineVsFio;
import tierlab.bench.EngineVsFioFlags;
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
    @Command(name = "engine", mixinStandardHelpOptions = true, description = EngineVsFioFlags.DESCRIPTION)
    static final class Engine implements Callable<Integer> {

        @Spec
        private CommandSpec spec;

        @Mixin
        private EngineVsFioFlags flags = new EngineVsFioFlags();

        @Override
        public Integer call() {
            EngineVsFioOptions options;
            try {
                options = flags.options();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            return EngineVsFio.run(options, System.out, System.err);
        }
    }
}
