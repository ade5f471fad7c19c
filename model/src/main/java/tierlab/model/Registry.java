package tierlab.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Known things of one kind by stable name, in a fixed order: the names a file or a command line
 * may use for modes, workload types, model shapes, device presets. A lookup of an unknown name
 * fails with one line that names the field and lists every known name, so a typo is fixed from
 * the message alone. Immutable once built.
 *
 * @param <T> what a name stands for
 */
public final class Registry<T> {

    private final String kind;
    private final Map<String, T> entries;

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

    /** Collects entries in order; a name registered twice is a programming error. */
    public static final class Builder<T> {
        private final String kind;
        private final Map<String, T> entries = new LinkedHashMap<>();

        private Builder(String kind) {
            if (kind == null || kind.isBlank()) {
                throw new IllegalArgumentException("a registry needs a kind");
            }
            this.kind = kind;
        }

        public Builder<T> add(String name, T entry) {
            if (name == null || name.isBlank() || entry == null) {
                throw new IllegalArgumentException(kind + ": an entry needs a name and a value");
            }
            if (entries.putIfAbsent(name, entry) != null) {
                throw new IllegalStateException(kind + " '" + name + "' is registered twice");
            }
            return this;
        }

        public Registry<T> build() {
            return new Registry<>(kind, new LinkedHashMap<>(entries));
        }
    }
}
