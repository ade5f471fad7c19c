package tierlab.model.policy;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * One entry of the policy registry: everything the rest of tierlab needs to know about a policy
 * without naming it.
 *
 * @param name         the stable name files, charts and the store use
 * @param doc          one line for the catalogue
 * @param parameters   the policy's knobs, in the order their columns appear
 * @param capabilities what it needs from its caller
 * @param factory      a new, empty policy from validated options
 */
public record PolicyKind(String name, String doc, List<PolicyParameter<?>> parameters, Set<PolicyCapability> capabilities,
                         Function<PolicyOptions, ReplacementPolicy> factory) {

    public PolicyKind {
        parameters = List.copyOf(parameters);
        capabilities = capabilities.isEmpty() ? Set.of() : Set.copyOf(capabilities);
    }

    /** A policy with neither knobs nor special needs. */
    public static PolicyKind plain(String name, String doc, Function<PolicyOptions, ReplacementPolicy> factory) {
        return new PolicyKind(name, doc, List.of(), Set.of(), factory);
    }

    public boolean has(PolicyCapability capability) {
        return capabilities.contains(capability);
    }

    /** Whether a running store can use it (it needs nothing a store cannot know). */
    public boolean online() {
        return !has(PolicyCapability.NEEDS_FUTURE_REFERENCES);
    }
}
