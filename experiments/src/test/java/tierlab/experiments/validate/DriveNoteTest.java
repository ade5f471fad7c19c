package tierlab.experiments.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.sim.device.NvmeProfile;

/** The report's proof that the drive outran its calibration: bytes over the pass's live time against the measured ceiling. */
class DriveNoteTest {

    private static final NvmeProfile NVME = new NvmeProfile(3, 64, 0, 1e9, 0, 1e9, "none", 1.6e9, 3.6e9, 2.2e9);

    private static Comparison.Row row(String pass, String metric, double live, double sim) {
        return new Comparison.Row("w", pass, metric, "", live, live, live, 0, sim, (sim - live) / live);
    }

    @Test
    void aColdPassWrittenFasterThanTheFirstWriteCeilingSaysSo() {
        // The idle build VM's E1-like cold pass: 5.44 GB in 1.82 s is 2.99 GB/s, above the 2.2 GB/s first-write ceiling.
        Comparison.Row elapsed = row("cold", "elapsedS", 1.82, 2.29);
        List<Comparison.Row> rows = List.of(elapsed, row("cold", "l2WriteBytes", 5.44e9, 5.44e9), row("cold", "l2ReadBytes", 0, 0));
        String note = ReportText.driveNote(elapsed, rows, NVME);
        assertTrue(note.contains("Live moved this pass's 5.44 GB of writes in 1.82 s, at least 2.99 GB/s"), note);
        assertTrue(note.contains("above the first-write ceiling the calibration measured (2.20 GB/s)"), note);
    }

    @Test
    void nothingIsClaimedWhenTheBoundStaysUnderTheCeilingOrTheSimulationIsFaster() {
        // 2.72 GB read in 2.24 s is 1.21 GB/s, under the 1.6 GB/s read ceiling: no proof either way.
        Comparison.Row warm = row("warm", "elapsedS", 2.24, 2.48);
        assertEquals("", ReportText.driveNote(warm, List.of(warm, row("warm", "l2ReadBytes", 2.72e9, 2.72e9)), NVME));
        // The simulation faster than live: not this note's case.
        Comparison.Row fast = row("cold", "elapsedS", 1.82, 1.5);
        assertEquals("", ReportText.driveNote(fast, List.of(fast, row("cold", "l2WriteBytes", 5.44e9, 5.44e9)), NVME));
        // Without a first-write ceiling the write ceiling is the one compared: 2.99 GB/s is under 3.6 GB/s.
        Comparison.Row cold = row("cold", "elapsedS", 1.82, 2.29);
        assertEquals("", ReportText.driveNote(cold, List.of(cold, row("cold", "l2WriteBytes", 5.44e9, 5.44e9)),
                NVME.withFreshWriteCeiling(0)));
        assertEquals("", ReportText.driveNote(row("cold", "ttftP50Ms", 640, 700), List.of(), NVME));
    }

    @Test
    void theCudaPayloadNoteFollowsLiveVerify() {
        // Without verification no compute step writes a payload, so the report must not say one does.
        assertTrue(ReportText.cudaPayloadNote(true).contains("with verification, the compute stream writes each computed"));
        String unverified = ReportText.cudaPayloadNote(false);
        assertTrue(unverified.contains("live.verify is false") && unverified.contains("no payload is written"), unverified);
        assertTrue(!unverified.contains("compute stream writes"), unverified);
    }
}
