package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.hunt.testkit.CommandRun;

/**
 * {@code reference.checks} and {@code rows[].fitted} as an experiment file writes them: a good file's
 * report shows every check with PASS or FAIL and the fitted mark; a bad one is one line naming the
 * file, the line and the field, and nothing is run.
 */
class ReferenceChecksFileTest {

    @TempDir
    Path folder;

    /** A small run with a reference section; CHECKS is replaced by each test's checks. */
    static final String FILE = """
            name: probe
            workload:
              type: long-prefill
              prompts: 4
              promptTokens: 500
            store:
              l1CapacityGiB: 1
              l2CapacityGiB: 4
            sweep:
              store.policy: [lru, bip]
            reference:
              rows:
                - {label: "warm elapsed (s)", reference: "1.0", metric: warm.elapsedS, where: {store.policy: lru},
                   fitted: true, fittedFrom: "a hand fit"}
              checks:
            CHECKS
              discussion: |
                Check 1 passes, check 2 does not.
            """;

    private CommandRun runFile(String checks) throws IOException {
        Path file = folder.resolve("probe.yaml");
        Files.writeString(file, FILE.replace("CHECKS", checks));
        return RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out/probe").toString(), "-q");
    }

    private void assertOneClearLine(CommandRun run, String... fragments) {
        assertEquals(1, run.exitCode(), run.err());
        String err = run.err().strip();
        assertEquals(1, err.lines().count(), "one line: " + err);
        assertFalse(err.contains("Exception") || err.contains("\tat "), "no stack trace: " + err);
        for (String fragment : fragments) {
            assertTrue(err.contains(fragment), "'" + fragment + "' in: " + err);
        }
        assertFalse(Files.exists(folder.resolve("out")), "nothing is written for a bad file");
    }

    @Test
    void aGoodFilesReportShowsEachChecksResultAndTheFittedRow() throws IOException {
        CommandRun run = runFile("""
                    - {claim: "warm pass of lru takes time", metric: warm.elapsedS, where: {store.policy: lru}, above: 0}
                    - {claim: "lru is ten times slower than bip", metric: warm.elapsedS, where: {store.policy: lru},
                       ratioTo: {where: {store.policy: bip}}, atLeast: 10}
                """);
        assertEquals(0, run.exitCode(), run.err());
        String md = Files.readString(folder.resolve("out/probe/report.md"), StandardCharsets.UTF_8);
        assertTrue(md.contains("1 of 2 checks pass"), md);
        assertTrue(md.contains("| 1 | warm pass of lru takes time |"), md);
        assertTrue(md.contains("| > 0 |  | **PASS** |"), md);
        assertTrue(md.contains("| ratio ≥ 10 |  | **FAIL** |"), md);
        assertTrue(md.contains("| **fitted** (a hand fit) |"), md);
        assertTrue(run.out().contains("check 2 FAIL: lru is ten times slower than bip"), run.out());
    }

    @Test
    void anUnknownFieldOfACheckIsNamedWithItsLine() throws IOException {
        CommandRun run = runFile("""
                    - {claim: "c", metric: warm.elapsedS, nearr: 1}
                """);
        assertOneClearLine(run, "probe.yaml", "line 16", "unknown field", "nearr", "tolerance");
    }

    @Test
    void nearWithoutATolerance() throws IOException {
        CommandRun run = runFile("""
                    - {claim: "c", metric: warm.elapsedS,
                       near: 1}
                """);
        assertOneClearLine(run, "probe.yaml:16:", "reference.checks[0].tolerance: near needs a tolerance");
    }

    @Test
    void twoUpperBounds() throws IOException {
        CommandRun run = runFile("""
                    - {claim: "c", metric: warm.elapsedS, below: 2, atMost: 2}
                """);
        assertOneClearLine(run, "probe.yaml:16:", "reference.checks[0].atMost: one upper bound");
    }

    @Test
    void boundsThatNoValueCanPass() throws IOException {
        CommandRun run = runFile("""
                    - {claim: "c", metric: warm.elapsedS, below: 1, above: 2}
                """);
        assertOneClearLine(run, "probe.yaml:16:", "reference.checks[0].below: no value can pass");
    }

    @Test
    void anUnknownMetricOrParameterOfACheckOrItsRatio() throws IOException {
        assertOneClearLine(runFile("""
                    - {claim: "c", metric: warm.elapsd, above: 0}
                """), "probe.yaml:16:", "reference.checks[0].metric: unknown metric 'warm.elapsd'");
        assertOneClearLine(runFile("""
                    - {claim: "c", metric: warm.elapsedS, above: 0}
                    - {claim: "d", metric: warm.elapsedS, where: {store.polcy: lru}, above: 0}
                """), "probe.yaml:17:", "reference.checks[1].where.store.polcy: unknown parameter 'store.polcy'");
        assertOneClearLine(runFile("""
                    - {claim: "c", metric: warm.elapsedS, ratioTo: {metric: cold.elapsd}, above: 0}
                """), "probe.yaml:16:", "reference.checks[0].ratioTo.metric: unknown metric 'cold.elapsd'");
    }

    @Test
    void aRowFittedFromWithoutFitted() throws IOException {
        Path file = folder.resolve("probe.yaml");
        Files.writeString(file, FILE.replace("fitted: true, ", "").replace("CHECKS", "    - {claim: c, metric: warm.elapsedS,"
                + " above: 0}"));
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out/probe").toString(), "-q");
        assertOneClearLine(run, "probe.yaml", "reference.rows[0].fittedFrom: names what a fitted row was fitted to");
    }
}
