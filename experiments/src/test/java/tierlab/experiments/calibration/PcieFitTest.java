package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.sim.device.PcieProfile;

/** The PCIe fit on hand-computed points, and the sweep's copy counts. */
class PcieFitTest {

    /** A point whose copies each take {@code latencyNs + bytes / bytesPerNs}. */
    private static PcieSweep.Point point(PcieSweep.Direction direction, long bytes, int streams, boolean pinned,
                                         double latencyNs, double bytesPerNs) {
        int copies = 100;
        double nsPerCopy = latencyNs + bytes / bytesPerNs;
        double seconds = copies * nsPerCopy / 1e9;
        double rate = copies * bytes / seconds;
        return new PcieSweep.Point(direction, bytes, streams, pinned, copies, seconds, rate, nsPerCopy, rate, rate);
    }

    @Test
    void exactLinesGiveBackTheirLatencyAndBandwidth() {
        List<PcieSweep.Point> points = new ArrayList<>();
        for (long size : List.of(64L << 10, 1L << 20, 9L << 18, 64L << 20)) {
            // H2D: 2 µs + 55 bytes/ns (55 GB/s); D2H: 3 µs + 50 bytes/ns.
            points.add(point(PcieSweep.Direction.H2D, size, 1, true, 2_000, 55));
            points.add(point(PcieSweep.Direction.D2H, size, 1, true, 3_000, 50));
            // Not fitted: more streams, and pageable memory (a tenth of the rate).
            points.add(point(PcieSweep.Direction.H2D, size, 2, true, 0, 110));
            points.add(point(PcieSweep.Direction.H2D, size, 1, false, 10_000, 6.5));
        }
        PcieFit.Fit fit = PcieFit.fit(points);
        assertEquals(55e9, fit.hostToDevice().bytesPerSecond(), 55e9 * 1e-9);
        assertEquals(2_000, fit.hostToDevice().latencyNs());
        assertEquals(50e9, fit.deviceToHost().bytesPerSecond(), 50e9 * 1e-9);
        assertEquals(3_000, fit.deviceToHost().latencyNs());
        assertEquals(4, fit.hostToDevice().points());
        assertEquals(1.0, fit.hostToDevice().rSquared(), 1e-12);
        PcieProfile profile = fit.profile();
        assertEquals(55e9, profile.h2dBytesPerSecond(), 1);
        assertEquals(3_000, profile.d2hLatencyNs());
        assertTrue(PcieTables.fitLine("H2D", fit.hostToDevice()).startsWith("H2D: 55.00 GB/s, latency 2.0 µs"));
    }

    @Test
    void aNegativeInterceptIsZeroLatencyAndTooFewPointsAreRefused() {
        // Per-copy times 1000 ns and 2000 ns at 64 KiB and 128 KiB: slope 1/65.536 ns per byte, intercept 0.
        List<PcieSweep.Point> points = List.of(
                point(PcieSweep.Direction.H2D, 65_536, 1, true, -10, 65.536),
                point(PcieSweep.Direction.H2D, 131_072, 1, true, -10, 65.536),
                point(PcieSweep.Direction.D2H, 65_536, 1, true, 0, 10));
        assertEquals(0, PcieFit.direction(points, PcieSweep.Direction.H2D).latencyNs());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> PcieFit.direction(points, PcieSweep.Direction.D2H));
        assertEquals("D2H: the fit needs single-stream pinned points of two sizes or more, had 1", refused.getMessage());
    }

    @Test
    void copiesPerPointMoveTheTargetWithinBounds() {
        assertEquals(16_384, PcieSweep.copies(64L << 10, 1L << 30, 1));
        assertEquals(16, PcieSweep.copies(64L << 20, 1L << 30, 4));
        assertEquals(PcieSweep.MIN_COPIES, PcieSweep.copies(1L << 30, 1L << 30, 1));
        assertEquals(PcieSweep.MAX_COPIES, PcieSweep.copies(4096, 1L << 30, 1));
        assertEquals("2.25 MiB", PcieSweep.size(9L << 18));
        assertEquals("64 KiB", PcieSweep.size(64L << 10));
    }

    @Test
    void theTableHasOneRowPerPointAndTheMarkdownOneBlockPerDirection() {
        List<PcieSweep.Point> points = List.of(point(PcieSweep.Direction.H2D, 1L << 20, 1, true, 2_000, 50),
                point(PcieSweep.Direction.D2H, 1L << 20, 1, true, 2_000, 50),
                point(PcieSweep.Direction.H2D, 1L << 20, 1, false, 2_000, 6));
        assertEquals(3, PcieTables.table(points).rowCount());
        String md = PcieTables.markdown(points);
        assertTrue(md.contains("| H2D, pinned: GB/s (median) | 1 stream | µs per copy, 1 stream |"), md);
        // 1 MiB at 2 µs + 50 bytes/ns: 2,000 + 20,971.52 = 22,971.52 ns per copy, 1,048,576 / 22,971.52 = 45.65 GB/s.
        assertTrue(md.contains("| 1 MiB | 45.65 | 23.0 |"), md);
        // Pageable at 6 bytes/ns: 2,000 + 174,762.67 ns, 5.93 GB/s.
        assertTrue(md.contains("| H2D 1 MiB | 5.93 |"), md);
    }
}
