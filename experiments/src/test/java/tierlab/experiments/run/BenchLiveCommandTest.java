package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;
import tierlab.model.testkit.TestDirectories;

/** tierlab bench live: a live run beside the engine's closed loop, and its refusals. */
class BenchLiveCommandTest {

    private static final String LIVE = """
            name: bench-live-small
            mode: live
            workload: {type: long-prefill, model: tiny, prompts: 8, promptTokens: 160, promptSpreadTokens: 32}
            store: {l1CapacityGiB: 0.0005, l2CapacityGiB: 0.01}
            # prefixCaching off: the warm pass reads L2 instead of finding its prompts in the GPU prefix cache.
            scheduler: {concurrency: 4, prefixCaching: false}
            """;

    @Test
    void printsBothDirectionsAndTheirRatiosAndLeavesNoFiles() throws IOException {
        Path dir = TestDirectories.underTarget("bench-live");
        try {
            Path file = dir.resolve("live.yaml");
            Files.writeString(file, LIVE);
            Path work = dir.resolve("work");
            CommandRun run = CommandRun.of(Main.newCommandLine(), "bench", "live", file.toString(), "--rounds", "2",
                    "--engine-seconds", "0.2", "--dir", work.toString());
            assertEquals(0, run.exitCode(), run.err() + run.out());
            Matcher ratio = Pattern.compile("writes: live/engine median ([0-9.]+) \\(range [0-9.]+-[0-9.]+ over 2 rounds\\)")
                    .matcher(run.out());
            assertTrue(ratio.find(), run.out());
            assertTrue(Double.parseDouble(ratio.group(1)) > 0, run.out());
            // The small L1 sends the warm pass to L2, so there are reads to compare too.
            assertTrue(Pattern.compile("reads : live/engine median [0-9.]+ \\(range").matcher(run.out()).find(), run.out());
            assertTrue(run.out().contains("engine write-"), run.out());
            try (var left = Files.list(work)) {
                assertFalse(left.anyMatch(Files::isRegularFile), "the engine's test file is deleted");
            }
        } finally {
            TestDirectories.deleteRecursively(dir);
        }
    }

    @Test
    void aSimExperimentIsOneLineNamingTheMode() throws IOException {
        Path dir = TestDirectories.underTarget("bench-live-sim");
        try {
            Path file = dir.resolve("sim.yaml");
            Files.writeString(file, LIVE.replace("mode: live", "mode: sim"));
            CommandRun run = CommandRun.of(Main.newCommandLine(), "bench", "live", file.toString(), "--dir", dir.toString());
            assertEquals(1, run.exitCode(), run.err() + run.out());
            assertTrue(run.err().contains("mode is 'sim'; bench live needs an experiment with mode: live"), run.err());
            assertEquals(1, run.err().strip().lines().count(), run.err());
        } finally {
            TestDirectories.deleteRecursively(dir);
        }
    }

    @Test
    void badRoundsAreRefusedBeforeAnythingRuns() {
        CommandRun run = CommandRun.of(Main.newCommandLine(), "bench", "live", "no-such.yaml", "--rounds", "0");
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(run.err().contains("--rounds: must be between 1 and 100, was 0"), run.err());
    }
}
