package tierlab.hunt;

import java.util.List;
import java.util.Set;

/** Hand-written schedules for unit tests. */
final class Schedules {
    private Schedules() {}

    /** tp 1, L1 of 2 blocks, L2 of 2 slots, 3 one-block chains, 2 readers. */
    static Schedule tinyStore(List<Step> steps) {
        return new Schedule(new HuntConfig(HuntConfig.Level.STORE, 1, 2, 2, "lru", true, 0.05, 1, true, true, 2, 3, 1, 0, 2,
                0, 2, 4, Set.of(), null, null), steps);
    }
}
