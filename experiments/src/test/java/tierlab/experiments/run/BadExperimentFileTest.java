package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.hunt.testkit.CommandRun;

/**
 * Every bad experiment file gets one line on stderr that names the file and the field (and the
 * line where the parser knows it), exit code 1, no stack trace, and no output folder.
 */
class BadExperimentFileTest {

    @TempDir
    Path folder;

    static final String GOOD = """
            name: probe
            workload:
              type: long-prefill
              prompts: 4
              promptTokens: 500
            store:
              l1CapacityGiB: 1
              l2CapacityGiB: 4
              policy: lru
            """;

    private CommandRun runFile(String name, String text) throws IOException {
        Path file = folder.resolve(name);
        Files.writeString(file, text);
        return RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out/probe").toString(), "-q");
    }

    private void assertOneClearLine(CommandRun run, String... fragments) {
        assertEquals(1, run.exitCode(), run.err());
        String err = run.err().strip();
        assertEquals(1, err.lines().count(), "one line: " + err);
        assertFalse(err.contains("Exception") || err.contains("\tat "), "no stack trace, no exception name: " + err);
        for (String fragment : fragments) {
            assertTrue(err.contains(fragment), "'" + fragment + "' in: " + err);
        }
        assertFalse(Files.exists(folder.resolve("out")), "nothing is written for a bad file");
    }

    @Test
    void theGoodFileRuns() throws IOException {
        CommandRun run = runFile("good.yaml", GOOD);
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(Files.exists(folder.resolve("out/probe/results.csv")));
    }

    @Test
    void unknownFieldIsNamedWithItsLineAndTheKnownOnes() throws IOException {
        CommandRun run = runFile("bad.yaml", GOOD.replace("policy: lru", "polcy: lru"));
        assertOneClearLine(run, "bad.yaml", "line 9", "unknown field 'store.polcy'", "policy");
    }

    @Test
    void wrongTypeIsNamed() throws IOException {
        CommandRun run = runFile("bad.yaml", GOOD.replace("prompts: 4", "prompts: four"));
        assertOneClearLine(run, "bad.yaml", "line 4", "workload.prompts", "wrong type: expected a whole number");
    }

    @Test
    void quotedNumberIsAWrongType() throws IOException {
        CommandRun run = runFile("bad.json", """
                {"name": "probe", "workload": {"type": "long-prefill", "prompts": 4, "promptTokens": 500},
                 "store": {"l1CapacityGiB": "1"}}
                """);
        assertOneClearLine(run, "bad.json", "line 2", "store.l1CapacityGiB", "wrong type");
    }

    /** The parser's own words (its classes, switches and source tail) never reach the user; the cause does, in words. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "bad.json|{\"name\": \"probe\", \"workload\": {\"type\": \"long-prefill\", \"prompts\": NaN}}"
                + "|bad.json: line 1: workload: 'NaN' is not a number JSON allows (write a decimal number such as 1.5)",
        "bad.yaml|`name: probe\nworkload: {type: long-prefill, prompts: \"\"}`"
                + "|bad.yaml: line 2: workload.prompts: wrong type: expected a whole number, found empty text",
        "bad.yaml|`name: probe\nworkload: {type: long-prefill, prompts: 4}\nstore: {policy: 5}`"
                + "|bad.yaml: line 3: store.policy: wrong type: expected text, found the number 5",
        "bad.yaml|`name: probe\nseeds: \"\"\nworkload: {type: long-prefill, prompts: 4}`"
                + "|bad.yaml: line 2: seeds: wrong type: expected a list, found text",
        "bad.json|{\"name\": \"probe\", \"workload\": {\"type\": \"long-prefill\"} \"x\": 1}"
                + "|bad.json: line 1: unexpected character '\"': was expecting comma to separate Object entries",
        "bad.json|{\"name\": probe}|bad.json: line 1: 'probe' is not a JSON value (text needs double quotes)",
    })
    void parserInternalsBecomeWords(String name, String text, String expected) throws IOException {
        CommandRun run = runFile(name, text.replace("\\n", "\n"));
        assertOneClearLine(run);
        assertEquals("tierlab: " + folder.resolve(expected.substring(0, expected.indexOf(':'))) + expected.substring(expected.indexOf(':')),
                run.err().strip());
        for (String internal : java.util.List.of("CoercionConfig", "JsonReadFeature", "ALLOW_", "[Source", "StreamReadFeature",
                "token VALUE_", "`java.")) {
            assertFalse(run.err().contains(internal), internal + " in: " + run.err());
        }
    }

    @Test
    void missingTraceNamesTheFile() throws IOException {
        CommandRun run = runFile("bad.yaml", """
                name: probe
                workload: {type: mooncake, trace: no-such-trace.jsonl}
                """);
        assertOneClearLine(run, "bad.yaml", "workload.trace", "no such file", "no-such-trace.jsonl");
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"mooncake", "qwen", "azure"})
    void aTraceThatIsADirectoryIsCalledOne(String format) throws IOException {
        Files.createDirectory(folder.resolve("traces"));
        CommandRun run = runFile("bad.yaml", """
                name: probe
                workload: {type: %s, trace: traces}
                """.formatted(format));
        assertOneClearLine(run, "bad.yaml", "workload.trace", folder.resolve("traces") + ": is a directory");
        assertFalse(run.err().contains("no such file"), run.err());
    }

    @Test
    void missingExperimentFileIsNamed() {
        CommandRun run = RunCommandTest.run("run", folder.resolve("absent.yaml").toString());
        assertOneClearLine(run, "absent.yaml", "no such file");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "l1CapacityGiB: 1|l1CapacityGiB: -1|store.l1CapacityGiB: must be > 0, was -1.0",
        "l2CapacityGiB: 4|l2CapacityGiB: 0|store.l2CapacityGiB: must be > 0",
        "policy: lru|policy: mru|store.policy: unknown policy 'mru' (known: lru",
        "policy: lru|policy: belady|store.policy: belady needs the future reference stream",
        "type: long-prefill|type: replay|workload.type: unknown type 'replay'",
        "name: probe|name: Probe Run|name: 'Probe Run' must be",
        "promptTokens: 500|promptTokens: 0|workload.promptTokens: must be > 0",
        "policy: lru|policy: lru\\n  l2WritePolicy: write-after-hits:99999999999999|store.l2WritePolicy: 'write-after-hits:99999999999999':"
                + " N must be within [0, 1,000,000] hits, was 99999999999999",
        "policy: lru|policy: lfu\\n  agingFactor: -0.0|agingFactor must be between 0.0 and 1000000.0, was -0.0",
        "policy: lru|policy: s3-fifo\\n  ghostRatio: 0.9f|store.ghostRatio: wrong type: expected a number",
        "policy: lru|policy: s3-fifo\\n  ghostRatio: 0x1p-3|store.ghostRatio: wrong type: expected a number",
    })
    void badValuesAreNamed(String good, String bad, String expected) throws IOException {
        CommandRun run = runFile("bad.yaml", GOOD.replace(good, bad.replace("\\n", "\n")));
        assertOneClearLine(run, "bad.yaml", expected);
    }

    /** 1e-9 ms rounded to a period of 0 ns, which gave an empty timeseries.csv without a word. */
    @Test
    void aSampleIntervalBelowWhatTheTimeSeriesCanHoldIsRefused() throws IOException {
        CommandRun run = runFile("bad.yaml", GOOD + "sampleIntervalMs: 1e-9\n");
        assertOneClearLine(run, "bad.yaml", "sampleIntervalMs: must be at least 0.001 (1 µs of virtual time; the time series"
                + " counts whole nanoseconds), was 1.0E-9");
    }

    @Test
    void aSampleIntervalWhoseNextSampleWouldOverflowIsRefused() throws IOException {
        CommandRun run = runFile("bad.yaml", GOOD + "sampleIntervalMs: 1e300\n");
        assertOneClearLine(run, "bad.yaml", "sampleIntervalMs: must be at most 1.0E12 (about 31 years of virtual time), was 1.0E300");
    }

    @Test
    void theShortestSampleIntervalStillFillsTheTimeSeries() throws IOException {
        CommandRun run = runFile("fine.yaml", GOOD + "sampleIntervalMs: 0.001\n");
        assertEquals(0, run.exitCode(), run.err());
        long rows = Files.readAllLines(folder.resolve("out/probe/timeseries.csv")).size() - 1;
        assertTrue(rows > 10, "samples at the shortest period: " + rows);
    }

    @Test
    void badSweepPointIsNamedWithItsAxisValue() throws IOException {
        CommandRun run = runFile("bad.yaml", GOOD + "sweep:\n  store.policy: [lru, mru]\n");
        assertOneClearLine(run, "bad.yaml", "sweep point {store.policy=mru}", "store.policy: unknown policy 'mru'");
    }

    @Test
    void misspeltSweepAxisIsAnUnknownField() throws IOException {
        CommandRun run = runFile("bad.yaml", GOOD + "sweep:\n  store.l1Capacity: [1, 2]\n");
        assertOneClearLine(run, "bad.yaml", "unknown field 'store.l1Capacity'");
    }

    @Test
    void chartWithUnknownMetricIsNamed() throws IOException {
        CommandRun run = runFile("bad.yaml", GOOD + """
                charts:
                  - {type: line, file: c, x: store.l1CapacityGiB, y: warm.hitRatio}
                """);
        assertOneClearLine(run, "bad.yaml", "charts[0].y", "unknown metric 'warm.hitRatio'");
    }

    @Test
    void unknownArrivalKindIsNamed() throws IOException {
        CommandRun run = runFile("bad.yaml", """
                name: probe
                workload:
                  type: synthetic
                  synthetic:
                    requestCount: 10
                    arrivals: {kind: weibull, ratePerSecond: 5}
                    promptTokens: {kind: fixed, tokens: 100}
                    outputTokens: {kind: fixed, tokens: 1}
                """);
        assertOneClearLine(run, "bad.yaml", "workload.synthetic.arrivals", "unknown kind 'weibull'");
    }

    @Test
    void aHybridL1BeyondWhatTheHostHasIsRefused() throws IOException {
        // A PiB: more than any host's memory (HostLimits, which follows the host instead of a fixed 4 GiB).
        CommandRun run = runFile("bad.yaml", GOOD.replace("l1CapacityGiB: 1", "l1CapacityGiB: 1048576") + "mode: hybrid\n");
        assertOneClearLine(run, "bad.yaml", "store.l1CapacityGiB: a hybrid run allocates a real L1 of 1048576.0 GiB",
                "of memory available on this host (MemAvailable)", "set store.l1LimitGiB to override");
    }
}
