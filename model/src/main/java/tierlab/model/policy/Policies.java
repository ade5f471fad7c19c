package tierlab.model.policy;

import java.util.List;

/**
 * The registry of replacement policies by stable name, the names that experiment files, charts and
 * the store use. The order of {@link #names()} is fixed so sweeps and tables list policies the
 * same way every time.
 */
public final class Policies {

    private static final List<String> NAMES = List.of(
            LruPolicy.NAME,
            PrefixLruPolicy.NAME,
            BipPolicy.NAME,
            ArcPolicy.NAME,
            S3FifoPolicy.NAME,
            SievePolicy.NAME,
            BeladyPolicy.NAME);

    private Policies() {
    }

    /** Every registered name, in the stable order lru, prefix-lru, bip, arc, s3-fifo, sieve, belady. */
    public static List<String> names() {
        return NAMES;
    }

    /**
     * A new, empty policy of the given name. Throws {@link IllegalArgumentException} with a message
     * naming the setting for an unknown name, missing options, or a {@code belady} without a trace.
     */
    public static ReplacementPolicy create(String name, PolicyOptions options) {
        if (name == null) {
            throw new IllegalArgumentException("policy: name is missing (known: " + String.join(", ", NAMES) + ")");
        }
        if (options == null) {
            throw new IllegalArgumentException("policy '" + name + "': options are missing");
        }
        return switch (name) {
            case LruPolicy.NAME -> new LruPolicy();
            case PrefixLruPolicy.NAME -> new PrefixLruPolicy();
            case BipPolicy.NAME -> new BipPolicy(options.mruInterval());
            case ArcPolicy.NAME -> new ArcPolicy(options.capacityEntries());
            case S3FifoPolicy.NAME -> new S3FifoPolicy(options.capacityEntries());
            case SievePolicy.NAME -> new SievePolicy();
            case BeladyPolicy.NAME -> new BeladyPolicy(options.futureReferences());
            default -> throw new IllegalArgumentException(
                    "policy: unknown policy '" + name + "' (known: " + String.join(", ", NAMES) + ")");
        };
    }
}
