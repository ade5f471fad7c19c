package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tierlab.experiments.run.ExperimentFile.OtherRuns;
import tierlab.experiments.run.ExperimentFile.ReferenceCheck;
import tierlab.experiments.run.ExperimentFile.ReferenceRow;
import tierlab.experiments.run.ExperimentFile.ReferenceSection;

/**
 * Each comparison of {@code reference.checks} evaluated on a hand-made results table, and the
 * report's checks table and fitted marks drawn from it.
 */
class ReferenceChecksTest {

    /**
     * Two cells of two seeds each: {@code policy=lru} with warm.elapsedS 100 and 102 (mean 101) and
     * {@code policy=bip} with 20 and 30 (mean 25); warm.zero is 0 everywhere, warm.nan NaN in bip.
     */
    static RunTables tables() {
        List<RunTables.Row> rows = new ArrayList<>();
        List<RunTables.Cell> cells = new ArrayList<>();
        double[][] elapsed = {{100, 102}, {20, 30}};
        String[] policies = {"lru", "bip"};
        int index = 0;
        for (int cell = 0; cell < 2; cell++) {
            List<RunTables.Row> cellRows = new ArrayList<>();
            for (int seed = 0; seed < 2; seed++) {
                Map<String, Object> parameters = new LinkedHashMap<>();
                parameters.put("store.policy", policies[cell]);
                parameters.put("store.l1CapacityGiB", 64.0);
                Map<String, Double> metrics = new LinkedHashMap<>();
                metrics.put("warm.elapsedS", elapsed[cell][seed]);
                metrics.put("warm.zero", 0.0);
                metrics.put("warm.nan", cell == 1 ? Double.NaN : 1.0);
                RunTables.Row row = new RunTables.Row(index++, policies[cell], seed, parameters, metrics, null, List.of(),
                        Map.of(), Map.of());
                cellRows.add(row);
                rows.add(row);
            }
            cells.add(new RunTables.Cell(cellRows.getFirst().parameters(), Map.of("store.policy",
                    JsonNodeFactory.instance.textNode(policies[cell])), cellRows));
        }
        return new RunTables(Path.of("out", "probe"), "probe", "sim", List.of("store.policy"),
                List.of("warm.elapsedS", "warm.zero", "warm.nan"), List.of("warm"), List.of(1L, 2L),
                new RunTables.RunRecord("tierlab run probe.yaml", "abc", 1.0, 1), rows, cells);
    }

    static Map<String, JsonNode> where(String policy) {
        return Map.of("store.policy", JsonNodeFactory.instance.textNode(policy));
    }

    static ReferenceCheck near(String policy, double near, double tolerance) {
        return new ReferenceCheck("near", "warm.elapsedS", where(policy), near, tolerance, null, null, null, null, null, null,
                null, null);
    }

    static ReferenceCheck bounds(String metric, String policy, Double below, Double atMost, Double above, Double atLeast) {
        return new ReferenceCheck("bounds", metric, policy == null ? null : where(policy), null, null, below, atMost, above,
                atLeast, null, null, null, null);
    }

    static ReferenceCheck ratio(String policy, OtherRuns ratioTo, Double atLeast, Double atMost) {
        return new ReferenceCheck("ratio", "warm.elapsedS", where(policy), null, null, null, atMost, null, atLeast, ratioTo,
                null, null, null);
    }

    static ReferenceChecks.Evaluated evaluate(ReferenceCheck check) {
        assertNull(ReferenceChecks.shapeProblem(check), "a well-formed check");
        return ReferenceChecks.evaluate(List.of(check), tables()).getFirst();
    }

    @Test
    void nearPassesWithinItsRelativeToleranceAndFailsOutside() {
        ReferenceChecks.Evaluated within = evaluate(near("lru", 100, 0.01));
        assertEquals(101.0, within.value().mean());
        assertEquals(2, within.value().runs(), "the two runs of the lru cell");
        assertTrue(within.passed());
        assertFalse(evaluate(near("lru", 100, 0.009)).passed(), "1% off is outside a 0.9% tolerance");
        assertTrue(evaluate(near("lru", 101, 0)).passed(), "tolerance 0 is equality");
        assertFalse(evaluate(near("bip", 101, 0.5)).passed(), "bip's 25 is far from 101");
    }

    @Test
    void belowAndAboveAreStrictAtMostAndAtLeastInclusive() {
        assertFalse(evaluate(bounds("warm.elapsedS", "bip", 25.0, null, null, null)).passed(), "25 is not below 25");
        assertTrue(evaluate(bounds("warm.elapsedS", "bip", null, 25.0, null, null)).passed(), "25 is at most 25");
        assertFalse(evaluate(bounds("warm.elapsedS", "bip", null, null, 25.0, null)).passed(), "25 is not above 25");
        assertTrue(evaluate(bounds("warm.elapsedS", "bip", null, null, null, 25.0)).passed(), "25 is at least 25");
        assertTrue(evaluate(bounds("warm.elapsedS", "bip", 26.0, null, 24.0, null)).passed(), "a range holds 25");
        assertFalse(evaluate(bounds("warm.elapsedS", "bip", 24.0, null, 20.0, null)).passed(), "a range without 25");
        assertTrue(evaluate(bounds("warm.elapsedS", null, null, null, null, 63.0)).passed(), "no where: every run, mean 63");
        assertFalse(evaluate(bounds("warm.elapsedS", null, null, null, 63.0, null)).passed());
    }

    @Test
    void aRatioComparesTwoSelections() {
        ReferenceChecks.Evaluated ratio = evaluate(ratio("lru", new OtherRuns(null, where("bip")), 4.0, null));
        assertEquals(101.0 / 25.0, ratio.compared());
        assertEquals(25.0, ratio.other().mean());
        assertTrue(ratio.passed());
        assertFalse(evaluate(ratio("lru", new OtherRuns(null, where("bip")), 4.1, null)).passed(), "4.04 is below 4.1");
        assertTrue(evaluate(ratio("bip", new OtherRuns("warm.nan", where("lru")), null, 25.0)).passed(),
                "another metric as the denominator: 25 / 1");
    }

    @Test
    void aSelectionThatMatchesNoRunOrGivesNoNumberFailsWithTheReason() {
        ReferenceChecks.Evaluated none = evaluate(near("fifo", 1, 0.1));
        assertFalse(none.passed());
        assertTrue(none.reason().contains("no run matches where `store.policy=fifo`"), none.reason());
        ReferenceChecks.Evaluated noDenominator = evaluate(ratio("lru", new OtherRuns(null, where("fifo")), 1.0, null));
        assertFalse(noDenominator.passed());
        assertTrue(noDenominator.reason().startsWith("ratioTo: no run matches"), noDenominator.reason());
        ReferenceChecks.Evaluated zero = evaluate(ratio("lru", new OtherRuns("warm.zero", null), 1.0, null));
        assertFalse(zero.passed());
        assertTrue(zero.reason().contains("its mean is 0"), zero.reason());
        ReferenceChecks.Evaluated nan = evaluate(bounds("warm.nan", "bip", null, null, null, 0.0));
        assertFalse(nan.passed());
        assertTrue(nan.reason().contains("not a number"), nan.reason());
    }

    @Test
    void aMalformedCheckIsNamedByItsField() {
        assertEquals("tolerance", field(shape("c", "m", 1.0, null, null, null, null, null)));
        assertEquals("tolerance", field(shape("c", "m", null, 0.1, 2.0, null, null, null)));
        assertEquals("near", field(shape("c", "m", 1.0, 0.1, 2.0, null, null, null)));
        assertEquals("near", field(shape("c", "m", null, null, null, null, null, null)));
        assertEquals("atMost", field(shape("c", "m", null, null, 2.0, 2.0, null, null)));
        assertEquals("atLeast", field(shape("c", "m", null, null, null, null, 1.0, 1.0)));
        assertEquals("below", field(shape("c", "m", null, null, 2.0, null, null, 2.0)));
        assertNull(ReferenceChecks.shapeProblem(shape("c", "m", null, null, null, 2.0, null, 2.0)), "atLeast 2 and atMost 2 admits 2");
        assertEquals("tolerance", field(shape("c", "m", 1.0, -0.1, null, null, null, null)));
        assertEquals("claim", field(shape(" ", "m", null, null, 1.0, null, null, null)));
        assertEquals("metric", field(shape("c", null, null, null, 1.0, null, null, null)));
        assertEquals("below", field(shape("c", "m", null, null, Double.NaN, null, null, null)));
        OtherRuns bip = new OtherRuns(null, where("bip"));
        assertEquals("fittedFrom", field(new ReferenceCheck("c", "m", null, null, null, 1.0, null, null, null, null, null, null,
                "x")));
        assertEquals("ratioTo", field(new ReferenceCheck("c", "m", null, null, null, 1.0, null, null, null,
                new OtherRuns(null, null), null, null, null)));
        assertEquals("differenceTo", field(new ReferenceCheck("c", "m", null, null, null, 1.0, null, null, null, bip, bip, null,
                null)));
    }

    private static ReferenceCheck shape(String claim, String metric, Double near, Double tolerance, Double below, Double atMost,
                                        Double above, Double atLeast) {
        return new ReferenceCheck(claim, metric, null, near, tolerance, below, atMost, above, atLeast, null, null, null, null);
    }

    @Test
    void aDifferenceComparesTwoSelectionsBySubtraction() {
        ReferenceCheck fewer = new ReferenceCheck("bip is at least 70 s shorter", "warm.elapsedS", where("bip"), null, null,
                null, -70.0, null, null, null, new OtherRuns(null, where("lru")), null, null);
        ReferenceChecks.Evaluated difference = evaluate(fewer);
        assertEquals(25.0 - 101.0, difference.compared());
        assertTrue(difference.passed());
        ReferenceCheck nearer = new ReferenceCheck("c", "warm.elapsedS", where("bip"), -80.0, 0.04, null, null, null, null,
                null, new OtherRuns(null, where("lru")), null, null);
        assertFalse(evaluate(nearer).passed(), "-76 is 5% from -80, outside 4%");
        assertEquals("difference ≤ -70", ReferenceChecks.bound(fewer));
        ReferenceCheck againstZero = new ReferenceCheck("c", "warm.elapsedS", where("lru"), null, null, null, null, null, 0.0,
                null, new OtherRuns("warm.zero", null), null, null);
        assertTrue(evaluate(againstZero).passed(), "a difference from a mean of 0 is no division");
    }

    private static String field(ReferenceCheck check) {
        String problem = ReferenceChecks.shapeProblem(check);
        return problem == null ? null : problem.substring(0, problem.indexOf(':'));
    }

    @Test
    void theReportShowsEveryCheckWithItsValueBoundAndResultAndMarksFittedRows() {
        ReferenceRow fitted = new ReferenceRow("warm elapsed (s), lru", "100.41", "warm.elapsedS", where("lru"), true,
                "the host profile's per-call costs");
        ReferenceRow predicted = new ReferenceRow("warm elapsed (s), bip", "not measured", "warm.elapsedS", where("bip"),
                null, null);
        List<ReferenceCheck> checks = List.of(
                new ReferenceCheck("lru within 1% of 100", "warm.elapsedS", where("lru"), 100.0, 0.01, null, null, null, null,
                        null, null, true, "E1's warm pass"),
                ratio("lru", new OtherRuns(null, where("bip")), 5.0, null),
                near("fifo", 1, 0.1));
        ChartSpecs specs = new ChartSpecs(Path.of("probe.yaml"), null, "probe", null, List.of(),
                new ReferenceSection("The source.", List.of(fitted, predicted), checks, "Check 1 holds by construction."));
        RunTables tables = tables();
        String md = ReportWriter.markdown(specs, tables, new ChartRenderer.Rendered(List.of(), List.of()),
                ReportWriter.reference(specs, tables), ReferenceChecks.evaluate(checks, tables), List.of());
        assertTrue(md.contains("| | reference | tierlab | fitted? | from |"), md);
        assertTrue(md.contains("| warm elapsed (s), lru | 100.41 | 101 | **fitted** (the host profile's per-call costs) |"), md);
        assertTrue(md.contains("| warm elapsed (s), bip | not measured | 25 |  |"), md);
        assertTrue(md.contains("1 of 3 checks pass"), md);
        assertTrue(md.contains("| 1 | lru within 1% of 100 | 101 | within 1% of 100 | **fitted** (E1's warm pass) | **PASS** |"
                + " `warm.elapsedS` where `store.policy=lru`, 2 runs |"), md);
        assertTrue(md.contains("| 2 | ratio | 101 / 25 = 4.040 | ratio ≥ 5 |  | **FAIL** | `warm.elapsedS` where"
                + " `store.policy=lru`, 2 runs ÷ `warm.elapsedS` where `store.policy=bip`, 2 runs |"), md);
        assertTrue(md.contains("| 3 | near | — | within 10% of 1 |  | **FAIL**: no run matches where `store.policy=fifo` |"), md);
        assertTrue(md.indexOf("### Checks") < md.indexOf("Check 1 holds by construction."), "the discussion follows the checks");
    }

    @Test
    void boundsAreWrittenAsTheFileWroteThem() {
        assertEquals("within 10% of 100.41", ReferenceChecks.bound(near("lru", 100.41, 0.1)));
        assertEquals("> 0.5 and < 0.6", ReferenceChecks.bound(bounds("m", null, 0.6, null, 0.5, null)));
        assertEquals("ratio ≥ 3", ReferenceChecks.bound(ratio("lru", new OtherRuns(null, where("bip")), 3.0, null)));
        assertEquals("= 1", ReferenceChecks.bound(near("lru", 1, 0)));
    }
}
