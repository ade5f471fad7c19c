package tierlab.experiments.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tierlab.experiments.BenchCommand;
import tierlab.experiments.CommandException;
import tierlab.experiments.ReplayCommand;
import tierlab.experiments.calibration.BenchPcieCommand;
import tierlab.experiments.run.BenchLiveCommand;

/**
 * The {@code tierlab} command line. Each job is a subcommand class listed in {@code subcommands};
 * adding one means writing the class and naming it there.
 *
 * <p>It sits in a package of its own because it names every subcommand, wherever it lives, and
 * nothing names it: the commands' packages then depend on each other without a cycle.
 *
 * <p>Exit codes: 0 success, 1 the job failed (bad trace, unwritable output, ...), 2 bad command
 * line. Either failure prints one line to stderr, never a stack trace (docs/design.md, Habits).
 * A bug (any other exception or error) exits with 1 too, but keeps its stack trace: on stderr and
 * in a log file under the temporary folder, whose path the first line names.
 */
@Command(
        name = "tierlab",
        mixinStandardHelpOptions = true,
        version = "tierlab 0.1.0-SNAPSHOT",
        description = "Simulation-first toolkit for tiered KV-cache stores.",
        subcommands = {tierlab.experiments.run.RunCommand.class, tierlab.experiments.run.PlotCommand.class,
            ReplayCommand.class, BenchCommand.class, tierlab.experiments.validate.ValidateCommand.class,
            tierlab.experiments.validate.AccuracyCommand.class,
            tierlab.hunt.HuntCommand.class, tierlab.experiments.compute.ComputeCommand.class})
public final class Main implements Runnable {

    @Spec
    private CommandSpec spec;

    /** Where a bug's stack trace is logged when it stops a command: the temporary folder's {@code tierlab-errors/}. */
    static final Path DEFAULT_ERROR_LOG_FOLDER = Path.of(System.getProperty("java.io.tmpdir"), "tierlab-errors");

    public static void main(String[] args) {
        CommandLine commandLine = newCommandLine();
        int exitCode;
        try {
            exitCode = commandLine.execute(args);
        } catch (Error error) {
            // An AssertionError (assertions are on) or another Error: picocli only hands Exceptions to the handler.
            exitCode = reportBug(error, commandLine.getErr(), DEFAULT_ERROR_LOG_FOLDER);
        }
        System.exit(exitCode);
    }

    /** The configured command line; tests use it with their own out/err writers. */
    public static CommandLine newCommandLine() {
        return newCommandLine(DEFAULT_ERROR_LOG_FOLDER);
    }

    /** The command line, logging a bug's stack trace under {@code errorLogFolder} (a test's scratch folder). */
    public static CommandLine newCommandLine(Path errorLogFolder) {
        // Charts are drawn off-screen; without this AWT may look for a display on some machines.
        setIfUnset("java.awt.headless", "true");
        // Tablesaw logs through SLF4J and tierlab ships no SLF4J backend, so its log lines go nowhere
        // either way; naming the no-op provider explicitly keeps SLF4J from printing three lines
        // about the missing backend on every run, while its real warnings and errors still show.
        setIfUnset("slf4j.provider", "org.slf4j.helpers.NOP_FallbackServiceProvider");
        setIfUnset("slf4j.internal.verbosity", "WARN");
        CommandLine commandLine = new CommandLine(new Main());
        // bench pcie is the calibration's PCIe part and bench live runs experiments: each command lives with
        // what it runs and joins bench here.
        commandLine.getSubcommands().get("bench").addSubcommand(new BenchPcieCommand());
        commandLine.getSubcommands().get("bench").addSubcommand(new BenchLiveCommand());
        commandLine.setParameterExceptionHandler(Main::handleParameterException);
        commandLine.setExecutionExceptionHandler((exception, failed, parseResult) -> {
            if (CommandException.isUserError(exception)) {
                PrintWriter err = failed.getErr();
                err.println("tierlab: " + CommandException.describe(exception));
                err.flush();
                return 1;
            }
            return reportBug(exception, failed.getErr(), errorLogFolder);
        });
        return commandLine;
    }

    private static void setIfUnset(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** {@code tierlab} alone: there is no default job, so show what there is. */
    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(),
                "a command is needed: " + String.join(", ", spec.subcommands().keySet()));
    }

    /**
     * A bad flag or value: picocli's message on one line with a pointer to the help of the
     * command that was being parsed, instead of picocli's default of dumping the whole usage text.
     */
    private static int handleParameterException(ParameterException exception, String[] args) {
        CommandLine commandLine = exception.getCommandLine();
        PrintWriter err = commandLine.getErr();
        err.println("tierlab: " + CommandException.oneLine(exception.getMessage())
                + " (see '" + commandLine.getCommandSpec().qualifiedName() + " --help')");
        err.flush();
        return commandLine.getCommandSpec().exitCodeOnInvalidInput();
    }

    /**
     * A bug stopped the command: a first line that says so and where the log is, then the whole
     * stack trace, on stderr and in a new file under {@code logFolder}; exit code 1. Without the
     * trace a null pointer in a policy would read like bad input.
     */
    static int reportBug(Throwable bug, PrintWriter err, Path logFolder) {
        String trace = tierlab.experiments.run.RunFailure.stackTrace(bug);
        String logged;
        try {
            Files.createDirectories(logFolder);
            Path log = Files.createTempFile(logFolder, "tierlab-" + ProcessHandle.current().pid() + "-", ".log");
            Files.writeString(log, trace, StandardCharsets.UTF_8);
            logged = "the stack trace follows and is in " + log;
        } catch (IOException | RuntimeException e) {
            logged = "the stack trace follows (it could not be logged under " + logFolder + ": " + CommandException.describe(e) + ")";
        }
        err.println("tierlab: bug: " + CommandException.describe(bug) + " (a defect in tierlab, not in the input; " + logged + ")");
        err.print(trace);
        err.flush();
        return 1;
    }
}
