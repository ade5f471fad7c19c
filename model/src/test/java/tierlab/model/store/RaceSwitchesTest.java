package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.testkit.TinyModel;

/**
 * The store's parts read the ablation switches only through {@link RaceSwitches}: each store race
 * of {@link KnownBug} turns on exactly its own switch (named after its race id) and nothing else,
 * so a race added to the enum without a switch, or wired to the wrong one, fails here.
 */
class RaceSwitchesTest {

    /** Names of the switches that are on, in declaration order. */
    private static List<String> on(RaceSwitches races) throws IllegalAccessException {
        List<String> names = new ArrayList<>();
        for (Field field : RaceSwitches.class.getDeclaredFields()) {
            if (field.getType() == boolean.class && field.getBoolean(races)) {
                names.add(field.getName());
            }
        }
        return names;
    }

    private static RaceSwitches switchesFor(Set<KnownBug> bugs) {
        return new RaceSwitches(TinyModel.store(4, 8).withKnownBugs(bugs));
    }

    @Test
    void eachStoreRaceTurnsOnItsOwnSwitchOnly() throws IllegalAccessException {
        for (KnownBug bug : KnownBug.values()) {
            List<String> on = on(switchesFor(EnumSet.of(bug)));
            if (bug == KnownBug.R13_STALE_PREFETCH_BOUND) {
                // The prefetch bound is the scheduler's race: the store has no switch for it.
                assertEquals(List.of(), on, bug.name());
                continue;
            }
            assertEquals(1, on.size(), bug + " turns on " + on);
            String prefix = bug.raceId().toLowerCase(Locale.ROOT);
            String name = on.get(0);
            assertEquals(prefix, name.substring(0, prefix.length()), bug + " turns on " + name);
            // r1... must not match r10..r12: the id is followed by the race's name, not a digit.
            assertFalse(Character.isDigit(name.charAt(prefix.length())), bug + " turns on " + name);
        }
    }

    @Test
    void noSwitchIsOnByDefaultAndEveryStoreRaceHasOne() throws IllegalAccessException {
        assertEquals(List.of(), on(switchesFor(Set.of())));
        EnumSet<KnownBug> storeRaces = EnumSet.allOf(KnownBug.class);
        storeRaces.remove(KnownBug.R13_STALE_PREFETCH_BOUND);
        assertEquals(storeRaces.size(), on(switchesFor(storeRaces)).size());
    }
}
