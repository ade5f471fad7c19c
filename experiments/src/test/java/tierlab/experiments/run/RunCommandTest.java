package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;

/** {@code tierlab run} end to end on small files: every output, determinism, parallel = sequential, hybrid. */
class RunCommandTest {

    @TempDir
    Path folder;

    static CommandRun run(String... args) {
        return CommandRun.of(Main.newCommandLine(), args);
    }

    /** 12 prompts of about 2,000 tokens (3.4 GiB of KV), two passes, two policies × two L1 sizes × two seeds. */
    static final String SMALL = """
            name: small
            description: a small cold/warm sweep
            workload:
              type: long-prefill
              prompts: 12
              promptTokens: 2000
              promptSpreadTokens: 300
            store:
              l2CapacityGiB: 16
              promotionsAsHeadroom: false
            scheduler:
              concurrency: 4
              prefetchMaxRequests: 0
              # The warm pass is to load from the store: the GPU prefix cache would serve it all.
              prefixCaching: false
            seeds: [1, 2]
            sweep:
              store.policy: [lru, bip]
              store.l1CapacityGiB: [2, 4]
            charts:
              - {type: line, file: hit, x: store.l1CapacityGiB, y: warm.l1HitRatio, series: store.policy}
              - {type: bar, file: bars, x: store.policy, y: warm.elapsedS, aggregate: mean}
              - {type: heatmap, file: heat, x: store.policy, y: store.l1CapacityGiB, z: warm.l1HitRatio}
              - {type: cdf, file: ttft, pass: warm, series: store.policy, where: {store.l1CapacityGiB: 2}}
              - {type: timeseries, file: l1, y: l1UsedGiB, series: store.policy, where: {store.l1CapacityGiB: 4}}
            reference:
              source: nothing measured
              rows:
                - {label: warm hit lru at 2 GiB, reference: "0", metric: warm.l1HitRatio, where: {store.policy: lru, store.l1CapacityGiB: 2}}
              discussion: the discussion text
            """;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(folder.resolve(name), text);
    }

    @Test
    void writesEveryOutputOnceWithOneRowPerRun() throws IOException {
        Path file = write("small.yaml", SMALL);
        Path out = folder.resolve("out/small");
        CommandRun run = run("run", file.toString(), "--out", out.toString(), "--quiet");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("", run.err());

        for (String name : List.of("results.csv", "requests.csv", "timeseries.csv", "summary.json", "run.json",
                "report.md", "hit.png", "hit.svg", "bars.png", "heat.png", "ttft.png", "l1.png", "l1.svg")) {
            assertTrue(Files.size(out.resolve(name)) > 0, name);
        }
        byte[] png = Files.readAllBytes(out.resolve("heat.png"));
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, Arrays.copyOf(png, 4));

        Table results = Table.read().csv(out.resolve("results.csv").toFile());
        assertEquals(8, results.rowCount(), "2 policies x 2 sizes x 2 seeds");
        assertTrue(results.columnNames().containsAll(List.of("store.policy", "store.l1CapacityGiB", "seed",
                "cold.elapsedS", "warm.l1HitRatio", "warm.ttftP99Ms", "run.unfinished", "decisionTraceHash", "failure")));
        for (int row = 0; row < results.rowCount(); row++) {
            assertEquals(12.0, results.numberColumn("warm.requests").getDouble(row), "every warm request finished");
            assertEquals(0.0, results.numberColumn("run.unfinished").getDouble(row));
            assertEquals(0.0, results.numberColumn("run.mismatches").getDouble(row));
        }
        // The warm pass re-reads its prompts: with L1 at 4 GiB (more than the 3.4 GiB of KV) every load is an L1 hit.
        Table big = results.where(results.numberColumn("store.l1CapacityGiB").isEqualTo(4));
        for (int row = 0; row < big.rowCount(); row++) {
            assertEquals(1.0, big.numberColumn("warm.l1HitRatio").getDouble(row), 1e-9);
        }
        Table requests = Table.read().csv(out.resolve("requests.csv").toFile());
        assertEquals(8 * 24, requests.rowCount(), "one TTFT per request, two passes of 12");

        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals(4, summary.get("groups").size(), "one group per sweep cell");
        assertEquals(2, summary.get("groups").get(0).get("metrics").get("warm.l1HitRatio").get("n").asInt());
        JsonNode info = new ObjectMapper().readTree(out.resolve("run.json").toFile());
        assertEquals(8, info.get("runs").size());
        assertEquals(64, info.get("configSha256").asText().length());
        assertTrue(info.get("jvm").get("version").asText().startsWith("25"));

        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("![warm.l1HitRatio by store.l1CapacityGiB](hit.png)"), report);
        assertTrue(report.contains("the discussion text"));
        assertTrue(report.contains("| warm hit lru at 2 GiB | 0 |"));
        assertTrue(report.contains("./tierlab run " + file));
    }

    @Test
    void theSameFileGivesTheSameTablesAndAnotherSeedOtherDecisions() throws IOException {
        Path file = write("small.yaml", SMALL);
        Path first = folder.resolve("a");
        Path second = folder.resolve("b");
        assertEquals(0, run("run", file.toString(), "--out", first.toString(), "-q", "--jobs", "2").exitCode());
        assertEquals(0, run("run", file.toString(), "--out", second.toString(), "-q", "--jobs", "1").exitCode());
        for (String name : List.of("results.csv", "requests.csv", "timeseries.csv", "summary.json")) {
            assertEquals(Files.readString(first.resolve(name)), Files.readString(second.resolve(name)),
                    name + ": parallel and sequential runs of one file agree byte for byte");
        }
        Table results = Table.read().csv(first.resolve("results.csv").toFile());
        // Runs 0 and 1 are the same cell at seeds 1 and 2: the prompt lengths differ, so do the decisions.
        assertNotEquals(results.stringColumn("decisionTraceHash").get(0), results.stringColumn("decisionTraceHash").get(1));
    }

    @Test
    void hybridRunsMoveRealBytesWithoutMismatchAndRepeatExactly() throws IOException {
        Path file = write("hybrid.yaml", """
                name: hybrid-small
                mode: hybrid
                workload: {type: long-prefill, model: tiny, prompts: 10, promptTokens: 200, promptSpreadTokens: 40}
                store: {l1CapacityGiB: 0.0005, l2CapacityGiB: 0.01}
                # prefixCaching off: the warm pass loads real bytes instead of finding them in the GPU prefix cache.
                scheduler: {concurrency: 4, prefixCaching: false}
                faults: {reorderWindowMs: 3}
                seeds: [7]
                """);
        Path first = folder.resolve("h1");
        Path second = folder.resolve("h2");
        CommandRun run = run("run", file.toString(), "--out", first.toString(), "-q");
        assertEquals(0, run.exitCode(), run.err() + run.out());
        assertEquals(0, run("run", file.toString(), "--out", second.toString(), "-q").exitCode());
        Table results = Table.read().csv(first.resolve("results.csv").toFile());
        assertTrue(results.numberColumn("run.realMatches").getDouble(0) > 0, "loads were checked on real bytes");
        assertEquals(0.0, results.numberColumn("run.realMismatches").getDouble(0));
        assertTrue(results.numberColumn("warm.l2ReadOps").getDouble(0) > 0, "the small L1 sends the warm pass to L2");
        assertEquals(Files.readString(first.resolve("results.csv")), Files.readString(second.resolve("results.csv")),
                "hybrid mode: the simulator orders the real completions, so the run repeats exactly");
        try (var leftovers = Files.list(folder)) {
            assertFalse(leftovers.anyMatch(p -> p.getFileName().toString().contains("scratch")), "scratch L2 files are removed");
        }
    }

    @Test
    void liveRunsServeVerifiedBytesOnTheWallClock() throws IOException {
        Path file = write("live.yaml", """
                name: live-small
                mode: live
                workload: {type: long-prefill, model: tiny, prompts: 8, promptTokens: 160, promptSpreadTokens: 32}
                store: {l1CapacityGiB: 0.0005, l2CapacityGiB: 0.01}
                scheduler: {concurrency: 4}
                """);
        Path out = folder.resolve("live");
        CommandRun run = run("run", file.toString(), "--out", out.toString(), "-q");
        assertEquals(0, run.exitCode(), run.err() + run.out());
        Table results = Table.read().csv(out.resolve("results.csv").toFile());
        assertEquals(8.0, results.numberColumn("warm.requests").getDouble(0));
        assertTrue(results.numberColumn("run.realMatches").getDouble(0) > 0, "live loads are checked byte for byte");
        assertEquals(0.0, results.numberColumn("run.realMismatches").getDouble(0));
        assertEquals("", results.column("failure").getString(0));
        assertTrue(results.numberColumn("warm.elapsedS").getDouble(0) > 0, "measured on the wall clock");
    }
}
