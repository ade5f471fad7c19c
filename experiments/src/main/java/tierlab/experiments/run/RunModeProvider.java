package tierlab.experiments.run;

import tierlab.model.Registry;

/**
 * Run modes added at start-up: a {@link java.util.ServiceLoader} provider, named in a
 * {@code META-INF/services/tierlab.experiments.run.RunModeProvider} file on the class path, whose
 * {@link RunMode}s (each under its {@code name}) {@link RunMode#REGISTRY} lists after the built-in
 * modes. The loader then accepts the mode and reads what it implies from its record; running it also
 * takes a branch of the run executor's mode switch.
 */
public interface RunModeProvider extends Registry.Provider<RunMode> {
}
