package tierlab.hunt;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * Violations the hunt found in the fixed model (every ablation switch off) that are open: each
 * has a shrunk replay file under {@code hunt/src/test/resources/replays/} and a test that checks it
 * still reproduces. Properties over the fixed model report a run that matches one of these and
 * do not fail on it; any other violation fails them. Matching is narrow on purpose (level, check,
 * and the interleaving family that produces it), and applies only with every switch off, so an
 * ablation that breaks the same check is still detected. When the model is fixed, the
 * reproduction test fails and the entry should go.
 *
 * <p>None is open now. The two the hunt found first are fixed and their replays are regression
 * replays under {@code replays/fixed/} that must pass: F1, a promotion from an outdated lookup
 * published after its key had left the L2 index (R4 on a unit another lease still held; the
 * promotion is now stale when its key is no longer indexed at its unit), and F2, two requests
 * preempting each other forever under GPU-block pressure (I10; a request no longer preempts
 * itself while GPU blocks are on their way back from a preempted request's staging copy).
 */
public enum KnownFinding {
    ;

    private final String replayResource;
    /**
     * Whether a failing fixed-model run is an instance of this finding. A constructor argument rather
     * than an abstract method, so that the enum compiles with no finding open.
     */
    private final BiPredicate<Schedule, ScheduleResult> matcher;

    KnownFinding(String replayResource, BiPredicate<Schedule, ScheduleResult> matcher) {
        this.replayResource = replayResource;
        this.matcher = matcher;
    }

    boolean matches(Schedule schedule, ScheduleResult result) {
        return matcher.test(schedule, result);
    }

    public String replayResource() {
        return replayResource;
    }

    /** The known finding a fixed-model failure is an instance of, if any. */
    public static Optional<KnownFinding> match(Schedule schedule, ScheduleResult result) {
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
