package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tierlab.hunt.testkit.CommandRun;

/** The command line of the deep profile: replay, bad input, and a short hunt that finds and saves a failure. */
class HuntCommandTest {
    @TempDir
    Path dir;

    static CommandRun run(String... args) {
        return CommandRun.of(new CommandLine(new HuntCommand()), args);
    }

    @Test
    void replayOfASavedFailureReproducesItAndExitsOne() throws IOException {
        Path file = dir.resolve("r1.json");
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("replays/R1-stale-promotion.json")) {
            Files.copy(in, file);
        }
        CommandRun run = run("--replay", file.toString());
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.out().contains("reproduced: I6"), run.out());
    }

    @Test
    void anUnknownRaceIsOneClearMessageAndExitTwo() {
        CommandRun run = run("--ablate", "R14", "--minutes", "0.01");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("--ablate: unknown race 'R14'"), run.err());
        assertEquals("", run.out());
    }

    @Test
    void aMissingReplayFileIsOneClearMessageAndExitTwo() {
        CommandRun run = run("--replay", dir.resolve("nope.json").toString());
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("cannot read replay file") && run.err().contains("nope.json"), run.err());
    }

    @Test
    void aReplayFileWithABadConfigurationNamesTheField() throws IOException {
        Path file = dir.resolve("bad.json");
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("replays/R1-stale-promotion.json")) {
            Files.writeString(file, new String(in.readAllBytes()).replace("\"chainCount\" : 3", "\"chainCount\" : 0"));
        }
        CommandRun run = run("--replay", file.toString());
        assertEquals(2, run.exitCode(), run.out());
        assertTrue(run.err().contains("bad.json") && run.err().contains("chainCount must be positive"), run.err());
    }

    @Test
    void aShortHuntWithASwitchOffFindsItAndWritesAReplayableFile() throws IOException {
        Path out = dir.resolve("out");
        CommandRun run = run("--minutes", "0.02", "--ablate", "R12", "--seed", "7", "--out", out.toString());
        assertEquals(1, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("hunt finished:") && run.out().contains("FAIL"), run.out());
        try (Stream<Path> files = Files.list(out)) {
            Path first = files.filter(p -> p.toString().endsWith(".json")).findFirst().orElseThrow();
            assertTrue(ReplayFile.read(first).reproduces(), first.toString());
        }
    }
}
