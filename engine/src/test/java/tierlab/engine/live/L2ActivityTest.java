package tierlab.engine.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Busy time, span and peak depth of a direction's operations, against hand-computed intervals. */
class L2ActivityTest {

    @Test
    void busyTimeIsTheUnionOfTheIntervalsAndThePeakTheMostOpenAtOnce() {
        L2Activity.Recorder recorder = new L2Activity.Recorder();
        // [100, 300), [150, 250), [200, 400): one busy run 100-400 with 3 open at 200.
        // [500, 600): a second run after an idle gap of 100. [600, 650): touches it, busy to 650.
        int a = recorder.started(100, 10);
        int b = recorder.started(150, 20);
        int c = recorder.started(200, 30);
        recorder.completed(b, 250);
        recorder.completed(a, 300);
        recorder.completed(c, 400);
        int d = recorder.started(500, 40);
        recorder.completed(d, 600);
        int e = recorder.started(600, 50);
        recorder.completed(e, 650);
        L2Activity activity = recorder.finish();
        assertEquals(5, activity.ops());
        assertEquals(150, activity.bytes());
        assertEquals(300 + 150, activity.busyNs());
        assertEquals(550, activity.spanNs());
        assertEquals(3, activity.maxInFlight(), "an interval ending when the next starts does not overlap it");
        // Operation times 200 + 100 + 200 + 100 + 50 = 650 over 450 busy.
        assertEquals(650 / 450.0, activity.meanInFlight(), 1e-12);
        assertEquals(150 / (450 / 1e9), activity.busyBytesPerSecond(), 1e-6);
        assertEquals(30, activity.meanOpBytes());
        assertSame(L2Activity.NONE, recorder.finish(), "finish starts the next pass empty");
    }

    @Test
    void aPassWithAnOperationStillInFlightIsRefused() {
        L2Activity.Recorder recorder = new L2Activity.Recorder();
        recorder.started(0, 1);
        assertThrows(IllegalStateException.class, recorder::finish);
    }
}
