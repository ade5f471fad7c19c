package tierlab.sim.device;

import tierlab.model.Registry;

/**
 * Simulated storage device models added at start-up: a {@link java.util.ServiceLoader} provider, named
 * in a {@code META-INF/services/tierlab.sim.device.StorageModelProvider} file on the class path, whose
 * entries (a profile's {@code storage.model} name and the {@link StorageSection} record its parameters
 * are read into) {@link StorageModels} lists after the built-in models.
 */
public interface StorageModelProvider extends Registry.Provider<Class<? extends StorageSection>> {
}
