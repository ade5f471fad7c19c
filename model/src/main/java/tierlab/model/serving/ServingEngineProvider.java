package tierlab.model.serving;

import tierlab.model.Registry;

/**
 * Serving engines added at start-up: a {@link java.util.ServiceLoader} provider, named in a
 * {@code META-INF/services/tierlab.model.serving.ServingEngineProvider} file on the class path, whose
 * {@link ServingEngines.Kind}s (each under its {@code name}) {@link ServingEngines} lists after the
 * built-in engines.
 */
public interface ServingEngineProvider extends Registry.Provider<ServingEngines.Kind> {
}
