package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import tierlab.engine.IoUringBackend;
import tierlab.model.testkit.TestDirectories;
import tierlab.sim.device.NvmeProfile;

/** The sustained measurement lowers the sweep's ceilings only where the drive sustains less, and measures both directions. */
class SustainedRatesTest {

    private static final NvmeProfile SWEPT = new NvmeProfile(3, 64, 30_000, 2.8e9, 36_000, 4.2e9, "none", 2.16e9, 3.10e9);

    private static SustainedRates.Rates rates(double read, double write) {
        return new SustainedRates.Rates(read, write, 2304 << 10, 16, 3000, 4096L << 20, "io_uring");
    }

    @Test
    void aLowerSustainedRateBecomesTheCeiling() {
        // The H200 host's case: the sweep's 3.10 GB/s write ceiling, a drive that sustains 2.2 GB/s over seconds.
        NvmeProfile capped = SustainedRates.cap(SWEPT, rates(2.5e9, 2.2e9));
        assertEquals(2.16e9, capped.maxReadBytesPerSecond(), "reads sustained above the sweep's ceiling keep it");
        assertEquals(2.2e9, capped.maxWriteBytesPerSecond());
        // Nothing else of the fit moves.
        assertEquals(SWEPT.withCeilings(2.16e9, 2.2e9), capped);
    }

    @Test
    void noCeilingIsAlwaysLoweredAndNoMeasurementChangesNothing() {
        NvmeProfile open = SWEPT.withCeilings(0, 0);
        assertEquals(open.withCeilings(1.5e9, 1.9e9), SustainedRates.cap(open, rates(1.5e9, 1.9e9)));
        assertEquals(SWEPT, SustainedRates.cap(SWEPT, rates(0, Double.NaN)));
        assertEquals(SWEPT, SustainedRates.cap(SWEPT, rates(9e9, 9e9)));
    }

    @Test
    void bothDirectionsAreMeasuredAndTheFileIsDeleted() throws Exception {
        Assumptions.assumeTrue(IoUringBackend.probe().available(), () -> "io_uring unavailable: " + IoUringBackend.probe().cause());
        Path file = TestDirectories.underTarget("sustained").resolve("sustained.bin");
        SustainedRates.Rates rates = SustainedRates.measure(file, 16L << 20, 1 << 20, 4, Duration.ofMillis(100), 7);
        assertTrue(rates.readBytesPerSecond() > 0 && rates.writeBytesPerSecond() > 0, rates.toString());
        assertEquals(1 << 20, rates.blockBytes());
        assertEquals(4, rates.queueDepth());
        assertTrue(rates.describe().contains("1024 KiB × queue depth 4 on a 16 MiB file"), rates.describe());
        assertFalse(Files.exists(file));
        // The first writes into a fresh preallocated file were measured (or said why not), and that file is gone too.
        assertTrue(rates.freshWriteBytesPerSecond() > 0 || rates.freshNote().startsWith("first writes not measured"), rates.toString());
        assertTrue(rates.describe().contains("first writes"), rates.describe());
        assertFalse(Files.exists(file.resolveSibling(file.getFileName() + ".fresh")));
    }

    @Test
    void slowerFirstWritesBecomeTheFirstWriteCeilingAndFasterOnesAreIgnored() {
        // This VM's case (docs/validation.md): overwrites 2.85 GB/s, first writes into fallocated extents 1.79 GB/s.
        NvmeProfile capped = SustainedRates.cap(SWEPT, rates(2.5e9, 2.85e9).withFresh(1.79e9, "measured"));
        assertEquals(2.85e9, capped.maxWriteBytesPerSecond());
        assertEquals(1.79e9, capped.maxFreshWriteBytesPerSecond());
        // First writes as fast as (or faster than) the write ceiling: no distinction.
        assertEquals(0, SustainedRates.cap(SWEPT, rates(2.5e9, 2.85e9).withFresh(3.0e9, "measured")).maxFreshWriteBytesPerSecond());
        // Not measured: no distinction.
        assertEquals(0, SustainedRates.cap(SWEPT, rates(2.5e9, 2.85e9)).maxFreshWriteBytesPerSecond());
        // Against an open write ceiling any measured first-write rate is a ceiling.
        assertEquals(1.79e9, SustainedRates.cap(SWEPT.withCeilings(0, 0), rates(0, 0).withFresh(1.79e9, "m"))
                .maxFreshWriteBytesPerSecond());
    }
}
