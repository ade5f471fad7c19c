package tierlab.properties;

import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import tierlab.hunt.Finding;
import tierlab.hunt.Hunter;
import tierlab.hunt.Profile;
import tierlab.hunt.ReplayFile;
import tierlab.hunt.ScheduleResult;
import tierlab.hunt.Schedule;
import tierlab.model.KnownBug;

/** Shared by the hunt-based property classes: the quick profile's seed, and how a failure is reported. */
final class HuntSupport {
    /** The quick profile runs with one fixed seed, so `./tierlab test` is reproducible. */
    static final long SEED = 42;

    private HuntSupport() {}

    /** Runs a property; empty when every schedule held. Known findings are reported, not counted. */
    static Optional<Finding> hunt(String name, Profile profile, Set<KnownBug> bugs, int examples,
                                  BiPredicate<Schedule, ScheduleResult> counts) {
        Hunter.Progress progress = new Hunter.Progress();
        BiPredicate<Schedule, ScheduleResult> exceptKnown = Hunter.exceptKnownFindings(progress);
        Optional<Finding> finding = Hunter.hunt(name, profile, bugs, SEED, examples,
                (schedule, result) -> exceptKnown.test(schedule, result) && counts.test(schedule, result), progress, System::nanoTime);
        System.out.printf("%s: %d schedules, %d steps%s%s%n", name, progress.schedules, progress.steps,
                progress.knownFindings == 0 ? "" : ", " + progress.knownFindings + " instances of known findings " + progress.knownFindingCounts + " seen",
                finding.map(f -> ", FAILED").orElse(", held"));
        return finding;
    }

    /** The message of a failed property: seed, violation, and the shrunk schedule as a replay file. */
    static String describe(Finding finding) {
        return finding.target() + " failed (seed " + finding.seed() + ", found after " + finding.schedulesTried()
                + " schedules): " + finding.violation() + "\nshrunk " + finding.original().length() + " -> "
                + finding.shrunk().length() + " steps; replay file (save as .json, run `tierlab hunt --replay FILE`):\n"
                + ReplayFile.of(finding).toJson();
    }
}
