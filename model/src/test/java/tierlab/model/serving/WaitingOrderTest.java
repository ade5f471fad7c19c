package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import tierlab.model.store.L2WritePolicy;
import tierlab.model.testkit.Rejections;

/** sglang's two scheduler settings: the waiting order's forms, and both fields' defaults and refusals. */
class WaitingOrderTest {

    @Test
    void readsBothFormsAndRefusesAnythingElseNamingTheSetting() {
        assertEquals(WaitingOrder.LPM, WaitingOrder.parse("lpm"));
        assertEquals(WaitingOrder.FCFS, WaitingOrder.parse(" FCFS "));
        assertEquals("lpm", WaitingOrder.LPM.settingName());
        Rejections.assertRejectedLeading("scheduler.waitingOrder: 'random' is not lpm or fcfs", () -> WaitingOrder.parse("random"));
        Rejections.assertRejectedLeading("scheduler.waitingOrder", () -> WaitingOrder.parse(null));
    }

    @Test
    void theDefaultsAreWriteThroughAndLpmAndEveryWitherKeepsThem() {
        SchedulerSettings defaults = SchedulerSettings.defaults(64);
        assertEquals(L2WritePolicy.WRITE_THROUGH, defaults.hostWritePolicy());
        assertEquals(WaitingOrder.LPM, defaults.waitingOrder());
        SchedulerSettings sglang = defaults.withHostWritePolicy(L2WritePolicy.WRITE_BACK).withWaitingOrder(WaitingOrder.FCFS);
        SchedulerSettings changed = sglang.withConcurrency(8).withPrefetch(1, false).withoutOffload().withEngine("sglang")
                .withPrefixCaching(false).withPrefetchStop(PrefetchStop.BEST_EFFORT).withLoadLayerGroups(2);
        assertEquals(L2WritePolicy.WRITE_BACK, changed.hostWritePolicy());
        assertEquals(WaitingOrder.FCFS, changed.waitingOrder());
        Rejections.assertRejectedNaming("hostWritePolicy", () -> defaults.withHostWritePolicy(null));
        Rejections.assertRejectedNaming("waitingOrder", () -> defaults.withWaitingOrder(null));
    }
}
