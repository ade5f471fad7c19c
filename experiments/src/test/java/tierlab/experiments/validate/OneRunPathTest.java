package tierlab.experiments.validate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.cli.Main;
import tierlab.experiments.run.ExperimentLoader;
import tierlab.experiments.run.RunExecutor;
import tierlab.experiments.run.RunPoint;
import tierlab.experiments.run.RunResult;
import tierlab.hunt.testkit.CommandRun;
import tierlab.metrics.PassMetrics;

/**
 * {@code tierlab validate}'s simulation of a workload and {@code tierlab run}'s sim run of the same
 * workload are one run of one executor: the same pass metrics, the same TTFTs and the same
 * decision hash, with the same-instant grouping on and off, for arrivals at once and for a
 * closed-loop client.
 */
class OneRunPathTest {

    @TempDir
    Path folder;

    /** Two workloads of validation-small.yaml: all prompts arriving at once, and a closed-loop client of 2. */
    private static final List<String> WORKLOADS = List.of("""
                workload: {type: long-prefill, model: tiny, prompts: 6, promptTokens: 256}
                store: {l1CapacityGiB: 0.001, l2CapacityGiB: 0.01}
                scheduler: {concurrency: 4, gpuKvBlocks: 256, prefetchMaxRequests: 0}
            """, """
                workload: {type: long-prefill, model: tiny, prompts: 6, promptTokens: 256, clientConcurrency: 2}
                store: {l1CapacityGiB: 0.001, l2CapacityGiB: 0.01}
                scheduler: {concurrency: 2, gpuKvBlocks: 256, prefetchMaxRequests: 2}
            """);

    @Test
    void aValidateSimulationIsTheRunCommandsSimRun() throws IOException {
        for (String workload : WORKLOADS) {
            List<String> hashes = new ArrayList<>();
            for (boolean together : new boolean[] {false, true}) {
                String section = workload + (together ? "    sameInstantArrivalsTogether: true\n" : "");
                Observation validated = validateSimulation(section);
                RunResult run = runCommandsRun(section);
                assertNull(validated.failure(), validated.failure());
                assertNull(run.failure(), run.failure());
                assertEquals(run.decisionHash(), validated.decisionHash(), section);
                assertEquals(run.passes().size(), validated.passes().size());
                for (int pass = 0; pass < run.passes().size(); pass++) {
                    PassMetrics expected = run.passes().get(pass);
                    PassMetrics actual = validated.passes().get(pass);
                    assertEquals(expected.pass(), actual.pass());
                    assertArrayEquals(expected.values(), actual.values(), section + expected.pass());
                }
                long[] ttfts = run.ttftNsByPass().values().stream().flatMapToLong(java.util.Arrays::stream).toArray();
                assertArrayEquals(ttfts, validated.ttftNsByRequest().values().stream().mapToLong(Long::longValue).toArray());
                // The executor's hook saw every request decided: 6 prompts, cold and warm.
                assertEquals(12, validated.lookups().size());
                assertEquals(run.decisionHash(), commandLineHash(section), "tierlab run's own run.json");
                hashes.add(run.decisionHash());
            }
            assertNotEquals(hashes.get(0), hashes.get(1), "both paths read sameInstantArrivalsTogether: " + workload);
        }
    }

    private Observation validateSimulation(String section) throws IOException {
        Path file = Files.writeString(folder.resolve("validation.yaml"), "name: one-path\nseed: 42\nworkloads:\n  w:\n"
                + section);
        ValidationFile validation = ValidationFile.load(file, "qwen3-8b-h100");
        ValidationRuns runs = ValidationRuns.hostBuffers(folder.resolve("scratch"));
        var config = validation.workloads().get("w").config();
        return runs.simulate(config, runs.passes(config));
    }

    private Path experimentFile(String section) throws IOException {
        return Files.writeString(folder.resolve("experiment.yaml"), "name: one-path\nseeds: [42]\n"
                + section.replaceAll("(?m)^    ", ""));
    }

    private RunResult runCommandsRun(String section) throws IOException {
        ExperimentLoader.Experiment experiment = ExperimentLoader.load(experimentFile(section));
        RunPoint point = experiment.points().getFirst();
        return new RunExecutor(folder.resolve("scratch")).run(point);
    }

    private String commandLineHash(String section) throws IOException {
        Path out = folder.resolve("out");
        CommandRun run = CommandRun.of(Main.newCommandLine(), "run", experimentFile(section).toString(), "--out", out.toString(), "-q");
        assertEquals(0, run.exitCode(), run.err());
        return new ObjectMapper().readTree(out.resolve("run.json").toFile()).path("runs").get(0).path("decisionTraceHash").asText();
    }
}
