package tierlab.sim.device;

import tierlab.model.Registry;

/**
 * Compute model kinds added at start-up: a {@link java.util.ServiceLoader} provider, named in a
 * {@code META-INF/services/tierlab.sim.device.ComputeModelProvider} file on the class path, whose
 * entries (a profile's {@code compute.kind} name and the {@link ComputeSection} record its parameters
 * are read into) {@link ComputeModels} lists after the built-in kinds.
 */
public interface ComputeModelProvider extends Registry.Provider<Class<? extends ComputeSection>> {
}
