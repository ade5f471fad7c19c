package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tierlab.hunt.testkit.CommandRun;

/**
 * An experiment's {@code model} section and {@code gpu.compute}: the default and {@code kind: linear}
 * decide identically, a roofline profile reaches the simulator's compute port and is priced for the
 * run's model, and bad fields are one line naming the file, line and field.
 */
class ComputeModelRunTest {

    @TempDir
    Path folder;

    private static final String WORKLOAD = """
            workload:
              type: long-prefill
              prompts: 6
              promptTokens: 2000
            store:
              l1CapacityGiB: 1
              l2CapacityGiB: 8
            scheduler:
              concurrency: 4
            """;

    /** A roofline well below the linear preset's speed: 2% of the peak FLOP rate. */
    private static final String SLOW_ROOFLINE = """
            kind: roofline
            gpu: {name: h100, peakBf16FlopsPerSecond: 9.89e14, hbmBytesPerSecond: 3.35e12, memoryBytes: 8.0e10}
            model: {preset: llama-3.1-8b}
            computeEfficiency: 0.02
            memoryEfficiency: 0.5
            stepOverheadNs: 1000000
            sequenceNs: 10000
            """;

    private Table run(String name, String text) throws IOException {
        Path file = folder.resolve(name + ".yaml");
        Files.writeString(file, "name: " + name + "\n" + text);
        Path out = folder.resolve("out-" + name);
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", out.toString(), "-q");
        assertEquals(0, run.exitCode(), run.err());
        return Table.read().csv(out.resolve("results.csv").toFile());
    }

    @Test
    void linearByNameDecidesExactlyAsTheDefault() throws IOException {
        Table plain = run("plain", WORKLOAD);
        Table linear = run("linear", WORKLOAD + "gpu:\n  compute: {kind: linear}\n");
        assertEquals(plain.stringColumn("decisionTraceHash").get(0), linear.stringColumn("decisionTraceHash").get(0));
        assertFalse(plain.columnNames().contains("gpu.compute.kind"), "a file without the section keeps its columns");
        assertEquals("linear", linear.stringColumn("gpu.compute.kind").get(0));
        Table preset = run("preset", WORKLOAD + "model: {preset: qwen3-8b}\n");
        assertEquals(plain.stringColumn("decisionTraceHash").get(0), preset.stringColumn("decisionTraceHash").get(0),
                "model: {preset: qwen3-8b} is the default model");
    }

    @Test
    void aRooflineProfileReachesTheSimulatorPricedForTheRunsModel() throws IOException {
        Files.writeString(folder.resolve("slow.yaml"), SLOW_ROOFLINE);
        Table plain = run("base", WORKLOAD);
        Table roofline = run("roofline", WORKLOAD + "gpu:\n  compute: {profile: slow.yaml}\n");
        assertEquals("roofline", roofline.stringColumn("gpu.compute.kind").get(0));
        assertEquals("slow.yaml", roofline.stringColumn("gpu.compute.profile").get(0));
        assertEquals("", roofline.stringColumn("failure").get(0).strip());
        assertNotEquals(plain.stringColumn("decisionTraceHash").get(0), roofline.stringColumn("decisionTraceHash").get(0));
        double linearS = plain.numberColumn("cold.elapsedS").getDouble(0);
        double rooflineS = roofline.numberColumn("cold.elapsedS").getDouble(0);
        // 12,000 prompt tokens of Qwen3-8B at 2% of 989 TFLOP/s: at least 2 × 8.19e9 × 12,000 / 1.978e13 s = 9.9 s.
        assertTrue(rooflineS > 9.9 && rooflineS > 5 * linearS, rooflineS + " s against the linear preset's " + linearS + " s");
        Table llama = run("llama", WORKLOAD + "model: {preset: llama-3.1-8b}\ngpu:\n  compute: {profile: slow.yaml}\n");
        assertEquals("llama-3.1-8b", llama.stringColumn("workload.model").get(0));
        assertTrue(llama.numberColumn("cold.elapsedS").getDouble(0) < rooflineS,
                "Llama-3.1-8B has fewer parameters (8.03B) and layers than Qwen3-8B (8.19B)");
    }

    @Test
    void theProfileCanBeSwept() throws IOException {
        Files.writeString(folder.resolve("slow.yaml"), SLOW_ROOFLINE);
        Files.writeString(folder.resolve("linear.yaml"), "kind: linear\n");
        Table swept = run("swept", WORKLOAD + "sweep:\n  gpu.compute.profile: [linear.yaml, slow.yaml]\n");
        assertEquals(2, swept.rowCount());
        assertEquals("linear", swept.stringColumn("gpu.compute.kind").get(0));
        assertEquals("roofline", swept.stringColumn("gpu.compute.kind").get(1));
        assertTrue(swept.numberColumn("cold.elapsedS").getDouble(1) > 5 * swept.numberColumn("cold.elapsedS").getDouble(0));
        Table plain = run("unswept", WORKLOAD);
        assertEquals(plain.stringColumn("decisionTraceHash").get(0), swept.stringColumn("decisionTraceHash").get(0),
                "a linear profile without terms is the device's formula");
    }

    @Test
    void badModelAndComputeFieldsAreOneLine() throws IOException {
        assertOneLine("typo", WORKLOAD + "model: {preset: qwen3-8b, layrs: 3}\n", "typo.yaml: line 11", "model.layrs");
        assertOneLine("dtype", WORKLOAD + "model:\n  preset: qwen3-8b\n  kvDtype: int4\n", "dtype.yaml: line 13: model.kvDtype: unknown",
                "model.kvDtype: unknown dtype 'int4' (known: bf16, fp16, fp8, fp32)");
        assertOneLine("twice", WORKLOAD.replace("type: long-prefill", "type: long-prefill\n  model: tiny")
                + "model: {preset: qwen3-8b}\n", "twice.yaml", "model: the model is named twice");
        assertOneLine("noprofile", WORKLOAD + "gpu:\n  compute: {kind: roofline}\n", "noprofile.yaml",
                "gpu.compute.profile: the roofline kind needs a compute profile file");
        assertOneLine("kind", WORKLOAD + "gpu:\n  compute: {kind: quantum}\n", "kind.yaml",
                "gpu.compute.kind: unknown compute model kind 'quantum' (known: linear, roofline, table, kernel-roofline)");
        Files.writeString(folder.resolve("slow.yaml"), SLOW_ROOFLINE);
        assertOneLine("tiny", WORKLOAD + "model: {preset: tiny}\ngpu:\n  compute: {profile: slow.yaml}\n", "tiny.yaml",
                "the roofline compute model needs the model's hiddenSize");
        assertOneLine("mismatch", WORKLOAD + "gpu:\n  compute: {kind: table, profile: slow.yaml}\n", "mismatch.yaml",
                "gpu.compute.kind: table, but", "is a roofline profile");
    }

    private void assertOneLine(String name, String text, String... fragments) throws IOException {
        Path file = folder.resolve(name + ".yaml");
        Files.writeString(file, "name: " + name + "\n" + text);
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("bad-" + name).toString(), "-q");
        assertEquals(1, run.exitCode(), run.err());
        String err = run.err().strip();
        assertEquals(1, err.lines().count(), err);
        for (String fragment : fragments) {
            assertTrue(err.contains(fragment), "'" + fragment + "' in: " + err);
        }
        assertFalse(Files.exists(folder.resolve("bad-" + name)));
    }
}
