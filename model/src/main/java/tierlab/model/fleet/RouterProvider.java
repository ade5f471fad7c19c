package tierlab.model.fleet;

import tierlab.model.Registry;

/**
 * Routers added at start-up: a {@link java.util.ServiceLoader} provider, named in a
 * {@code META-INF/services/tierlab.model.fleet.RouterProvider} file on the class path, whose
 * {@link Routers.Factory}s (each under its name) {@link Routers} lists after the built-in ones.
 */
public interface RouterProvider extends Registry.Provider<Routers.Factory> {
}
