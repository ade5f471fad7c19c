package tierlab.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;

/**
 * The Spark executor writes what the local executor writes (a remote executor must not change a result): the same file
 * run with {@code --executor spark --master local[2]} and with the local executor on two threads
 * gives byte-identical tables, summary and charts; {@code report.md} differs only in the command
 * and the wall time it quotes, {@code run.json} only in the command, wall times, start time and its
 * {@code executor} field (the decision-trace hashes in it are equal, so every point ran the same
 * model). A point that fails fails in its row in both, and the sweep goes on.
 */
class SparkSweepExecutorTest {

    /** Surefire runs in the module's folder; the catalogue and the trace are beside it. */
    private static final Path QUICKSTART = Path.of("..", "experiments", "catalog", "quickstart.yaml").toAbsolutePath().normalize();
    private static final Path TRACE = Path.of("..", "data", "mooncake_synthetic_trace.jsonl").toAbsolutePath().normalize();

    @TempDir
    Path folder;

    @Test
    void catalogueSweepOnLocal2IsByteIdenticalToTheLocalExecutor() throws IOException {
        Path local = folder.resolve("local");
        Path spark = folder.resolve("spark");
        CommandRun localRun = CommandRun.of(Main.newCommandLine(), "run", QUICKSTART.toString(), "--out", local.toString(),
                "--jobs", "2", "--quiet");
        CommandRun sparkRun = CommandRun.of(Main.newCommandLine(), "run", QUICKSTART.toString(), "--out", spark.toString(),
                "--executor", "spark", "--master", "local[2]");
        assertEquals(0, localRun.exitCode(), localRun.err());
        assertEquals(0, sparkRun.exitCode(), sparkRun.err());
        // Progress shows on the driver: one line per finished point, the last one counting all 15.
        assertTrue(sparkRun.out().contains("[15/15] "), sparkRun.out());
        assertTrue(sparkRun.out().contains("15 runs in "), sparkRun.out());
        assertSameOutputs(local, spark);
    }

    /**
     * A Mooncake trace slice (the trace reaches the executors as a distributed file, under another
     * name than here) and a grid with points that fail: the failures are rows, as locally.
     */
    @Test
    void traceSliceWithFailingPointsIsByteIdenticalToTheLocalExecutor() throws IOException {
        Path file = Files.writeString(folder.resolve("slice.yaml"), """
                name: slice
                workload:
                  type: mooncake
                  trace: %s
                  blockTokens: 512
                  requestLimit: 120
                  timeScale: 4
                store:
                  l1CapacityGiB: 16
                  l2CapacityGiB: 256
                scheduler:
                  concurrency: 16
                seeds: [1, 2]
                sweep:
                  - {store.policy: [lru, s3-fifo, arc]}
                  # A device that fails every write: after 64 in a row the run ends in a failure (its row says which).
                  - {faults.writeErrorProbability: [1.0]}
                """.formatted(TRACE));
        Path local = folder.resolve("local");
        Path spark = folder.resolve("spark");
        CommandRun localRun = CommandRun.of(Main.newCommandLine(), "run", file.toString(), "--out", local.toString(),
                "--jobs", "2", "--quiet");
        CommandRun sparkRun = CommandRun.of(Main.newCommandLine(), "run", file.toString(), "--out", spark.toString(),
                "--executor", "spark", "--master", "local[2]", "--quiet");
        // Failed runs with every race fix on make the command exit 1 after writing everything, with either executor.
        assertEquals(localRun.exitCode(), sparkRun.exitCode(), sparkRun.err());
        String results = Files.readString(local.resolve("results.csv"), StandardCharsets.UTF_8);
        assertTrue(results.lines().skip(1).anyMatch(line -> !line.endsWith(",")),
                "the grid is meant to hold failing points; none failed:\n" + results);
        assertTrue(results.lines().skip(1).anyMatch(line -> line.endsWith(",")), results);
        assertSameOutputs(local, spark);
    }

    @Test
    void sparkIsRefusedForModesThatUseThisMachinesDevices() throws IOException {
        Path file = Files.writeString(folder.resolve("hybrid.yaml"), """
                name: hybrid
                mode: hybrid
                workload:
                  type: synthetic
                  model: tiny
                  blockTokens: 16
                  tp: 2
                  synthetic:
                    requestCount: 4
                    arrivals: {kind: poisson, ratePerSecond: 400}
                    promptTokens: {kind: uniform, minTokens: 80, maxTokens: 200}
                    outputTokens: {kind: uniform, minTokens: 1, maxTokens: 4}
                store:
                  l1CapacityGiB: 0.0001
                  l2CapacityGiB: 0.01
                """);
        CommandRun run = CommandRun.of(Main.newCommandLine(), "run", file.toString(), "--out", folder.resolve("out").toString(),
                "--executor", "spark", "--master", "local[1]");
        assertEquals(1, run.exitCode());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().contains("sim-mode simulations only"), run.err());
        assertFalse(Files.exists(folder.resolve("out")));

        CommandRun master = CommandRun.of(Main.newCommandLine(), "run", file.toString(), "--master", "local[1]");
        assertEquals(2, master.exitCode());
        assertTrue(master.err().contains("--master: only with --executor spark"), master.err());
    }

    private static void assertSameOutputs(Path local, Path spark) throws IOException {
        List<String> names = names(local);
        assertEquals(names, names(spark), "the same files");
        assertTrue(names.containsAll(List.of("results.csv", "requests.csv", "timeseries.csv", "summary.json", "run.json")), names.toString());
        for (String name : names) {
            byte[] expected = Files.readAllBytes(local.resolve(name));
            byte[] actual = Files.readAllBytes(spark.resolve(name));
            switch (name) {
                case "run.json" -> assertSameRunRecord(expected, actual);
                case "report.md" -> assertEquals(reportWithoutWallTime(expected, local), reportWithoutWallTime(actual, spark));
                default -> assertArrayEquals(expected, actual, name + " differs");
            }
        }
    }

    /** run.json may differ in the command (its --out), the wall times, the start time and the executor it names. */
    private static void assertSameRunRecord(byte[] local, byte[] spark) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode expected = (ObjectNode) mapper.readTree(local);
        ObjectNode actual = (ObjectNode) mapper.readTree(spark);
        assertFalse(expected.has("executor"), "a local run names no executor");
        assertEquals("spark local[2]", actual.path("executor").asText());
        for (ObjectNode record : List.of(expected, actual)) {
            record.remove(List.of("command", "wallSeconds", "startedAt", "executor"));
            for (JsonNode run : record.get("runs")) {
                ((ObjectNode) run).remove("wallSeconds");
            }
        }
        assertEquals(expected.get("decisionTracesSha256"), actual.get("decisionTracesSha256"));
        assertEquals(expected, actual);
    }

    private static String reportWithoutWallTime(byte[] report, Path outFolder) {
        return new String(report, StandardCharsets.UTF_8).replace(outFolder.toString(), "OUT")
                .replaceAll("[0-9.]+ s of wall time", "X s of wall time");
    }

    private static List<String> names(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(path -> path.getFileName().toString()).sorted().toList();
        }
    }
}
