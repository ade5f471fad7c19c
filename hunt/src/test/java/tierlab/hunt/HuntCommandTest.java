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
    void anOfflineOrUnknownPolicyIsOneClearMessageAndExitTwo() {
        CommandRun run = run("--policies", "lru,belady", "--minutes", "0.01");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("--policies: 'belady' is not an online policy of the registry"), run.err());
        assertEquals("", run.out());
    }

    @Test
    void aShortHuntOverNamedPoliciesSaysWhichAndPasses() {
        CommandRun run = run("--policies", "2q,w-tinylfu", "--minutes", "0.01", "--out", dir.toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("policies: 2q,w-tinylfu"), run.out());
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

    /** {@code --minutes Infinity} (or 1e300) overflowed the deadline and exited 0 after 0 schedules. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"Infinity", "1e300", "NaN", "-1", "0", "10081"})
    void aDurationThatIsNotAFiniteWeekAtMostIsRefusedInOneLine(String minutes) {
        long start = System.nanoTime();
        CommandRun run = run("--minutes", minutes);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(2, run.exitCode(), run.out());
        assertEquals("hunt: --minutes must be more than 0 and at most 10080 (a week), was " + Double.parseDouble(minutes),
                run.err().strip());
        assertEquals("", run.out(), "no hunt started");
        assertTrue(tookMs < 1_000, tookMs + " ms");
    }

    @Test
    void aShortHuntStillRunsAtLeastOneRound() {
        CommandRun run = run("--minutes", "1e-12", "--out", dir.resolve("out").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("rounds 1;"), "one round, not a pass over 0 schedules: " + run.out());
    }

    /** A replay file with 10^8 chains ran 108 s and ended in an OutOfMemoryError trace. */
    @Test
    void aReplayFileWithAHugeKeySpaceIsRefusedBeforeItIsBuilt() throws IOException {
        Path file = dir.resolve("huge.json");
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("replays/R1-stale-promotion.json")) {
            Files.writeString(file, new String(in.readAllBytes()).replace("\"chainCount\" : 3", "\"chainCount\" : 100000000"));
        }
        long start = System.nanoTime();
        CommandRun run = run("--replay", file.toString());
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(2, run.exitCode(), run.out());
        assertTrue(run.err().contains("huge.json") && run.err().contains("chainCount × chainBlocks (keys) is 100,000,000")
                && run.err().contains("limit of 1,000,000"), run.err());
        assertTrue(tookMs < 2_000, "refused in " + tookMs + " ms");
        System.out.printf("replay of 10^8 chains refused in %d ms%n", tookMs);
    }

    @Test
    void aReplayFileAboveSixteenMiBIsRefusedByItsSize() throws IOException {
        Path file = dir.resolve("big.json");
        Files.writeString(file, "{\"format\": 1, \"note\": \"" + "x".repeat(20 << 20) + "\"}");
        long start = System.nanoTime();
        CommandRun run = run("--replay", file.toString());
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(2, run.exitCode(), run.out());
        assertTrue(run.err().contains("a replay file is at most 16,777,216 bytes (16 MiB)"), run.err());
        assertTrue(tookMs < 1_000, "refused in " + tookMs + " ms");
    }
}
