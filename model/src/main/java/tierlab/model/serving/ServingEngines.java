package tierlab.model.serving;

import java.util.List;
import tierlab.model.Registry;
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

    /** The vLLM-like engine with the prefetch window and no GPU prefix cache (the shorter SchedulerSettings constructors'). */
    public static final String VLLM = SchedulerSettings.VLLM;
    /** One request at a time, first come first served, no prefetch window. */
    public static final String SERIAL = "serial";
    /**
     * vLLM V1's scheduler and KV cache manager: the same step loop and connector-side knobs as {@link #VLLM}
     * over a GPU block pool with automatic prefix caching ({@link SchedulerSettings#prefixCaching()}): the
     * default of experiment files ({@link SchedulerSettings#DEFAULT_ENGINE}).
     */
    public static final String VLLM_V1 = SchedulerSettings.DEFAULT_ENGINE;
    /**
     * SGLang's scheduler with its radix cache and HiCache: GPU pages in a radix tree (locks, LRU leaf
     * eviction), the store as host and storage tiers with SGLang's write and prefetch-stop policies,
     * longest-prefix-match ordering ({@link SglangEngine}).
     */
    public static final String SGLANG = "sglang";

    /** Every engine by name, in registration order; an unknown name is one line listing the known ones. */
    public static final Registry<Kind> REGISTRY = register(
            new Kind(VLLM, "vLLM-like: continuous batching, prefetch window with parking, recompute preemption",
                    EngineScheduler::new),
            new Kind(SERIAL, "one request at a time, first come first served, no prefetch window", SerialEngine::new),
            new Kind(VLLM_V1, "vLLM V1: the vllm step loop over a GPU prefix cache (ref-counted hashed blocks, LRU free"
                    + " queue, tail-first freeing); the store is its KV connector", ServingEngines::vllmV1),
            new Kind(SGLANG, "SGLang: radix-tree GPU cache (lock refs, LRU leaf eviction), HiCache host (L1) and storage (L2)"
                    + " tiers with write and prefetch-stop policies, longest-prefix-match scheduling", SglangEngine::new));

    private ServingEngines() {}

    private static ServingEngine vllmV1(SchedulerSettings settings, TieredStore store, DecisionTrace trace) {
        return new EngineScheduler(settings, store, trace, VLLM_V1,
                new PrefixCachingBlockPool(settings.gpuKvBlocks(), settings.prefixCaching()));
    }

    private static Registry<Kind> register(Kind... kinds) {
        Registry.Builder<Kind> builder = Registry.of("serving engine");
        for (Kind kind : kinds) {
            builder.add(kind.name(), kind);
        }
        return builder.addProviders(ServingEngineProvider.class).build();
    }

    /** The registered names, in registration order (for error messages and docs). */
    public static List<String> names() {
        return REGISTRY.names();
    }

    /** The kind called {@code name}; an unknown name is {@code scheduler.engine: unknown serving engine 'x' (known: ...)}. */
    public static Kind kind(String name) {
        return REGISTRY.get("scheduler.engine", name);
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
