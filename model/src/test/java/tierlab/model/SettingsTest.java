package tierlab.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

final class SettingsTest {

    @Test
    void positiveReturnsItsValueAndRejectsZeroAndNegativesNamingTheSetting() {
        assertEquals(1, Settings.positive("prefetchMaxRequests", 1));
        assertEquals(Long.MAX_VALUE, Settings.positive("prefetchMaxRequests", Long.MAX_VALUE));
        for (long bad : new long[] {0, -1, Long.MIN_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Settings.positive("prefetchMaxRequests", bad));
            assertTrue(e.getMessage().contains("prefetchMaxRequests"), e.getMessage());
            assertTrue(e.getMessage().contains(Long.toString(bad)), "the message reports the bad value: " + e.getMessage());
        }
    }

    @Test
    void nonNegativeAcceptsZeroAndRejectsNegativesNamingTheSetting() {
        assertEquals(0, Settings.nonNegative("stagingSlots", 0));
        assertEquals(7, Settings.nonNegative("stagingSlots", 7));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.nonNegative("stagingSlots", -1));
        assertTrue(e.getMessage().contains("stagingSlots"), e.getMessage());
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
    }

    @Test
    void pageAlignedAcceptsMultiplesOf4KiBOnly() {
        assertEquals(4096, Settings.pageAligned("l2CapacityBytes", 4096));
        assertEquals(64L << 30, Settings.pageAligned("l2CapacityBytes", 64L << 30));
        for (long bad : new long[] {1, 4095, 4097, 8191, 6144}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Settings.pageAligned("l2CapacityBytes", bad));
            assertTrue(e.getMessage().contains("l2CapacityBytes"), e.getMessage());
            assertTrue(e.getMessage().contains("4096"), "the message states the required multiple: " + e.getMessage());
        }
    }

    @Test
    void pageAlignedRejectsZeroAndNegativeNamingTheSetting() {
        // Zero and -4096 are multiples of 4096, so only the positivity check can refuse them.
        for (long bad : new long[] {0, -4096}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Settings.pageAligned("l1CapacityBytes", bad));
            assertTrue(e.getMessage().contains("l1CapacityBytes"), e.getMessage());
        }
    }

    @Test
    void roundUpToPageRoundsToTheNextMultipleOf4KiB() {
        assertEquals(4096, Settings.PAGE_BYTES);
        assertEquals(0, Settings.roundUpToPage(0));
        assertEquals(4096, Settings.roundUpToPage(1));
        assertEquals(4096, Settings.roundUpToPage(4095));
        assertEquals(4096, Settings.roundUpToPage(4096));
        assertEquals(8192, Settings.roundUpToPage(4097));
        assertEquals(2_359_296, Settings.roundUpToPage(2_359_296));
        assertEquals(2_363_392, Settings.roundUpToPage(2_359_297));
        assertEquals(1L << 40, Settings.roundUpToPage((1L << 40) - 1));
    }
}
