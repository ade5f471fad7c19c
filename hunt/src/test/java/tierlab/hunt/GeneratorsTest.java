package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.policy.Policies;
import tierlab.model.store.StoreSettings;

class GeneratorsTest {

    @Test
    void theHuntedPoliciesAreRegisteredOnlinePoliciesInRegistryOrder() {
        assertTrue(Policies.online().containsAll(Generators.POLICIES), Generators.POLICIES.toString());
        assertEquals(Policies.online().stream().filter(Generators.POLICIES::contains).toList(), Generators.POLICIES);
    }

    @Test
    void storeSettingsCarryTheHuntConfig() {
        HuntConfig config = new HuntConfig(HuntConfig.Level.STORE, 2, 4, 8, "bip", false, 0.2, 3, false, false, 2, 3, 4, 1,
                2, 1, 2, 20, Set.of(), null, null);
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
