package tierlab.experiments.run;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tierlab.engine.persist.CallerPaths;

/**
 * {@code tierlab bench live FILE}: {@link LiveBench} on the command line. A subcommand of
 * {@code bench}, added by the command line's {@code Main} (the bench command's package sits below
 * this one, which runs experiments). A live experiment's L2 read and write rates beside the
 * engine's closed loop at the same pattern.
 */
@Command(
        name = "live",
        mixinStandardHelpOptions = true,
        description = {
            "Runs a live experiment (its first run) and then the storage engine's own closed loop at the same"
                    + " pattern (sequential operations of the live run's mean size, as many in flight as it had on"
                    + " average while busy, through the same storage port, on the same file system), round after round. Prints"
                    + " each direction's live rate (bytes / time with an operation in flight), the engine's rate and"
                    + " live/engine, then their medians and ranges. Needs nothing but tierlab (no fio)."})
public final class BenchLiveCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "A live experiment file, e.g. experiments/catalog/live-throughput.yaml.")
    private Path file;

    @Option(names = "--rounds", paramLabel = "N", description = "Live run + engine pairs [default: 3].")
    private int rounds = 3;

    @Option(names = "--engine-seconds", paramLabel = "S", description = "Seconds of each engine run [default: 3].")
    private double engineSeconds = 3;

    @Option(names = "--dir", paramLabel = "PATH",
            description = "Folder for the live run's L2 file and the engine's test file; must support O_DIRECT [default: target/bench/live].")
    private Path dir;

    @Override
    public Integer call() {
        if (rounds < 1 || rounds > 100) {
            throw new ParameterException(spec.commandLine(), "--rounds: must be between 1 and 100, was " + rounds);
        }
        if (!(engineSeconds >= 0.1 && engineSeconds <= 600)) {
            throw new ParameterException(spec.commandLine(), "--engine-seconds: must be between 0.1 and 600, was " + engineSeconds);
        }
        Path folder = CallerPaths.resolve(dir == null ? Path.of("target", "bench", "live") : dir);
        return LiveBench.run(new LiveBench.Options(CallerPaths.resolve(file), rounds, engineSeconds, folder), spec.commandLine().getOut());
    }
}
