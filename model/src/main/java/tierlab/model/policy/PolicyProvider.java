package tierlab.model.policy;

import java.util.List;
import java.util.stream.Stream;
import tierlab.model.Registry;

/**
 * Replacement policies added at start-up: a {@link java.util.ServiceLoader} provider, named in a
 * {@code META-INF/services/tierlab.model.policy.PolicyProvider} file on the class path, whose entries
 * (each a {@link PolicyKind} under its own name) {@link Policies} lists after the built-in ones.
 */
public interface PolicyProvider extends Registry.Provider<PolicyKind> {

    /** The entries of {@code kinds}, each under its name. */
    static List<Registry.Entry<PolicyKind>> entriesOf(PolicyKind... kinds) {
        return Stream.of(kinds).map(kind -> new Registry.Entry<>(kind.name(), kind)).toList();
    }
}
