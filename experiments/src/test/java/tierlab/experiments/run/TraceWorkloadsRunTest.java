package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.ReplayCommand;
import tierlab.hunt.testkit.CommandRun;
import tierlab.model.testkit.ReferenceLru;
import tierlab.workload.AzureSynthesis;
import tierlab.workload.AzureTraceReader;
import tierlab.workload.QwenTraceReader;
import tierlab.workload.RequestTrace;

/**
 * The qwen and azure workload types, policy knobs in missRatioCurve.policies, and {@code tierlab
 * replay --format}, end to end through the command line.
 */
class TraceWorkloadsRunTest {

    private static final Path DATA = Path.of("../data").toAbsolutePath().normalize();

    @TempDir
    Path folder;

    @Test
    void aQwenWorkloadRunsAndItsCurvesTakeKnobsAndMatchAnIndependentLru() throws IOException {
        Path file = Files.writeString(folder.resolve("qwen.yaml"), """
                name: qwen-run
                workload:
                  type: qwen
                  trace: %s
                  requestLimit: 120
                  blockTokens: 32
                store:
                  l1CapacityGiB: 2
                  l2CapacityGiB: 64
                seeds: [42]
                sweep:
                  store.policy: [lru, 2q]
                missRatioCurve:
                  policies: [lru, "s3-fifo:ghostRatio=0.9", s3-fifo, belady]
                  capacitiesBlocks: [200, 2000]
                """.formatted(DATA.resolve("qwen_format_sample.jsonl")));
        Path out = folder.resolve("out");

        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", out.toString(), "-q");

        assertEquals(0, run.exitCode(), run.err());
        assertEquals(3, Files.readAllLines(out.resolve("results.csv")).size(), "a header and one row per policy");
        Map<String, Long> hits = missRatioHits(out.resolve("miss-ratio.csv"));
        assertEquals(List.of("lru@200", "lru@2000", "s3-fifo:ghostRatio=0.9@200", "s3-fifo:ghostRatio=0.9@2000",
                "s3-fifo@200", "s3-fifo@2000", "belady@200", "belady@2000"), List.copyOf(hits.keySet()));
        // The curves replay the whole trace at its own 16-token blocks (the run's 32-token blocks and
        // requestLimit shape the simulated runs only).
        RequestTrace trace = QwenTraceReader.read(DATA.resolve("qwen_format_sample.jsonl"));
        assertEquals(ReferenceLru.hits(trace.flattenedReferences(), 200), hits.get("lru@200"));
        assertEquals(ReferenceLru.hits(trace.flattenedReferences(), 2000), hits.get("lru@2000"));
        assertTrue(Files.readString(out.resolve("run.json")).contains("qwen_format_sample.jsonl"), "the trace's SHA-256 is recorded");
    }

    @Test
    void anAzureWorkloadTakesItsSynthesisSettingsAndRecordsThem() throws IOException {
        Path file = Files.writeString(folder.resolve("azure.yaml"), """
                name: azure-run
                workload:
                  type: azure
                  trace: %s
                  requestLimit: 150
                  azure: {seed: 7, followUpProbability: 0.9}
                store:
                  l1CapacityGiB: 4
                  l2CapacityGiB: 64
                seeds: [42]
                missRatioCurve:
                  policies: [lru]
                  capacitiesBlocks: [1000]
                """.formatted(DATA.resolve("azure_llm_inference_2023_conv_first1000.csv")));
        Path out = folder.resolve("out");

        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", out.toString(), "-q");

        assertEquals(0, run.exitCode(), run.err());
        String results = Files.readString(out.resolve("results.csv"));
        assertTrue(results.contains("seed=7 blockTokens=16 prefixGroups=64 zipfExponent=1.0 maxSharedPrefixTokens=4096"
                + " followUpProbability=0.9 followUpWindow=32"), results.lines().limit(2).toList().toString());
        RequestTrace trace = AzureTraceReader.read(DATA.resolve("azure_llm_inference_2023_conv_first1000.csv"),
                new AzureSynthesis(7, 16, 64, 1.0, 4096, 0.9, 32));
        assertEquals(ReferenceLru.hits(trace.flattenedReferences(), 1000), missRatioHits(out.resolve("miss-ratio.csv")).get("lru@1000"));
    }

    @Test
    void aGridOverSeveralTracesGetsCurvesAndAChartPerTrace() throws IOException {
        Path file = Files.writeString(folder.resolve("two.yaml"), """
                name: two-traces
                workload: {type: qwen, trace: %1$s, requestLimit: 40}
                store: {l1CapacityGiB: 2, l2CapacityGiB: 64}
                seeds: [42]
                sweep:
                  - {workload.type: [qwen], workload.trace: [%1$s]}
                  - {workload.type: [azure], workload.trace: [%2$s]}
                missRatioCurve: {policies: [lru, "s3-fifo:ghostRatio=0.9"], capacitiesBlocks: [300]}
                """.formatted(DATA.resolve("qwen_format_sample.jsonl"),
                DATA.resolve("azure_llm_inference_2023_code_first1000.csv")));
        Path out = folder.resolve("out");

        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", out.toString(), "-q");

        assertEquals(0, run.exitCode(), run.err());
        List<String> lines = Files.readAllLines(out.resolve("miss-ratio.csv"));
        assertEquals("trace,policy,capacity_blocks,references,hits,misses,hit_ratio,miss_ratio", lines.getFirst());
        assertEquals(5, lines.size(), "two traces x two policies x one capacity");
        long qwenLru = ReferenceLru.hits(QwenTraceReader.read(DATA.resolve("qwen_format_sample.jsonl")).flattenedReferences(), 300);
        long azureLru = ReferenceLru.hits(AzureTraceReader.read(DATA.resolve("azure_llm_inference_2023_code_first1000.csv"),
                AzureSynthesis.DEFAULT).flattenedReferences(), 300);
        assertTrue(lines.get(1).startsWith("qwen_format_sample.jsonl,lru,300,31571," + qwenLru + ","), lines.get(1));
        assertTrue(lines.get(3).startsWith("azure_llm_inference_2023_code_first1000.csv,lru,300,"), lines.get(3));
        assertEquals(azureLru, Long.parseLong(lines.get(3).split(",")[4]));
        for (String chart : List.of("miss-ratio-qwen-format-sample", "miss-ratio-azure-llm-inference-2023-code-first1000")) {
            assertTrue(Files.size(out.resolve(chart + ".png")) > 0, chart);
            assertTrue(Files.readString(out.resolve("report.md")).contains("](" + chart + ".png)"), chart);
        }
        assertFalse(Files.exists(out.resolve("miss-ratio.png")), "one chart per trace, none for all");
    }

    @Test
    void aBadKnobInMissRatioCurveIsOneLineAndNothingIsWritten() throws IOException {
        Path file = Files.writeString(folder.resolve("bad.yaml"), """
                name: bad
                workload: {type: qwen, trace: %s, requestLimit: 10}
                missRatioCurve: {policies: [lru, "s3-fifo:ghost=0.9"]}
                """.formatted(DATA.resolve("qwen_format_sample.jsonl")));
        Path out = folder.resolve("out");

        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", out.toString(), "-q");

        assertEquals(1, run.exitCode());
        assertEquals(file + ": missRatioCurve.policies: policy 's3-fifo' has no knob 'ghost' (its knobs: smallRatio,"
                + " ghostRatio, moveToMainThreshold)", run.err().strip().replaceFirst("^tierlab: ", ""));
        assertFalse(Files.exists(out));
    }

    @Test
    void azureSettingsOnAnotherTypeAndAnObjectTraceAsAWorkloadAreRefusedInWords() throws IOException {
        Path file = Files.writeString(folder.resolve("bad.yaml"), """
                name: bad
                workload: {type: qwen, trace: %s, azure: {seed: 1}}
                """.formatted(DATA.resolve("qwen_format_sample.jsonl")));
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
        assertEquals(1, run.exitCode());
        assertTrue(run.err().contains("workload.azure: only an azure workload has synthesis settings"), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
    }

    @Test
    void aBlockSizeTheTraceCannotBeCutToIsRefusedBeforeAnyRun() throws IOException {
        Path file = Files.writeString(folder.resolve("bad.yaml"), """
                name: bad
                workload: {type: azure, trace: %s, blockTokens: 24}
                """.formatted(DATA.resolve("azure_llm_inference_2023_code_first1000.csv")));
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
        assertEquals(1, run.exitCode());
        assertTrue(run.err().contains("workload.blockTokens: an azure trace (16-token blocks) can only be re-blocked to a"
                + " block size that divides 16 or is a multiple of it, but blockTokens is 24"), run.err());
        assertFalse(Files.exists(folder.resolve("out")));
    }

    @Test
    void aBadLineOfAQwenTraceIsOneLineNamingFileAndLine() throws IOException {
        List<String> lines = Files.readAllLines(DATA.resolve("qwen_format_sample.jsonl")).subList(0, 5);
        Path trace = Files.write(folder.resolve("t.jsonl"), List.of(lines.get(0), lines.get(1),
                lines.get(2).replace("\"turn\": 1", "\"turn\": 0"), lines.get(3)));
        Path file = Files.writeString(folder.resolve("bad.yaml"), """
                name: bad
                workload: {type: qwen, trace: %s}
                store: {l2CapacityGiB: 64}
                """.formatted(trace));
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
        assertEquals(1, run.exitCode());
        assertEquals("tierlab: " + trace + ":3: field \"turn\" must be an integer >= 1, found a number 0", run.err().strip());
    }

    @Test
    void aRequestTooLargeForTheGpuIsRefusedNamingItsLineAndTheLimit() throws IOException {
        // The engine would refuse it mid-run, as a bug with a stack trace; the run refuses it first, in words.
        List<String> lines = Files.readAllLines(DATA.resolve("mooncake_synthetic_trace.jsonl")).subList(0, 3);
        Path trace = Files.write(folder.resolve("m.jsonl"), List.of(lines.get(0),
                lines.get(1).replaceFirst("\"output_length\": \\d+", "\"output_length\": 400000"), lines.get(2)));
        Path file = Files.writeString(folder.resolve("big.yaml"), """
                name: big
                workload: {type: mooncake, trace: %s, blockTokens: 512}
                store: {l1CapacityGiB: 64, l2CapacityGiB: 64}
                scheduler: {gpuKvBlocks: 750}
                """.formatted(trace));
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.err().strip().matches("tierlab: " + java.util.regex.Pattern.quote(trace.toString())
                + ":2: [\\d,]+ prompt \\+ 400,000 output tokens need \\d+ GPU blocks of 512 tokens, more than"
                + " scheduler.gpuKvBlocks \\(750\\): a request may have at most 384,000 tokens here"), run.err());
        assertFalse(Files.exists(folder.resolve("out")));
    }

    @Test
    void aQwenTraceWithAMissingParentRunsAndSaysSoOnceOnStderr() throws IOException {
        List<String> lines = Files.readAllLines(DATA.resolve("qwen_format_sample.jsonl")).subList(0, 40);
        List<String> edited = new java.util.ArrayList<>(lines);
        edited.set(4, lines.get(4).replaceFirst("\"parent_chat_id\": -?\\d+", "\"parent_chat_id\": 999999"));
        Path trace = Files.write(folder.resolve("t.jsonl"), edited);
        Path file = Files.writeString(folder.resolve("slice.yaml"), """
                name: slice
                workload: {type: qwen, trace: %s}
                store: {l2CapacityGiB: 64}
                seeds: [1, 2]
                missRatioCurve: {policies: [lru], capacitiesBlocks: [100]}
                """.formatted(trace));
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
        assertEquals(0, run.exitCode(), run.err());
        String warning = "tierlab: warning: " + trace + ":5: parent_chat_id 999999 is not a chat_id of this trace; read as it"
                + " is (a slice of a longer trace?)";
        assertEquals(warning, run.err().strip(), "once, though two runs and the miss-ratio curve read the trace");

        CommandRun replay = RunCommandTest.run("replay", "--trace", trace.toString(), "--format", "qwen", "--policies", "lru",
                "--capacities", "100", "--out", folder.resolve("replay").toString());
        assertEquals(0, replay.exitCode(), replay.err());
        assertEquals(warning, replay.err().strip());
    }

    @Test
    void replayReadsEveryFormatAndRefusesAnUnknownOne() throws IOException {
        Path out = folder.resolve("replay");
        CommandRun run = RunCommandTest.run("replay", "--format", "oracle-general", "--trace",
                DATA.resolve("mooncake_first500.oracleGeneral.bin").toString(), "--out", out.toString(),
                "--policies", "lru,s3-fifo:ghostRatio=0.9", "--capacities", "100,1000");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(Files.readString(out.resolve(ReplayCommand.REPORT_FILE))
                .startsWith("# tierlab replay: block miss-ratio curves of a libCacheSim oracle-general trace"));
        assertTrue(Files.readString(out.resolve(ReplayCommand.REPORT_FILE)).contains("--format oracle-general"));
        Map<String, Long> fromBinary = missRatioHits(out.resolve(ReplayCommand.CSV_FILE));

        CommandRun csv = RunCommandTest.run("replay", "--format", "lcs-csv", "--trace",
                DATA.resolve("mooncake_first500.lcs.csv").toString(), "--out", out.toString(),
                "--policies", "lru,s3-fifo:ghostRatio=0.9", "--capacities", "100,1000");
        assertEquals(0, csv.exitCode(), csv.err());
        assertEquals(fromBinary, missRatioHits(out.resolve(ReplayCommand.CSV_FILE)), "the two formats hold one stream");

        CommandRun unknown = RunCommandTest.run("replay", "--format", "parquet", "--out", out.toString());
        assertEquals(2, unknown.exitCode());
        assertTrue(unknown.err().contains("--format: unknown trace format 'parquet' (known: mooncake, qwen, azure,"
                + " oracle-general, lcs-csv)"), unknown.err());
    }

    /** policy@capacity → hits, in file order. */
    private static Map<String, Long> missRatioHits(Path csv) throws IOException {
        Map<String, Long> hits = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(csv);
        List<String> header = List.of(lines.getFirst().split(","));
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",");
            hits.put(cells[header.indexOf("policy")] + "@" + cells[header.indexOf("capacity_blocks")],
                    Long.parseLong(cells[header.indexOf("hits")]));
        }
        return hits;
    }
}
