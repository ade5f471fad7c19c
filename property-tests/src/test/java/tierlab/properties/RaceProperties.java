package tierlab.properties;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tierlab.hunt.Finding;
import tierlab.hunt.Profile;
import tierlab.model.KnownBug;

/**
 * One property per race of docs/tiered-store.md section 7, with its fix in place: schedules drawn from
 * the race's profile (the configuration and operation mix that reach its interleaving, see
 * {@link Profile#forRace}) keep every check of the stateful runner: the invariants after every step,
 * the payload ledger, the reference model, liveness at the end. What each race must hold, and
 * which check sees it broken:
 *
 * <ul>
 *   <li>R1 stale promotion: later loads see the newest bytes (I6 payload mismatch).</li>
 *   <li>R2 pending-write slice reused: L2 gets the bytes of the last store (I7) and loads stay right (I6).</li>
 *   <li>R3 two writes to one range: L2 ends with the last store's bytes (I7).</li>
 *   <li>R4 lease vs. store: no publish over a leased range (checkInvariants R4; reference commit timing).</li>
 *   <li>R5 lease admission: remaining lease bytes within L1 (I4, against the reference's admission).</li>
 *   <li>R6 overlapping prefetches: single flight (checkInvariants R6).</li>
 *   <li>R7 failed/cancelled promotion: no reservation leaks (I10 leftovers).</li>
 *   <li>R8 cancel during a GPU copy: the lease and its borrowed slices stay until the copy ends (I4 against the reference; I6).</li>
 *   <li>R9 one read of a batch fails: no buffer freed under an in-flight read (I7/I6).</li>
 *   <li>R10 preemption with saves queued: no staging copy of reused GPU blocks (staging ledger; reference index).</li>
 *   <li>R11 re-allocated slot: old stores dropped (reference: no write without a live commit; I7).</li>
 *   <li>R12 tp lanes: invisible until every lane committed (I8 against the reference index).</li>
 *   <li>R13 prefetch bound: at most prefetchMaxRequests prefetches (I5).</li>
 *   <li>W1 write-back (the write policies, docs/policies.md): a promotion of a range waits for the
 *       write-back in flight on it (I6 payload mismatch).</li>
 *   <li>P1 prefetch stop (the stop policies, docs/policies.md): a read landing after its request
 *       stopped waiting is dropped or goes to the leases still waiting, never to the stopped one (invariants).</li>
 * </ul>
 *
 * The same properties with each fix switched off must fail: {@code AblationHuntTest}.
 */
class RaceProperties {
    /** Schedules per race with the fix on; the ablation hunt finds every race in far fewer. */
    static final int EXAMPLES = 1_000;

    @ParameterizedTest(name = "{0} holds with its fix")
    @EnumSource(KnownBug.class)
    void raceHoldsWithItsFix(KnownBug race) {
        Optional<Finding> finding = HuntSupport.hunt(race.raceId() + " (fix on)", Profile.forRace(race.raceId()), Set.of(),
                EXAMPLES, (schedule, result) -> true);
        assertTrue(finding.isEmpty(), () -> HuntSupport.describe(finding.orElseThrow()));
    }
}
