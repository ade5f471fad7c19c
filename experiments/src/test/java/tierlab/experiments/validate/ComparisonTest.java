package tierlab.experiments.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tierlab.model.store.LookupResult.HitClass;

/** The comparison's arithmetic and its decision diffs, against values worked out by hand. */
class ComparisonTest {

    @Test
    void aRowIsTheSimAgainstTheLiveMedianBesideTheLiveSpread() {
        // Live 10, 12, 11: median 11, range 10–12, spread 2 / 11; sim 9.9 is 10% under the median.
        Comparison.Row row = Comparison.row("w", "cold", "elapsedS", "s", new double[] {10, 12, 11}, 9.9);
        assertEquals(11, row.liveMedian(), 1e-12);
        assertEquals(10, row.liveMin(), 1e-12);
        assertEquals(12, row.liveMax(), 1e-12);
        assertEquals(2.0 / 11, row.liveSpread(), 1e-12);
        assertEquals(-0.1, row.relativeError(), 1e-12);
        assertTrue(!row.withinLiveRange());
        assertTrue(Comparison.row("w", "cold", "elapsedS", "s", new double[] {10, 12}, 10.5).withinLiveRange());
        // An even count's median is the mean of the middle two; a zero base with no difference is 0, not NaN.
        assertEquals(11, Comparison.row("w", "cold", "elapsedS", "s", new double[] {12, 10}, 11).liveMedian(), 1e-12);
        assertEquals(0, Comparison.relative(0, 0), 1e-12);
        assertTrue(Double.isNaN(Comparison.relative(1, 0)));
    }

    @Test
    void pairedTtftErrorsAreRequestByRequest() {
        // Request 1: live 100 and 120 (median 110), sim 99 → |error| 0.1; request 2: live 200 and 200, sim 240 → 0.2.
        Observation liveA = observation("live", Map.of(1L, 100L, 2L, 200L), Map.of());
        Observation liveB = observation("live", Map.of(1L, 120L, 2L, 200L), Map.of());
        Observation sim = observation("sim", Map.of(1L, 99L, 2L, 240L), Map.of());
        List<Comparison.Row> rows = Comparison.pairedTtft("w", List.of(liveA, liveB), sim);
        // p50 of {0.1, 0.2} is their mean; p90 the larger.
        assertEquals(0.15, rows.get(0).relativeError(), 1e-12);
        assertEquals(0.2, rows.get(1).relativeError(), 1e-12);
        // Live against its own medians: 10/110 twice, 0 twice → p50 of {0, 0, 1/11, 1/11} = 1/22.
        assertEquals(1.0 / 22, rows.get(0).liveSpread(), 1e-12);
    }

    @Test
    void theFirstDifferingDecisionIsNamedWithItsCause() {
        Map<Long, Observation.Decision> simDecisions = new LinkedHashMap<>();
        simDecisions.put(1L, new Observation.Decision(1, HitClass.MISS, 0, 0));
        simDecisions.put(2L, new Observation.Decision(2, HitClass.L1, 0, 8));
        Map<Long, Observation.Decision> liveDecisions = new LinkedHashMap<>();
        liveDecisions.put(1L, new Observation.Decision(1, HitClass.MISS, 0, 0));
        liveDecisions.put(2L, new Observation.Decision(2, HitClass.L2, 0, 8));
        Observation sim = observation("sim", Map.of(), simDecisions);
        Observation live = observation("live", Map.of(), liveDecisions);
        Comparison.Decisions decisions = Comparison.decisions(List.of(live), sim);
        assertEquals(2, decisions.requests());
        assertEquals(1, decisions.identical());
        assertTrue(decisions.sameOrder());
        assertEquals(0, decisions.liveRepeatsAgreeing());
        assertTrue(decisions.firstDivergence().startsWith("request 2: sim L1 from block 0, 8 blocks hit, live L2"),
                decisions.firstDivergence());
        assertTrue(decisions.firstDivergence().contains("left L1"), decisions.firstDivergence());
        assertTrue(Comparison.decisions(List.of(sim), sim).firstDivergence() == null);
        assertEquals("evict 3/1; park 0/2", Comparison.kindsThatDiffer(Map.of("evict", 3L, "lookup", 2L),
                Map.of("evict", 1L, "lookup", 2L, "park", 2L)));
    }

    private static Observation observation(String mode, Map<Long, Long> ttft, Map<Long, Observation.Decision> lookups) {
        return new Observation(mode, 0, List.of(), new LinkedHashMap<>(ttft), lookups, lookups.size(), Map.of(), List.of(), 0, 0, 0,
                null, "0", "test", "host buffers: test", 0);
    }
}
