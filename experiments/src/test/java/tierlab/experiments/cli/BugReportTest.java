package tierlab.experiments.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import tierlab.experiments.CommandException;
import tierlab.hunt.testkit.CommandRun;

/**
 * A user error is one line; a bug keeps its whole stack trace, on stderr and in a log file that
 * the first line names; both exit with 1.
 */
class BugReportTest {

    @TempDir
    Path folder;

    /** A command that fails the way it is told: a user error or a defect. */
    @Command(name = "fail")
    static final class FailCommand implements Callable<Integer> {
        @CommandLine.Parameters(index = "0")
        String how;

        @Override
        public Integer call() {
            if (how.equals("user")) {
                throw new CommandException("experiment.yaml: line 3: store.l1CapacityGiB must be positive");
            }
            String missing = null;
            return missing.length();
        }
    }

    private CommandRun run(String how) {
        CommandLine commandLine = Main.newCommandLine(folder.resolve("logs"));
        commandLine.addSubcommand(new FailCommand());
        return CommandRun.of(commandLine, "fail", how);
    }

    @Test
    void aUserErrorIsOneLine() {
        CommandRun run = run("user");
        assertEquals(1, run.exitCode());
        assertEquals("tierlab: experiment.yaml: line 3: store.l1CapacityGiB must be positive\n", run.err());
        assertTrue(Files.notExists(folder.resolve("logs")), "no log for a user error");
    }

    @Test
    void aBugKeepsItsStackTraceOnStderrAndInTheLogItNames() throws IOException {
        CommandRun run = run("bug");
        assertEquals(1, run.exitCode());
        List<String> lines = run.err().lines().toList();
        assertTrue(lines.getFirst().startsWith("tierlab: bug: NullPointerException"), lines.getFirst());
        assertTrue(lines.stream().anyMatch(line -> line.contains("at tierlab.experiments.cli.BugReportTest$FailCommand.call")),
                run.err());
        List<Path> logs;
        try (Stream<Path> files = Files.list(folder.resolve("logs"))) {
            logs = files.toList();
        }
        assertEquals(1, logs.size(), logs.toString());
        assertTrue(lines.getFirst().endsWith("is in " + logs.getFirst() + ")"), lines.getFirst());
        String logged = Files.readString(logs.getFirst());
        assertTrue(logged.startsWith("java.lang.NullPointerException"), logged);
        assertTrue(logged.contains("BugReportTest$FailCommand.call"), logged);
        assertTrue(run.err().endsWith(logged), "stderr carries the same trace as the log");
    }
}
