package tierlab.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tierlab.engine.persist.CallerPaths;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;

/**
 * Every {@code --help} prints help and exits 0 (the launcher's own commands and
 * every picocli command), and a relative experiment path is the caller's, not the repository's.
 */
class HelpAndPathsTest {

    @TempDir
    Path folder;

    @Test
    void everyLauncherCommandsHelpExitsZero() throws IOException, InterruptedException {
        List<List<String>> commands = List.of(List.of("build", "--help"), List.of("test", "--help"), List.of("bench", "--help"),
                List.of("bench", "model", "--help"), List.of("bench", "sim", "--help"), List.of("bench", "replay", "--help"),
                List.of("notebooks", "--help"), List.of("help"));
        for (List<String> args : commands) {
            List<String> command = new ArrayList<>(List.of("bash", "../tierlab"));
            command.addAll(args);
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), args + " did not end");
            System.out.println(String.join(" ", args) + ": exit " + process.exitValue() + ", " + output.lines().count()
                    + " lines, first: " + output.lines().findFirst().orElse(""));
            assertEquals(0, process.exitValue(), args + ": " + output);
            assertTrue(output.startsWith("usage: ./tierlab"), args + ": " + output);
        }
    }

    @Test
    void everyPicocliCommandsHelpExitsZero() {
        List<List<String>> paths = new ArrayList<>();
        collect(Main.newCommandLine(), new ArrayList<>(), paths);
        assertTrue(paths.size() >= 7, "commands found: " + paths);
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine commandLine = Main.newCommandLine();
            commandLine.setOut(new PrintWriter(out));
            commandLine.setErr(new PrintWriter(err));
            int code = commandLine.execute(args.toArray(String[]::new));
            System.out.println("tierlab " + String.join(" ", args) + ": exit " + code);
            assertEquals(0, code, args + ": " + err);
            assertTrue(out.toString().startsWith("Usage: tierlab"), args + ": " + out);
        }
    }

    private static void collect(CommandLine commandLine, List<String> path, List<List<String>> paths) {
        paths.add(List.copyOf(path));
        commandLine.getSubcommands().forEach((name, sub) -> {
            List<String> longer = new ArrayList<>(path);
            longer.add(name);
            collect(sub, longer, paths);
        });
    }

    @Test
    void aRelativeExperimentPathIsTheCallersFolders() throws IOException {
        Path caller = Files.createDirectories(folder.resolve("elsewhere"));
        Files.writeString(caller.resolve("mine.yaml"), """
                name: mine
                """ + TinyExperiments.syntheticWorkload(10) + """
                store:
                  l1CapacityGiB: 0.0001
                  l2CapacityGiB: 0.01
                seeds: [1]
                """);
        CommandRun run = runFrom(caller, "run", "mine.yaml", "--out", "results/mine", "-q");
        System.out.println("from " + caller + ": exit " + run.exitCode() + "; " + run.out().strip().lines().reduce((a, b) -> b).orElse(""));
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(Files.isRegularFile(caller.resolve("results/mine/results.csv")), run.out());
        assertFalse(Files.exists(Path.of("results/mine")), "written below the working folder instead");
    }

    /** The hunt's --replay and --out are the caller's too (the default out/hunt stays in the repository). */
    @Test
    void theHuntsReplayAndOutPathsAreTheCallersFolders() throws IOException {
        Path caller = Files.createDirectories(folder.resolve("hunter"));
        Path replays = Path.of("").toAbsolutePath().getParent().resolve("hunt/src/test/resources/replays/fixed");
        Path saved;
        try (var files = Files.list(replays)) {
            saved = files.filter(f -> f.toString().endsWith(".json")).sorted().findFirst().orElseThrow();
        }
        Files.copy(saved, caller.resolve("failure.json"));
        CommandRun run = runFrom(caller, "hunt", "--replay", "failure.json");
        assertFalse(run.err().contains("NoSuchFile") || run.err().contains("no such file"),
                "the replay file was looked for below the working folder: " + run.err());
        assertTrue(run.exitCode() == 0 || run.exitCode() == 1, "exit " + run.exitCode() + ": " + run.err());
        assertTrue((run.out() + run.err()).contains("failure.json"), run.out() + " / " + run.err());
    }

    /** Runs the command line as the launcher does when it is called from {@code caller}, then puts the caller property back. */
    private static CommandRun runFrom(Path caller, String... args) {
        String before = System.getProperty(CallerPaths.CALLER_DIR_PROPERTY);
        System.setProperty(CallerPaths.CALLER_DIR_PROPERTY, caller.toString());
        try {
            return CommandRun.of(Main.newCommandLine(), args);
        } finally {
            if (before == null) {
                System.clearProperty(CallerPaths.CALLER_DIR_PROPERTY);
            } else {
                System.setProperty(CallerPaths.CALLER_DIR_PROPERTY, before);
            }
        }
    }
}
