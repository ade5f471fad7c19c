package tierlab.hunt;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * Violations the hunt found in the fixed model (every ablation switch off) that are open: each
 * has a shrunk replay file under {@code hunt/src/test/resources/replays/} and a test that checks it
 * still reproduces. Properties over the fixed model report a run that matches one of these and
 * do not fail on it; any other violation fails them. Matching is narrow on purpose (level, check,
 * and the interleaving family that produces it), and applies only with every switch off, so an
 * ablation that breaks the same check is still detected. When the model is fixed, the
 * reproduction test fails and the entry should go.
 */
public enum KnownFinding {
    /**
     * A promotion made from an outdated lookup is published although its key has left the L2
     * index (its run was evicted and the slot re-allocated to a store that now waits for leases),
     * while another lease still holds the old slice of that unit: {@code checkInvariants()} reports
     * R4 ("another slice was published over it"). In the shrunk replay the promoted bytes are still
     * the old key's (the new store has not written yet), but L1 now indexes a unit whose L2 slot
     * belongs to another key. Runs stop at this first violation; a diagnostic run that let the R4
     * check pass and went on (100,000 schedules of five store profiles, 96 with this violation)
     * found no later wrong byte, reference disagreement or leftover in any of them. The staleness test at promotion completion checks for a resident slice and
     * a newer store epoch, not whether the expected key is still indexed at that unit (as
     * resolveStaleWaiter does).
     */
    F1_OUTDATED_PROMOTION_PUBLISHED_OVER_HELD_UNIT("replays/F1-outdated-promotion-published.json") {
        @Override
        boolean matches(Schedule schedule, RunResult result) {
            return schedule.config().level() == HuntConfig.Level.STORE && result.violation().check() == Check.R4
                    && result.outdatedAcquires() > 0;
        }
    },
    /**
     * Recompute-preemption livelock: with GPU KV blocks just enough for the running requests, and a
     * preempted request's in-flight staging copy holding its old blocks, two requests preempt
     * each other (each the newest when it needs to grow) on every step and never finish, with no
     * new arrivals (I10).
     */
    F2_PREEMPTION_LIVELOCK("replays/F2-preemption-livelock.json") {
        @Override
        boolean matches(Schedule schedule, RunResult result) {
            return schedule.config().level() == HuntConfig.Level.ENGINE && result.violation().check() == Check.I10
                    && result.violation().message().startsWith("no quiescence") && result.enginePreemptions() > 0;
        }
    };

    private final String replayResource;

    KnownFinding(String replayResource) {
        this.replayResource = replayResource;
    }

    abstract boolean matches(Schedule schedule, RunResult result);

    public String replayResource() {
        return replayResource;
    }

    /** The known finding a fixed-model failure is an instance of, if any. */
    public static Optional<KnownFinding> match(Schedule schedule, RunResult result) {
        if (result.passed() || !schedule.config().knownBugs().isEmpty()) {
            return Optional.empty();
        }
        for (KnownFinding finding : values()) {
            if (finding.matches(schedule, result)) {
                return Optional.of(finding);
            }
        }
        return Optional.empty();
    }

    /** The committed replay of this finding (a test resource of the hunt module). */
    public ReplayFile replay(ClassLoader loader) throws IOException {
        try (InputStream in = loader.getResourceAsStream(replayResource)) {
            if (in == null) {
                throw new IOException("no resource " + replayResource);
            }
            return ReplayFile.read(in, replayResource);
        }
    }
}
