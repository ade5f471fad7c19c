package tierlab.model.policy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tierlab.model.Registry;

/**
 * The registry of replacement policies: one entry per policy with its stable name, its knobs and
 * its capabilities. Experiment files, charts, the store and the replay all find policies here; none
 * of them names a particular policy. The order of {@link #names()} is fixed so sweeps and tables
 * list policies the same way every time; a new policy goes at the end. Policies of
 * {@link PolicyProvider}s found at start-up follow the built-in ones ({@link Registry}).
 */
public final class Policies {

    private static final List<PolicyKind> BUILT_IN = List.of(
            PolicyKind.plain(LruPolicy.NAME, "least recently used", options -> new LruPolicy()),
            PolicyKind.plain(PrefixLruPolicy.NAME, "prefix-aware LRU: older groups first, a prefix's suffix before its head",
                    options -> new PrefixLruPolicy()),
            new PolicyKind(BipPolicy.NAME, "bimodal insertion: most new keys enter at the least-recent end",
                    List.of(BipPolicy.MRU_INTERVAL), Set.of(), options -> new BipPolicy(options.get(BipPolicy.MRU_INTERVAL))),
            PolicyKind.plain(ArcPolicy.NAME, "adaptive replacement cache (recency and frequency lists, ghost lists)",
                    options -> new ArcPolicy(options.capacityEntries())),
            new PolicyKind(S3FifoPolicy.NAME, "S3-FIFO: a small probationary FIFO, a main FIFO and a ghost list",
                    List.of(S3FifoPolicy.SMALL_RATIO, S3FifoPolicy.GHOST_RATIO, S3FifoPolicy.MOVE_TO_MAIN_THRESHOLD),
                    Set.of(), options -> new S3FifoPolicy(options.capacityEntries(),
                            options.get(S3FifoPolicy.SMALL_RATIO), options.get(S3FifoPolicy.GHOST_RATIO),
                            options.get(S3FifoPolicy.MOVE_TO_MAIN_THRESHOLD))),
            PolicyKind.plain(SievePolicy.NAME, "SIEVE: a FIFO whose hand skips keys visited since it last passed",
                    options -> new SievePolicy()),
            new PolicyKind(BeladyPolicy.NAME, "Belady's MIN: evict the key whose next use is farthest away", List.of(),
                    Set.of(PolicyCapability.NEEDS_FUTURE_REFERENCES),
                    options -> new BeladyPolicy(options.futureReferences())),
            PolicyKind.plain(FifoPolicy.NAME, "first in, first out: insertion order, hits do not reorder",
                    options -> new FifoPolicy()),
            new PolicyKind(LfuPolicy.NAME, "least frequently used (ties: least recent), counts halved every "
                    + "agingFactor x capacity references", List.of(LfuPolicy.AGING_FACTOR), Set.of(),
                    options -> new LfuPolicy(options.capacityEntries(), options.get(LfuPolicy.AGING_FACTOR))),
            new PolicyKind(SlruPolicy.NAME, "segmented LRU: new keys on probation, a hit promotes to a protected LRU",
                    List.of(SlruPolicy.PROTECTED_RATIO), Set.of(),
                    options -> new SlruPolicy(options.capacityEntries(), options.get(SlruPolicy.PROTECTED_RATIO))),
            new PolicyKind(TwoQueuePolicy.NAME, "2Q: a FIFO for first uses (A1in), its ghosts (A1out), an LRU (Am)",
                    List.of(TwoQueuePolicy.KIN, TwoQueuePolicy.KOUT), Set.of(),
                    options -> new TwoQueuePolicy(options.capacityEntries(), options.get(TwoQueuePolicy.KIN),
                            options.get(TwoQueuePolicy.KOUT))),
            new PolicyKind(WTinyLfuPolicy.NAME, "W-TinyLFU (Caffeine): LRU window, SLRU main, a frequency sketch "
                    + "admits to main", List.of(WTinyLfuPolicy.WINDOW_RATIO, SlruPolicy.PROTECTED_RATIO,
                            LfuPolicy.AGING_FACTOR, WTinyLfuPolicy.DOORKEEPER), Set.of(),
                    options -> new WTinyLfuPolicy(options.capacityEntries(), options.get(WTinyLfuPolicy.WINDOW_RATIO),
                            options.get(SlruPolicy.PROTECTED_RATIO), options.get(LfuPolicy.AGING_FACTOR),
                            options.get(WTinyLfuPolicy.DOORKEEPER))),
            new PolicyKind(ClockPolicy.NAME, "CLOCK: a ring of keys with n-bit counters; the hand lowers them and "
                    + "evicts the first at 0", List.of(ClockPolicy.BITS), Set.of(),
                    options -> new ClockPolicy(options.get(ClockPolicy.BITS))),
            PolicyKind.plain(GreedyDualPolicy.LFUDA, "LFU with dynamic aging: priority = age + uses; the age is the "
                    + "last victim's priority", options -> new GreedyDualPolicy(false)),
            PolicyKind.plain(GreedyDualPolicy.GDSF, "greedy-dual size frequency: priority = age + uses x cost / size, "
                    + "a block's cost its position in the prompt + 1", options -> new GreedyDualPolicy(true)),
            new PolicyKind(LirsPolicy.NAME, "LIRS: keys reused within a short distance (LIR) stay; the rest (HIR) "
                    + "pass through a small FIFO, remembered on the recency stack after eviction",
                    List.of(LirsPolicy.HIR_RATIO, LirsPolicy.STACK_RATIO), Set.of(),
                    options -> new LirsPolicy(options.capacityEntries(), options.get(LirsPolicy.HIR_RATIO),
                            options.get(LirsPolicy.STACK_RATIO))),
            new PolicyKind(LecarPolicy.NAME, "LeCaR: LRU and LFU experts; a seeded draw picks by weights that "
                    + "regret (a miss in an expert's history) lowers", List.of(LecarPolicy.LEARNING_RATE, LecarPolicy.SEED),
                    Set.of(), options -> new LecarPolicy(options.capacityEntries(), options.get(LecarPolicy.LEARNING_RATE),
                            options.get(LecarPolicy.SEED))));

    private static final Registry<PolicyKind> REGISTRY = register();
    private static final List<PolicyKind> KINDS = REGISTRY.values();
    private static final Map<String, PolicyKind> BY_NAME = byName();
    private static final List<String> NAMES = KINDS.stream().map(PolicyKind::name).toList();
    private static final List<String> ONLINE = KINDS.stream().filter(PolicyKind::online).map(PolicyKind::name).toList();
    private static final List<PolicyParameter<?>> PARAMETERS = parameterList();

    private Policies() {
    }

    private static Registry<PolicyKind> register() {
        Registry.Builder<PolicyKind> builder = Registry.of("policy");
        for (PolicyKind kind : BUILT_IN) {
            builder.add(kind.name(), kind);
        }
        return builder.addProviders(PolicyProvider.class).build();
    }

    private static Map<String, PolicyKind> byName() {
        Map<String, PolicyKind> byName = new LinkedHashMap<>();
        for (String name : REGISTRY.names()) {
            PolicyKind kind = REGISTRY.get("policy", name);
            if (!kind.name().equals(name)) {
                throw new IllegalStateException("policy '" + name + "' is registered for a policy named '" + kind.name() + "'");
            }
            byName.put(name, kind);
        }
        return byName;
    }

    private static List<PolicyParameter<?>> parameterList() {
        // Two policies may share a knob (same name, same meaning); it is listed once.
        Map<String, PolicyParameter<?>> byName = new LinkedHashMap<>();
        for (PolicyKind kind : KINDS) {
            for (PolicyParameter<?> parameter : kind.parameters()) {
                PolicyParameter<?> earlier = byName.putIfAbsent(parameter.name(), parameter);
                if (earlier != null && earlier != parameter) {
                    throw new IllegalStateException("policy parameter '" + parameter.name()
                            + "' is declared twice; share one declaration");
                }
            }
        }
        return List.copyOf(new ArrayList<>(byName.values()));
    }

    /** Every registered name, in the stable order lru, prefix-lru, bip, arc, s3-fifo, sieve, belady, fifo,
     * lfu, slru, 2q, w-tinylfu, clock, lfuda, gdsf, lirs, lecar. */
    public static List<String> names() {
        return NAMES;
    }

    /** The names of the policies a running store can use (no future references needed), in registry order. */
    public static List<String> online() {
        return ONLINE;
    }

    /** Every registry entry, in registry order. */
    public static List<PolicyKind> kinds() {
        return KINDS;
    }

    /** Every knob of every policy, in registry order, each once. */
    public static List<PolicyParameter<?>> parameters() {
        return PARAMETERS;
    }

    /** The entry of {@code name}; the message of an unknown or missing name lists the known ones. */
    public static PolicyKind kind(String name) {
        if (name == null) {
            throw new IllegalArgumentException("policy: name is missing (known: " + String.join(", ", NAMES) + ")");
        }
        PolicyKind kind = BY_NAME.get(name);
        if (kind == null) {
            throw new IllegalArgumentException(
                    "policy: unknown policy '" + name + "' (known: " + String.join(", ", NAMES) + ")");
        }
        return kind;
    }

    /** Whether {@code name} is registered and declares {@code capability}. */
    public static boolean has(String name, PolicyCapability capability) {
        PolicyKind kind = BY_NAME.get(name);
        return kind != null && kind.has(capability);
    }

    /**
     * A new, empty policy of the given name. Throws {@link IllegalArgumentException} with a message
     * naming the setting for an unknown name, missing options, or a policy that needs the future
     * reference stream without one.
     */
    public static ReplacementPolicy create(String name, PolicyOptions options) {
        PolicyKind kind = kind(name);
        if (options == null) {
            throw new IllegalArgumentException("policy '" + name + "': options are missing");
        }
        return kind.factory().apply(options);
    }
}
