package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tierlab.hunt.testkit.CommandRun;
import tierlab.model.serving.ServingEngines;

/** {@code scheduler.engine}: a serving engine by its registry name, checked, swept, and a column of results.csv. */
class SchedulerSectionsTest {

    @TempDir
    Path folder;

    /** Eight prompts sent at once to a tiered store; the scheduler section is appended. */
    private static final String FILE = """
            name: engines
            workload:
              type: long-prefill
              prompts: 8
              promptTokens: 1000
            store:
              l1CapacityGiB: 1
              l2CapacityGiB: 4
            scheduler:
              concurrency: 4
            """;

    private CommandRun run(String name, String text, Path out) throws IOException {
        Path file = folder.resolve(name);
        Files.writeString(file, text);
        return RunCommandTest.run("run", file.toString(), "--out", out.toString(), "-q");
    }

    @Test
    void aSerialExperimentRunsAndTheEngineIsSweptLikeAnyField() throws IOException {
        Path out = folder.resolve("out/swept");
        CommandRun run = run("swept.yaml", FILE + "sweep:\n  scheduler.engine: [vllm, serial]\n", out);
        assertEquals(0, run.exitCode(), run.err());
        Table results = Table.read().csv(out.resolve("results.csv").toFile());
        assertEquals(2, results.rowCount());
        assertEquals("vllm", results.stringColumn("scheduler.engine").get(0));
        assertEquals("serial", results.stringColumn("scheduler.engine").get(1));
        for (int row = 0; row < 2; row++) {
            assertEquals(8, results.numberColumn("cold.requests").getDouble(row), "every request finishes");
            assertEquals(8, results.numberColumn("warm.requests").getDouble(row), "every request finishes");
        }
        double batchedS = results.numberColumn("cold.elapsedS").getDouble(0);
        double serialS = results.numberColumn("cold.elapsedS").getDouble(1);
        assertTrue(serialS > batchedS, "one request at a time takes longer than four: " + serialS + " s vs " + batchedS + " s");
    }

    @Test
    void aFileWithoutTheFieldRunsTheDefaultEngineWithTheSameResults() throws IOException {
        Path implicit = folder.resolve("out/implicit");
        Path explicit = folder.resolve("out/explicit");
        assertEquals(0, run("implicit.yaml", FILE, implicit).exitCode());
        assertEquals(0, run("explicit.yaml", FILE + "  engine: vllm-v1\n  prefixCaching: true\n", explicit).exitCode());
        assertEquals(Files.readString(implicit.resolve("results.csv")), Files.readString(explicit.resolve("results.csv")),
                "no engine field means vllm-v1 with prefix caching on, decision for decision");
        Table results = Table.read().csv(implicit.resolve("results.csv").toFile());
        assertEquals(ServingEngines.VLLM_V1, results.stringColumn("scheduler.engine").get(0));
    }

    @Test
    void anUnknownEngineIsOneLineWithTheFileTheLineAndTheKnownNames() throws IOException {
        Path out = folder.resolve("out/bad");
        CommandRun run = run("bad.yaml", FILE + "  engine: trtllm\n", out);
        assertEquals(1, run.exitCode(), run.err());
        String err = run.err().strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains("bad.yaml: line 11: scheduler.engine: unknown serving engine 'trtllm' (known: vllm, serial, vllm-v1, sglang)"), err);
        assertFalse(err.contains("Exception"), err);
        assertFalse(Files.exists(out), "nothing is written for a bad file");

        CommandRun swept = run("swept-bad.yaml", FILE + "sweep:\n  scheduler.engine: [vllm, trtllm]\n", out);
        assertEquals(1, swept.exitCode(), swept.err());
        assertTrue(swept.err().contains("swept-bad.yaml: sweep point {scheduler.engine=trtllm}: scheduler.engine: unknown"
                + " serving engine 'trtllm' (known: vllm, serial, vllm-v1, sglang)"), swept.err());
    }

    /**
     * vllm-v1 with prefix caching off is the vllm engine decision for decision (every pass metric equal);
     * with it on, the warm pass's repeated prompts are served by the GPU cache, and requests.csv says so
     * request by request, the four sources adding up to the prompt.
     */
    @Test
    void vllmV1WithoutPrefixCachingIsVllmAndWithItTheWarmPassHitsTheGpu() throws IOException {
        Path out = folder.resolve("out/v1");
        CommandRun run = run("v1.yaml", FILE + "sweep:\n  scheduler.engine: [vllm, vllm-v1]\n  scheduler.prefixCaching: [false, true]\n",
                out);
        assertEquals(0, run.exitCode(), run.err());
        Table results = Table.read().csv(out.resolve("results.csv").toFile());
        assertEquals(4, results.rowCount());
        int vllm = -1;
        int off = -1;
        int on = -1;
        for (int row = 0; row < 4; row++) {
            String engine = results.stringColumn("scheduler.engine").get(row);
            boolean caching = results.column("scheduler.prefixCaching").getString(row).equals("true");
            if (engine.equals("vllm") && vllm < 0) {
                vllm = row;
            } else if (engine.equals("vllm-v1")) {
                if (caching) {
                    on = row;
                } else {
                    off = row;
                }
            }
        }
        for (String pass : new String[] {"cold", "warm"}) {
            for (tierlab.metrics.PassMetric metric : tierlab.metrics.PassMetric.values()) {
                String column = pass + "." + metric.metricName();
                assertEquals(results.numberColumn(column).getDouble(vllm), results.numberColumn(column).getDouble(off), column);
            }
        }
        assertEquals(0, results.numberColumn("warm.gpuCachedTokens").getDouble(off));
        // 8 prompts of 1,000 tokens in 16-token blocks: 62 full blocks each are cached, the last token's block recomputed.
        assertEquals(8 * 62 * 16, results.numberColumn("warm.gpuCachedTokens").getDouble(on));
        assertEquals(0, results.numberColumn("warm.l1Tokens").getDouble(on) + results.numberColumn("warm.l2Tokens").getDouble(on),
                "the store sees nothing the GPU cache answered");
        assertTrue(results.numberColumn("warm.ttftMeanMs").getDouble(on) < results.numberColumn("warm.ttftMeanMs").getDouble(off));

        Table requests = Table.read().csv(out.resolve("requests.csv").toFile());
        for (int row = 0; row < requests.rowCount(); row++) {
            double sum = requests.numberColumn("gpuCachedTokens").getDouble(row) + requests.numberColumn("l1Tokens").getDouble(row)
                    + requests.numberColumn("l2Tokens").getDouble(row) + requests.numberColumn("recomputedTokens").getDouble(row);
            assertEquals(1000, sum, "row " + row + " of requests.csv");
        }
    }

    @Test
    void thePrefetchStopAndLayerGroupsAreColumnsAndABadStopIsOneLine() throws IOException {
        Path out = folder.resolve("out/stop");
        CommandRun run = run("stop.yaml", FILE + "  prefetchStop: timeout:50+2\n  loadLayerGroups: 4\n", out);
        assertEquals(0, run.exitCode(), run.err());
        Table results = Table.read().csv(out.resolve("results.csv").toFile());
        assertEquals("timeout:50+2", results.stringColumn("scheduler.prefetchStop").get(0));
        assertEquals(4, results.numberColumn("scheduler.loadLayerGroups").getDouble(0));
        CommandRun bad = run("badstop.yaml", FILE + "  prefetchStop: soon\n", folder.resolve("out/badstop"));
        assertEquals(1, bad.exitCode(), bad.err());
        String err = bad.err().strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains("badstop.yaml") && err.contains("prefetchStop: 'soon' is not wait-complete"), err);
        assertFalse(err.contains("Exception"), err);
    }

    /**
     * sglang runs from a file with its two fields as columns (and only for it); its warm pass is served by
     * its radix cache, the four sources adding up to each prompt; a bad write policy is one line naming it.
     */
    @Test
    void sglangHasItsWritePolicyAndWaitingOrderAsColumnsAndItsWarmPassHitsTheGpu() throws IOException {
        Path out = folder.resolve("out/sglang");
        CommandRun run = run("sglang.yaml", FILE + "  hostWritePolicy: write-after-hits:2\n  waitingOrder: fcfs\n"
                + "sweep:\n  scheduler.engine: [vllm, sglang]\n"
                // A chart may name a column only sglang's points have, though the first point is vllm's.
                + "charts:\n  - {type: bar, file: sglang-gpu, x: scheduler.engine, y: warm.gpuCachedTokens,"
                + " where: {scheduler.hostWritePolicy: \"write-after-hits:2\"}}\n", out);
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(Files.exists(out.resolve("sglang-gpu.png")));
        Table results = Table.read().csv(out.resolve("results.csv").toFile());
        assertEquals(2, results.rowCount());
        assertEquals("sglang", results.stringColumn("scheduler.engine").get(1));
        assertEquals("write-after-hits:2", results.stringColumn("scheduler.hostWritePolicy").get(1));
        assertEquals("fcfs", results.stringColumn("scheduler.waitingOrder").get(1));
        assertEquals("", results.column("scheduler.waitingOrder").getString(0), "vllm has no waiting order");
        // 8 prompts of 1,000 tokens in 16-token pages: 62 full pages each match, the last token's page is computed.
        assertEquals(8 * 62 * 16, results.numberColumn("warm.gpuCachedTokens").getDouble(1));
        assertEquals(8, results.numberColumn("warm.requests").getDouble(1));
        Table requests = Table.read().csv(out.resolve("requests.csv").toFile());
        for (int row = 0; row < requests.rowCount(); row++) {
            double sum = requests.numberColumn("gpuCachedTokens").getDouble(row) + requests.numberColumn("l1Tokens").getDouble(row)
                    + requests.numberColumn("l2Tokens").getDouble(row) + requests.numberColumn("recomputedTokens").getDouble(row);
            assertEquals(1000, sum, "row " + row + " of requests.csv");
        }

        CommandRun bad = run("badwrite.yaml", FILE + "  engine: sglang\n  hostWritePolicy: sometimes\n", folder.resolve("out/badwrite"));
        assertEquals(1, bad.exitCode(), bad.err());
        String err = bad.err().strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains("badwrite.yaml") && err.contains("scheduler.hostWritePolicy: 'sometimes' is not one of"), err);
        assertFalse(err.contains("Exception"), err);
        CommandRun badOrder = run("badorder.yaml", FILE + "  waitingOrder: random\n", folder.resolve("out/badorder"));
        assertEquals(1, badOrder.exitCode(), badOrder.err());
        assertTrue(badOrder.err().contains("scheduler.waitingOrder: 'random' is not lpm or fcfs"), badOrder.err());
    }

    /**
     * {@code scheduler.saveTiming}: a column for the vLLM engines only, swept like any field; in-step holds
     * steps for their saves, so its cold pass is no faster; a bad value is one line naming the setting.
     */
    @Test
    void saveTimingIsAColumnOfTheVllmEnginesAndABadValueIsOneLine() throws IOException {
        Path out = folder.resolve("out/timing");
        CommandRun run = run("timing.yaml", FILE + "sweep:\n  scheduler.saveTiming: [after-step, in-step]\n", out);
        assertEquals(0, run.exitCode(), run.err());
        Table results = Table.read().csv(out.resolve("results.csv").toFile());
        assertEquals(2, results.rowCount());
        assertEquals("after-step", results.stringColumn("scheduler.saveTiming").get(0));
        assertEquals("in-step", results.stringColumn("scheduler.saveTiming").get(1));
        for (int row = 0; row < 2; row++) {
            assertEquals(8, results.numberColumn("cold.requests").getDouble(row), "every request finishes");
        }
        double afterS = results.numberColumn("cold.elapsedS").getDouble(0);
        double inS = results.numberColumn("cold.elapsedS").getDouble(1);
        assertTrue(inS >= afterS, "held steps make the cold pass no shorter: " + inS + " s vs " + afterS + " s");
        Path sglangOut = folder.resolve("out/timing-sglang");
        CommandRun sglang = run("timing-sglang.yaml", FILE + "  engine: sglang\n  saveTiming: in-step\n", sglangOut);
        assertEquals(0, sglang.exitCode(), sglang.err());
        Table sglangResults = Table.read().csv(sglangOut.resolve("results.csv").toFile());
        assertFalse(sglangResults.columnNames().contains("scheduler.saveTiming"), "sglang has no save timing");
        CommandRun bad = run("badtiming.yaml", FILE + "  saveTiming: later\n", folder.resolve("out/badtiming"));
        assertEquals(1, bad.exitCode(), bad.err());
        String err = bad.err().strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains("badtiming.yaml") && err.contains("scheduler.saveTiming: 'later' is not after-step or in-step"), err);
        assertFalse(err.contains("Exception"), err);
    }
}
