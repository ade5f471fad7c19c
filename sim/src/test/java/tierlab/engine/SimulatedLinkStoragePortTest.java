package tierlab.engine;

import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.LinkProfile;

/**
 * The storage-port contract on the simulated port over the {@code link} storage model (a tier behind
 * one shared link): every case of {@link StoragePortContract}, with the link deciding when each
 * operation completes and the real backend moving the bytes then.
 */
class SimulatedLinkStoragePortTest extends SimulatedStoragePortTest {

    @Override
    protected DeviceProfile profile() {
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        return new DeviceProfile("link-test", new LinkProfile(2_000, 25e9), null, preset.pcie(), preset.gpu(), preset.host());
    }
}
