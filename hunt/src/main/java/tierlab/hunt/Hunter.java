package tierlab.hunt;

import static org.quicktheories.QuickTheory.qt;

import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.LongSupplier;
import tierlab.model.KnownBug;

/**
 * Runs QuickTheories over generated schedules. A property fails on the first schedule that
 * violates a counted check; QuickTheories then shrinks it (its draws: length, indices, kinds) and
 * {@link Minimizer} removes the remaining unneeded steps. Everything is seeded: the same seed,
 * profile and switches find the same schedule.
 */
public final class Hunter {
    /** Shrink attempts QuickTheories makes on a failure; each is one deterministic run of a schedule. */
    static final int SHRINK_CYCLES = 400;
    static final int MINIMIZER_RUNS = 3_000;

    private Hunter() {}

    /** Counters a long hunt reads while it runs. */
    public static final class Progress {
        public volatile long schedules;
        public volatile long steps;
        public volatile long knownFindings;
        /** Instances of each known finding seen (one count per failing schedule, before shrinking). */
        public final java.util.EnumMap<KnownFinding, Long> knownFindingCounts = new java.util.EnumMap<>(KnownFinding.class);
    }

    /** Counts every violation except instances of a {@link KnownFinding} (which only a fixed model can match). */
    public static BiPredicate<Schedule, ScheduleResult> exceptKnownFindings(Progress progress) {
        return (schedule, result) -> {
            Optional<KnownFinding> known = KnownFinding.match(schedule, result);
            if (known.isPresent()) {
                if (progress != null) {
                    progress.knownFindings++;
                    progress.knownFindingCounts.merge(known.get(), 1L, Long::sum);
                }
                return false;
            }
            return true;
        };
    }

    /**
     * Runs up to {@code examples} schedules of the profile with the switches on. Returns the shrunk
     * failure, or empty when every schedule passed. {@code counts} decides which violations fail
     * the property (the others, e.g. known findings, are let through). {@code nanoClock} only
     * measures how long detection took; nothing is decided by it.
     */
    public static Optional<Finding> hunt(String target, Profile profile, Set<KnownBug> bugs, long seed, int examples,
                                         BiPredicate<Schedule, ScheduleResult> counts, Progress progress, LongSupplier nanoClock) {
        return hunt(target, profile, bugs, Generators.pinnedPolicies(), seed, examples, counts, progress, nanoClock);
    }

    /** The same with the store policy of each schedule drawn from {@code policies} (see {@link Generators#policies}). */
    public static Optional<Finding> hunt(String target, Profile profile, Set<KnownBug> bugs, java.util.List<String> policies,
                                         long seed, int examples, BiPredicate<Schedule, ScheduleResult> counts, Progress progress,
                                         LongSupplier nanoClock) {
        long startedNs = nanoClock.getAsLong();
        Schedule[] smallest = {null};
        Schedule[] first = {null};
        long[] firstAtNs = {0};
        int[] tried = {0};
        long[] steps = {0};
        int[] triedAtFirst = {0};
        long[] stepsAtFirst = {0};
        try {
            qt().withFixedSeed(seed).withExamples(examples).withShrinkCycles(SHRINK_CYCLES)
                    .forAll(Generators.schedules(profile, bugs, policies))
                    .describedAs(Schedule::toString)
                    .check(schedule -> {
                        ScheduleResult result = Runner.run(schedule);
                        if (first[0] == null) {
                            tried[0]++;
                            steps[0] += schedule.length();
                            if (progress != null) {
                                progress.schedules++;
                                progress.steps += schedule.length();
                            }
                        }
                        boolean fails = !result.passed() && counts.test(schedule, result);
                        if (fails) {
                            if (first[0] == null) {
                                first[0] = schedule;
                                firstAtNs[0] = nanoClock.getAsLong();
                                triedAtFirst[0] = tried[0];
                                stepsAtFirst[0] = steps[0];
                            }
                            if (smallest[0] == null || schedule.length() < smallest[0].length()) {
                                smallest[0] = schedule;
                            }
                        }
                        return !fails;
                    });
        } catch (AssertionError falsified) {
            // QuickTheories reports the shrunk example this way; the smallest failing schedule is kept above.
        }
        if (first[0] == null) {
            return Optional.empty();
        }
        Violation violation = Runner.run(smallest[0]).violation();
        Schedule shrunk = Minimizer.minimize(smallest[0], violation.check(), MINIMIZER_RUNS);
        return Optional.of(new Finding(target, seed, first[0], shrunk, Runner.run(shrunk).violation(),
                (firstAtNs[0] - startedNs) / 1_000_000, triedAtFirst[0], stepsAtFirst[0]));
    }
}
