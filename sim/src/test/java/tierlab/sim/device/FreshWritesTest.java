package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** First writes into untouched blocks of the L2 file, and the tracker of written ranges behind them. */
class FreshWritesTest {

    @Test
    void untouchedBytesCountsOnlyWhatNoEarlierWriteCovered() {
        WrittenExtents written = new WrittenExtents();
        assertEquals(100, written.untouchedBytes(0, 100));
        written.markWritten(100, 100);          // [100, 200)
        written.markWritten(300, 50);           // [300, 350)
        written.checkInvariants();
        assertEquals(2, written.intervals());
        // [50, 400): untouched 50..100, 200..300, 350..400 = 50 + 100 + 50.
        assertEquals(200, written.untouchedBytes(50, 350));
        assertEquals(0, written.untouchedBytes(120, 60));
        assertEquals(10, written.untouchedBytes(190, 20));
        written.markWritten(200, 100);          // touches both: one interval [100, 350)
        written.checkInvariants();
        assertEquals(1, written.intervals());
        assertEquals(250, written.writtenBytes());
        written.markWritten(0, 1000);           // swallows it
        written.checkInvariants();
        assertEquals(1, written.intervals());
        assertEquals(1000, written.writtenBytes());
        assertEquals(24, written.untouchedBytes(990, 34));
    }

    @Test
    void theInvariantCheckCatchesACorruptedSum() throws Exception {
        WrittenExtents written = new WrittenExtents();
        written.markWritten(0, 10);
        var field = WrittenExtents.class.getDeclaredField("writtenBytes");
        field.setAccessible(true);
        field.setLong(written, 11);
        assertThrows(IllegalStateException.class, written::checkInvariants);
    }

    /**
     * One channel at 10 GB/s, write ceiling 2 GB/s, first-write ceiling 1 GB/s, 1 MB writes arriving
     * at 0: the link, not the channel, decides. Hand-computed: a first write of 1,000,000 bytes takes
     * 1 ms on the link; the same bytes again 0.5 ms; a write half over written bytes 0.25 + 0.5 ms.
     */
    @Test
    void firstWritesCrossTheLinkAtTheFirstWriteCeiling() {
        NvmeProfile profile = new NvmeProfile(1, 64, 0, 10e9, 0, 10e9, "none", 0, 2e9, 1e9);
        NvmeModel nvme = new NvmeModel(profile, 1);
        assertEquals(1_000_000, nvme.submit(false, 0, 1_000_000, 0));
        assertEquals(1_500_000, nvme.submit(false, 0, 1_000_000, 0));
        assertEquals(2_250_000, nvme.submit(false, 500_000, 1_000_000, 0));
        assertEquals(1_500_000, nvme.freshWriteBytes());
        nvme.checkInvariants();
        // Reads never count as first writes, and the offset-less call charges the write ceiling.
        NvmeModel plain = new NvmeModel(profile.withFreshWriteCeiling(0), 1);
        assertEquals(500_000, plain.submit(false, 0, 1_000_000, 0));
        assertEquals(0, plain.freshWriteBytes());
    }

    @Test
    void withoutAWriteCeilingOnlyTheFirstWritesCrossTheLink() {
        NvmeProfile profile = new NvmeProfile(1, 64, 0, 10e9, 0, 10e9, "none", 0, 0, 1e9);
        NvmeModel nvme = new NvmeModel(profile, 1);
        // Channel: 0.1 ms; link: 1 ms for the first write, nothing for the overwrite.
        assertEquals(1_000_000, nvme.submit(false, 0, 1_000_000, 0));
        assertEquals(1_000_000 + 100_000, nvme.submit(false, 0, 1_000_000, 1_000_000));
    }
}
