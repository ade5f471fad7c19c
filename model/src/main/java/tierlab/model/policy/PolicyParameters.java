package tierlab.model.policy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Values of policy knobs by parameter name, each checked against its declaration in the
 * registry. A knob that is not set reads as its declared default, so settings only carry what a
 * caller chose. Immutable; compares by content.
 */
public final class PolicyParameters {

    private static final PolicyParameters NONE = new PolicyParameters(Map.of());

    private final Map<String, Object> values;

    private PolicyParameters(Map<String, Object> values) {
        this.values = values;
    }

    /** No knob set: every parameter reads as its default. */
    public static PolicyParameters defaults() {
        return NONE;
    }

    /**
     * Checks every name against the registry's parameters and every value against its rule; the
     * message of a bad one names the parameter (and, for an unknown name, the known ones).
     */
    public static PolicyParameters of(Map<String, ?> values) {
        if (values == null || values.isEmpty()) {
            return NONE;
        }
        Map<String, Object> checked = new LinkedHashMap<>();
        // Registry order, so equal settings print and iterate the same way whatever order they were
        // given in; a value equal to its default is not kept, so "set to the default" equals "not set".
        for (PolicyParameter<?> parameter : Policies.parameters()) {
            if (values.containsKey(parameter.name())) {
                Object value = parameter.checked(values.get(parameter.name()));
                if (!value.equals(parameter.defaultValue())) {
                    checked.put(parameter.name(), value);
                }
            }
        }
        for (String name : values.keySet()) {
            if (Policies.parameters().stream().noneMatch(p -> p.name().equals(name))) {
                throw new IllegalArgumentException("policy parameter '" + name + "' is unknown (known: "
                        + String.join(", ", Policies.parameters().stream().map(PolicyParameter::name).toList()) + ")");
            }
        }
        return new PolicyParameters(Collections.unmodifiableMap(checked));
    }

    /** The value of {@code parameter}, or its default when it is not set. */
    public <T> T get(PolicyParameter<T> parameter) {
        Object value = values.get(parameter.name());
        return value == null ? parameter.defaultValue() : parameter.type().cast(value);
    }

    /** The same values with {@code name} set to {@code value} (checked). */
    public PolicyParameters with(String name, Object value) {
        Map<String, Object> changed = new LinkedHashMap<>(values);
        changed.put(name, value);
        return of(changed);
    }

    /** The knobs set to something other than their default, in registry order. */
    public Map<String, Object> nonDefault() {
        return values;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PolicyParameters that && values.equals(that.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
