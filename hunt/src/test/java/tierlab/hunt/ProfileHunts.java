package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import tierlab.model.KnownBug;

/** What the hunt tests of a mechanism's profiles share: they stay clean with every fix on, and find the mechanism's race with its fix off. */
final class ProfileHunts {
    static final long SEED = 42;
    /** Schedules before a switched-off race must be found. */
    static final int FIND_BUDGET = 5_000;

    private ProfileHunts() {}

    /** Hunts every profile for {@code schedules} schedules with every fix on; fails with the first finding. */
    static void assertClean(List<Profile> profiles, int schedules) {
        for (Profile profile : profiles) {
            Optional<Finding> found = Hunter.hunt(profile.name(), profile, Set.of(), SEED, schedules,
                    (schedule, result) -> true, null, System::nanoTime);
            assertTrue(found.isEmpty(), () -> profile.name() + ": " + found.get().violation() + "\n" + found.get().shrunk());
        }
    }

    /** Hunts the race's profile with its fix off: found, in a check {@code expected} accepts, and replayable. */
    static Finding assertFound(KnownBug race, Predicate<Check> expected) {
        Optional<Finding> found = Hunter.hunt(race.raceId() + " (fix off)", Profile.forRace(race.raceId()), Set.of(race), SEED,
                FIND_BUDGET, (schedule, result) -> true, null, System::nanoTime);
        assertTrue(found.isPresent(), race.raceId() + " not found within " + FIND_BUDGET + " schedules");
        Finding finding = found.get();
        System.out.println(race.raceId() + ": " + finding.violation() + " after " + finding.schedulesTried()
                + " schedules, shrunk to " + finding.shrunk().length() + " steps");
        assertTrue(expected.test(finding.violation().check()), finding.violation().toString());
        assertTrue(ReplayFile.of(finding).reproduces());
        return finding;
    }
}
