package tierlab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.engine.IoCounters;

class EngineVsFioReportTest {

    @Test
    void rangesOfRounds() {
        assertEquals(1.0, BenchStats.min(List.of(3.0, 1.0, 2.0)));
        assertEquals(3.0, BenchStats.max(List.of(3.0, 1.0, 2.0)));
    }

    private static EngineVsFio.Round round(BenchCase benchCase, int round, double engineMib, double fioMib) {
        long seconds = 5;
        long bytes = (long) (engineMib * seconds * (1 << 20));
        ClosedLoopRunner.Result engine = new ClosedLoopRunner.Result(bytes / benchCase.blockBytes(), bytes, seconds * 1_000_000_000L, 0, null);
        IoCounters counters = new IoCounters(0, engine.ops(), 0, bytes, engine.ops(), engine.ops(), engine.ops(), 0, 0,
                engine.ops() / 4, engine.ops() / 4, 0, 0);
        FioResult fio = new FioResult("fio-3.33", benchCase.name(), (long) (fioMib * seconds * (1 << 20)), seconds * 1000,
                fioMib * (1 << 20), 0);
        return new EngineVsFio.Round(benchCase, round, round % 2 == 1, engine, counters, fio);
    }

    @Test
    void summaryUsesPerRoundRatiosNotRatiosOfMedians() {
        BenchCase qd8 = BenchCase.acceptanceCases().get(1);
        List<EngineVsFio.Round> rounds = List.of(round(qd8, 1, 1000, 1000), round(qd8, 2, 900, 1200), round(qd8, 3, 1100, 1000));
        EngineVsFio.CaseSummary summary = EngineVsFio.CaseSummary.of(qd8, rounds);
        assertEquals(1000, summary.engineMibMedian(), 1e-6);
        assertEquals(1000, summary.fioMibMedian(), 1e-6);
        assertEquals(1.0, summary.ratioMedian(), 1e-6, "median of 1.0, 0.75, 1.1");
        assertEquals(0.75, summary.ratioMin(), 1e-6);
        assertEquals(1.1, summary.ratioMax(), 1e-6);
        assertEquals(0.25, summary.engineEnterPerOpMedian(), 0.01);

        SubmissionBatchingProbe.Result batched = new SubmissionBatchingProbe.Result("batched", 2048, 256, 700, 256, 30, 0);
        SubmissionBatchingProbe.Result unbatched = new SubmissionBatchingProbe.Result("unbatched", 2048, 2048, 1100, 500, 300, 0);
        String markdown = EngineVsFioReport.markdown("header\n", List.of(summary), List.of(unbatched, batched));
        assertTrue(markdown.contains("| randread-128k-qd8 | 1000.0 | 1000.0 | 1.000 | 0.750–1.100 | 0.25 |"), markdown);
        assertTrue(markdown.contains("median ratio >= 0.95 for 128 KiB random reads at QD 8: 1.000 over 3 round(s), met."), markdown);
        assertTrue(markdown.contains("| batched (8 per submit) | 0.125 | 0.125 | 0.342 | 0.015 |"), markdown);
        assertTrue(markdown.contains("| unbatched (1 per submit) | 1.000 | 0.244 | 0.537 | 0.146 |"), markdown);

        String csv = EngineVsFioReport.summaryCsv(List.of(summary));
        assertTrue(csv.lines().toList().get(1).startsWith("randread-128k-qd8,randread,131072,8,3,1000.00,1000.00,1.0000,0.7500,1.1000,"), csv);
        assertEquals(4, EngineVsFioReport.roundsCsv(rounds).lines().count());
    }
}
