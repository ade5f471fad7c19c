package tierlab.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Known things of one kind by stable name, in a fixed order: the names a file or a command line
 * may use for modes, workload types, model shapes, device presets. A lookup of an unknown name
 * fails with one line that names the field and lists every known name, so a typo is fixed from
 * the message alone. Immutable once built.
 *
 * <p>Entries come in at start-up only: a registry is built once, when the class that holds it is
 * first used, from its built-in entries (first, in their fixed order, so every listing and catalogue
 * table of the built-in ones stays the same) followed by the entries of the {@link ServiceLoader}
 * providers of its kind ({@link Builder#addProviders}: one small {@link Provider} interface per kind,
 * a {@code META-INF/services} file naming the implementation on the class path). Providers are taken
 * in the order of their class names, so a listing does not depend on the order of the class path.
 *
 * @param <T> what a name stands for
 */
public final class Registry<T> {

    private final String kind;
    private final Map<String, T> entries;

    /** One named entry, as a provider hands it in. */
    public record Entry<T>(String name, T value) {}

    /**
     * More entries of one kind, found with {@link ServiceLoader}. Each kind declares its own
     * sub-interface (a service type cannot be generic), e.g. {@code PolicyProvider}.
     */
    public interface Provider<T> {
        /** The entries to add after the built-in ones, in the order they are listed. */
        List<Entry<T>> entries();
    }

    private Registry(String kind, Map<String, T> entries) {
        this.kind = kind;
        this.entries = Collections.unmodifiableMap(entries);
    }

    /** A builder of a registry whose error messages call its entries {@code kind} ("mode", "model", ...). */
    public static <T> Builder<T> of(String kind) {
        return new Builder<>(kind);
    }

    /**
     * The entry of {@code name}. Fails with {@code FIELD: unknown KIND 'NAME' (known: a, b, c)}, or
     * {@code FIELD: missing (one of a, b, c)} for a null name.
     */
    public T get(String field, String name) {
        if (name == null) {
            throw new IllegalArgumentException(field + ": missing (one of " + known() + ")");
        }
        T entry = entries.get(name);
        if (entry == null) {
            throw new IllegalArgumentException(unknown(field, name));
        }
        return entry;
    }

    /** The one-line message for a name this registry does not know: {@code FIELD: unknown KIND 'NAME' (known: a, b, c)}. */
    public String unknown(String field, String name) {
        return field + ": unknown " + kind + " '" + name + "' (known: " + known() + ")";
    }

    public Optional<T> find(String name) {
        return Optional.ofNullable(entries.get(name));
    }

    public boolean contains(String name) {
        return entries.containsKey(name);
    }

    /** Every entry, in registration order. */
    public List<T> values() {
        return List.copyOf(entries.values());
    }

    /** Every name, in registration order. */
    public List<String> names() {
        return List.copyOf(entries.keySet());
    }

    /** The names joined for a message: {@code a, b, c}. */
    public String known() {
        return String.join(", ", entries.keySet());
    }

    public String kind() {
        return kind;
    }

    /** Collects entries in order; a name registered twice is refused with one line naming both registrations. */
    public static final class Builder<T> {
        private static final String BUILT_IN = "built in";
        private final String kind;
        private final Map<String, T> entries = new LinkedHashMap<>();
        /** Who registered each name: {@value #BUILT_IN}, or a provider's class. */
        private final Map<String, String> origins = new LinkedHashMap<>();

        private Builder(String kind) {
            if (kind == null || kind.isBlank()) {
                throw new IllegalArgumentException("a registry needs a kind");
            }
            this.kind = kind;
        }

        public Builder<T> add(String name, T entry) {
            return add(name, entry, BUILT_IN);
        }

        private Builder<T> add(String name, T entry, String origin) {
            if (name == null || name.isBlank() || entry == null) {
                throw new IllegalArgumentException(kind + ": an entry needs a name and a value (from " + origin + ")");
            }
            String earlier = origins.putIfAbsent(name, origin);
            if (earlier != null) {
                throw new IllegalStateException(kind + " '" + name + "' is registered twice: " + describe(earlier)
                        + " and " + describe(origin));
            }
            entries.put(name, entry);
            return this;
        }

        private static String describe(String origin) {
            return origin.equals(BUILT_IN) ? origin : "by " + origin;
        }

        /**
         * Adds the entries of every {@link ServiceLoader} provider of {@code service} visible to the
         * class loader that defined it, providers in the order of their class names.
         */
        public <P extends Provider<T>> Builder<T> addProviders(Class<P> service) {
            List<P> providers = new ArrayList<>();
            ServiceLoader.load(service, service.getClassLoader()).forEach(providers::add);
            providers.sort(Comparator.comparing(provider -> provider.getClass().getName()));
            for (P provider : providers) {
                for (Entry<T> entry : provider.entries()) {
                    add(entry.name(), entry.value(), provider.getClass().getName());
                }
            }
            return this;
        }

        public Registry<T> build() {
            return new Registry<>(kind, new LinkedHashMap<>(entries));
        }
    }
}
