package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PrefetchStopTest {

    @Test
    void readsEachFormAndWritesItBack() {
        assertEquals(PrefetchStop.WAIT_COMPLETE, PrefetchStop.parse("wait-complete"));
        assertEquals(PrefetchStop.BEST_EFFORT, PrefetchStop.parse(" Best-Effort "));
        PrefetchStop timeout = PrefetchStop.parse("timeout:50+2.5");
        assertEquals(PrefetchStop.Kind.TIMEOUT, timeout.kind());
        assertEquals(50_000_000L, timeout.baseNs());
        assertEquals(2_500_000L, timeout.perKiloTokenNs());
        assertEquals("timeout:50+2.5", timeout.settingText());
        assertEquals("wait-complete", PrefetchStop.WAIT_COMPLETE.settingText());
        assertEquals("best-effort", PrefetchStop.BEST_EFFORT.settingText());
    }

    @Test
    void deadlinesByHand() {
        // wait-complete never stops; best-effort stops at once; timeout: 50 ms + 2 ms per 1,024 tokens.
        assertEquals(Long.MAX_VALUE, PrefetchStop.WAIT_COMPLETE.deadlineNs(1_000, 8192));
        assertEquals(1_000, PrefetchStop.BEST_EFFORT.deadlineNs(1_000, 8192));
        PrefetchStop timeout = PrefetchStop.timeout(50_000_000L, 2_000_000L);
        // 8,192 tokens = 8 ki tokens → 16 ms on top of the base.
        assertEquals(1_000 + 50_000_000L + 16_000_000L, timeout.deadlineNs(1_000, 8192));
        // 1,536 tokens = 1.5 ki → 3 ms; 100 tokens → 195,312 ns (rounded down).
        assertEquals(53_000_000L, timeout.deadlineNs(0, 1536));
        assertEquals(50_195_312L, timeout.deadlineNs(0, 100));
        // A deadline past the end of time is no deadline.
        assertEquals(Long.MAX_VALUE, PrefetchStop.timeout(Long.MAX_VALUE / 2, Long.MAX_VALUE / 2).deadlineNs(Long.MAX_VALUE / 2, 4096));
        assertTrue(PrefetchStop.WAIT_COMPLETE.waitsForAll());
    }

    @Test
    void refusesOtherTextInOneLine() {
        for (String bad : new String[] {"", "wait", "timeout:50", "timeout:-1+2", "timeout:a+b", "timeout:1+2+3"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PrefetchStop.parse(bad));
            assertTrue(e.getMessage().startsWith("prefetchStop: '"), e.getMessage());
            assertTrue(!e.getMessage().contains("\n"));
        }
        assertThrows(IllegalArgumentException.class, () -> new PrefetchStop(PrefetchStop.Kind.BEST_EFFORT, 1, 0));
    }

    @Test
    void settingsCarryTheStopAndLayerGroups() {
        SchedulerSettings settings = SchedulerSettings.defaults(100);
        assertEquals(PrefetchStop.WAIT_COMPLETE, settings.prefetchStop());
        assertEquals(1, settings.loadLayerGroups());
        SchedulerSettings changed = settings.withPrefetchStop(PrefetchStop.BEST_EFFORT).withLoadLayerGroups(4).withEngine("serial");
        assertEquals(PrefetchStop.BEST_EFFORT, changed.prefetchStop());
        assertEquals(4, changed.loadLayerGroups());
        assertThrows(IllegalArgumentException.class, () -> settings.withLoadLayerGroups(0));
    }
}
