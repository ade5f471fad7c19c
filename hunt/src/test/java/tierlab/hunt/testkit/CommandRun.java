package tierlab.hunt.testkit;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * What one run of a command line printed and returned, captured in memory: the tests of every
 * command ({@code tierlab hunt}, {@code run}, {@code replay}, ...) check exit codes and the one
 * clear line a bad input gives without a process or the console.
 *
 * @param exitCode the exit code picocli returned
 * @param out      everything the command wrote to its standard output
 * @param err      everything the command wrote to its standard error
 */
public record CommandRun(int exitCode, String out, String err) {

    /** Executes {@code commandLine} with {@code args}, capturing both streams. */
    public static CommandRun of(CommandLine commandLine, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exitCode = commandLine.execute(args);
        return new CommandRun(exitCode, out.toString(), err.toString());
    }
}
