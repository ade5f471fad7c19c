package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.policy.Policies;
import tierlab.model.store.StoreSettings;

class GeneratorsTest {

    @Test
    void thePinnedPoliciesAreTheRegistrysFirstSixOnlinePoliciesTheSeedsWerePinnedWith() {
        // If the registry ever reorders or inserts before these, every pinned seed's schedule changes: this fails first.
        assertEquals(List.of("lru", "prefix-lru", "bip", "arc", "s3-fifo", "sieve"), Generators.pinnedPolicies());
        assertEquals(Generators.pinnedPolicies(), Generators.policies("pinned"));
        assertEquals(Policies.online(), Generators.policies("all"));
        assertEquals(List.of("2q", "lru"), Generators.policies("2q, lru,2q"));
        IllegalArgumentException offline = assertThrows(IllegalArgumentException.class, () -> Generators.policies("belady"));
        assertTrue(offline.getMessage().startsWith("--policies: 'belady' is not an online policy of the registry"),
                offline.getMessage());
    }

    @Test
    void schedulesDrawEveryListedPolicyAndNoOther() {
        Map<String, Integer> seen = new TreeMap<>();
        qt().withFixedSeed(5).withExamples(600).forAll(Generators.schedules(Profile.swarm(HuntConfig.Level.STORE), Set.of(),
                Policies.online())).checkAssert(schedule -> seen.merge(schedule.config().policy(), 1, Integer::sum));
        assertEquals(new TreeSet<>(Policies.online()), seen.keySet(), seen.toString());

        Set<String> pinned = new TreeSet<>();
        qt().withFixedSeed(5).withExamples(300).forAll(Generators.schedules(Profile.swarm(HuntConfig.Level.STORE), Set.of()))
                .checkAssert(schedule -> pinned.add(schedule.config().policy()));
        assertEquals(new TreeSet<>(Generators.pinnedPolicies()), pinned);
    }

    @Test
    void withEveryRegisteredPolicyTheHuntStillFindsASwitchedOffRace() {
        // R12 (a store visible before all its lanes committed) does not depend on the policy; drawn from
        // every online policy, its targeted profile still reaches it.
        Optional<Finding> finding = Hunter.hunt("R12", Profile.forRace("R12"), Set.of(KnownBug.R12_VISIBLE_BEFORE_ALL_LANES),
                Generators.policies("all"), 7, 2000, (schedule, result) -> true, null, System::nanoTime);
        assertTrue(finding.isPresent(), "R12 found");
    }

    @Test
    void aSwarmHuntOverEveryRegisteredPolicyFindsNothingWithEveryFixOn() {
        // The policies added after the seeds were pinned (fifo, lfu, slru, 2q, w-tinylfu) under the store's invariants.
        for (HuntConfig.Level level : HuntConfig.Level.values()) {
            Optional<Finding> finding = Hunter.hunt("swarm-all-policies", Profile.swarm(level), Set.of(),
                    Generators.policies("all"), 11, 150, (schedule, result) -> true, null, System::nanoTime);
            assertTrue(finding.isEmpty(), () -> level + ": " + finding.get().violation());
        }
    }

    @Test
    void storeSettingsCarryTheHuntConfig() {
        HuntConfig config = new HuntConfig(HuntConfig.Level.STORE, 2, 4, 8, "bip", false, 0.2, 3, false, false, 2, 3, 4, 1,
                2, 1, 2, 20, Set.of());
        StoreSettings settings = config.storeSettings();
        assertEquals(4 * config.laneBytes(), settings.l1CapacityBytes());
        assertEquals(8 * config.geometry().blockBytes(), settings.l2CapacityBytes());
        assertEquals("bip", settings.policy());
        assertEquals(4, settings.mruInterval());
        assertEquals(false, settings.promotionsAsHeadroom());
        assertEquals(0.2, settings.headroomFraction());
        assertEquals(3, settings.stagingSlots());
        assertEquals(false, settings.contiguousStaging());
        assertEquals(false, settings.batchL2Reads());
        assertEquals(2, settings.ringCount());
        assertEquals(64 * StoreSettings.MIB, settings.writeBatchMaxBytes());
    }
}
