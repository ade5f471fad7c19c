package tierlab.sim.device;

import tierlab.model.Registry;

/**
 * Device profile presets added at start-up: a {@link java.util.ServiceLoader} provider, named in a
 * {@code META-INF/services/tierlab.sim.device.DevicePresetProvider} file on the class path, whose
 * entries name a preset and the absolute class-path resource of its profile file (in the provider's
 * jar); {@link DeviceProfile#PRESETS} lists them after the bundled ones.
 */
public interface DevicePresetProvider extends Registry.Provider<String> {
}
