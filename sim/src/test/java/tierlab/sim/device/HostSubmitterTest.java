package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** io_uring_enter calls and completion times of the simulated submitter, counted by hand. */
class HostSubmitterTest {

    @Test
    void oneSubmitterMakesOneCallPerSubmissionAndQueuesThem() {
        HostSubmitter submitter = new HostSubmitter(new HostProfile(1_000, 100));
        assertEquals(1_800, submitter.submit(8, 0));        // 1,000 + 8 × 100
        assertEquals(1_800 + 1_800, submitter.submit(8, 0)); // behind the first
        assertEquals(10_100, submitter.submit(1, 9_000));    // idle again at 9,000
        assertEquals(3, submitter.enterCalls());
        assertEquals(3, submitter.submissions());
        assertEquals(17, submitter.operations());
        submitter.checkInvariants();
    }

    @Test
    void ringsTakeSubmissionsInTurnAndFoldWhatOneDrainHandsThem() {
        // A request's promotions: 24 read batches of 8 in one drain, at one instant, over 8 rings.
        HostSubmitter submitter = new HostSubmitter(new HostProfile(0, 0).withIoRings(8));
        for (int batch = 0; batch < 24; batch++) {
            assertEquals(5_000, submitter.submit(8, 5_000));
            submitter.checkInvariants();
        }
        // Ring r received batches r, r + 8 and r + 16: one call each.
        assertEquals(8, submitter.enterCalls());
        assertEquals(24, submitter.submissions());
        assertEquals(192, submitter.operations());
        // The next drain, later: a new call on each ring it reaches (batches 24 and 25 go to rings 0 and 1).
        submitter.submit(8, 6_000);
        submitter.submit(8, 6_000);
        assertEquals(10, submitter.enterCalls());
    }

    @Test
    void aRingStillBusyFoldsLaterSubmissionsIntoItsNextCall() {
        // Two rings, 1,000 ns per call and 100 per operation.
        HostSubmitter submitter = new HostSubmitter(new HostProfile(1_000, 100).withIoRings(2));
        assertEquals(1_400, submitter.submit(4, 0));     // ring 0: call 0–1,400
        assertEquals(1_400, submitter.submit(4, 0));     // ring 1: call 0–1,400
        assertEquals(2_800, submitter.submit(4, 500));   // ring 0 busy until 1,400: next call 1,400–2,800
        assertEquals(2_800, submitter.submit(4, 600));   // ring 1 likewise
        // Ring 0's second call starts at 1,400, after 700: this submission joins it, 4 × 100 ns more.
        assertEquals(3_200, submitter.submit(4, 700));
        assertEquals(4, submitter.enterCalls());
        assertEquals(5, submitter.submissions());
        // Ring 1's second call has started by 2,000: a new call after it.
        assertEquals(2_800 + 1_400, submitter.submit(4, 2_000));
        assertEquals(5, submitter.enterCalls());
        submitter.checkInvariants();
    }

    @Test
    void withCostsOfZeroBothFormsGiveTheSameTimes() {
        HostSubmitter one = new HostSubmitter(new HostProfile(0, 0));
        HostSubmitter rings = new HostSubmitter(new HostProfile(0, 0).withIoRings(8));
        long[] readyNs = {0, 0, 0, 10, 10, 25, 25, 25, 25, 25, 25, 25, 25, 25, 40};
        for (long ready : readyNs) {
            assertEquals(one.submit(3, ready), rings.submit(3, ready));
        }
        assertEquals(readyNs.length, one.enterCalls());
        // Instants 0 (3 on rings 0–2), 10 (rings 3, 4), 25 (9 over rings 5–7, 0–5: ring 5 twice) and 40 (ring 6).
        assertEquals(3 + 2 + 8 + 1, rings.enterCalls());
    }

    @Test
    void aProfileNamesAtMostSixtyFourRings() {
        assertThrows(IllegalArgumentException.class, () -> new HostProfile(0, 0).withIoRings(65));
        assertThrows(IllegalArgumentException.class, () -> new HostProfile(0, 0).withIoRings(-1));
    }
}
