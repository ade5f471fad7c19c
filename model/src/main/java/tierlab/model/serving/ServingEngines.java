package tierlab.model.serving;

import java.util.List;
import tierlab.model.sched.SchedulerSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * The registry of serving engines by name. Runtimes create engines only through it (a crash
 * restart asks for the crashed engine's {@link ServingEngine#kind()}), so adding an engine is one
 * class plus one {@link Kind} here.
 */
public final class ServingEngines {

    /** Creates one kind of engine over a store. */
    @FunctionalInterface
    public interface Factory {
        ServingEngine create(SchedulerSettings settings, TieredStore store, DecisionTrace trace);
    }

    /** One registered engine: its name (as experiment files and {@link SchedulerSettings#engine()} spell it) and factory. */
    public record Kind(String name, String description, Factory factory) {}

    /** The vLLM-like engine with the prefetch window: the default. */
    public static final String VLLM = SchedulerSettings.DEFAULT_ENGINE;
    /** One request at a time, first come first served, no prefetch window. */
    public static final String SERIAL = "serial";

    private static final List<Kind> KINDS = List.of(
            new Kind(VLLM, "vLLM-like: continuous batching, prefetch window with parking, recompute preemption",
                    EngineScheduler::new),
            new Kind(SERIAL, "one request at a time, first come first served, no prefetch window", SerialEngine::new));

    private ServingEngines() {}

    /** Every registered engine, in registration order. */
    public static List<Kind> kinds() {
        return KINDS;
    }

    /** The registered names, in registration order (for error messages and docs). */
    public static List<String> names() {
        return KINDS.stream().map(Kind::name).toList();
    }

    /** The kind called {@code name}; an unknown name is one line listing the known ones. */
    public static Kind kind(String name) {
        for (Kind kind : KINDS) {
            if (kind.name().equals(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown serving engine '" + name + "'; known: " + String.join(", ", names()));
    }

    /** Creates the engine that {@code settings} names over {@code store}. */
    public static ServingEngine create(SchedulerSettings settings, TieredStore store, DecisionTrace trace) {
        return kind(settings.engine()).factory().create(settings, store, trace);
    }

    /** Creates the same kind of engine as {@code crashed}, with its settings, over a recovered store (crash restart). */
    public static ServingEngine restart(ServingEngine crashed, TieredStore recovered, DecisionTrace trace) {
        return kind(crashed.kind()).factory().create(crashed.settings(), recovered, trace);
    }
}
