package tierlab.model.policy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A policy as a command line names it: a registered name, optionally with knob values, written
 * {@code NAME[:KNOB=VALUE[:KNOB=VALUE...]]}, e.g. {@code s3-fifo:smallRatio=0.1:ghostRatio=0.9} or
 * {@code 2q:kin=0.25}. Lets a replay put the same policy at several settings side by side (to
 * compare with another cache simulator at its settings). Only the named policy's own knobs are
 * accepted.
 *
 * @param label      how tables and charts name this choice: the name, then each knob given, in the
 *                   policy's declaration order, as typed values ({@code s3-fifo:smallRatio=0.1})
 * @param name       the registered policy name
 * @param parameters the knob values, checked against their declarations
 */
public record PolicyChoice(String label, String name, PolicyParameters parameters) {

    /** The syntax, for messages and help texts. */
    public static final String SYNTAX = "NAME[:KNOB=VALUE[:KNOB=VALUE...]]";

    /** A registered policy at its default knobs. */
    public static PolicyChoice of(String name) {
        return new PolicyChoice(Policies.kind(name).name(), name, PolicyParameters.defaults());
    }

    /**
     * Parses {@code text}. A bad one throws {@link IllegalArgumentException} with one line that names
     * the policy and the knob: an unknown policy (with the known ones), a knob the policy does not
     * have (with the ones it has), a knob without a value or given twice, or a value its declaration
     * refuses.
     */
    public static PolicyChoice parse(String text) {
        String[] parts = (text == null ? "" : text.strip()).split(":", -1);
        if (!Policies.names().contains(parts[0])) {
            throw new IllegalArgumentException("unknown policy '" + parts[0] + "' (known: "
                    + String.join(", ", Policies.names()) + ")");
        }
        PolicyKind kind = Policies.kind(parts[0]);
        Map<String, Object> given = new LinkedHashMap<>();
        for (int index = 1; index < parts.length; index++) {
            String assignment = parts[index];
            int equals = assignment.indexOf('=');
            String knob = (equals < 0 ? assignment : assignment.substring(0, equals)).strip();
            if (knob.isEmpty() || equals < 0) {
                throw new IllegalArgumentException("policy '" + kind.name() + "': '" + assignment
                        + "' is not KNOB=VALUE (write " + SYNTAX + ")");
            }
            PolicyParameter<?> parameter = kind.parameters().stream().filter(p -> p.name().equals(knob)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("policy '" + kind.name() + "' has no knob '" + knob
                            + "' (" + knobList(kind) + ")"));
            if (given.containsKey(knob)) {
                throw new IllegalArgumentException("policy '" + kind.name() + "': knob '" + knob + "' is given twice");
            }
            try {
                given.put(knob, parameter.parsed(assignment.substring(equals + 1)));
            } catch (IllegalArgumentException badValue) {
                throw new IllegalArgumentException("policy '" + kind.name() + "': " + badValue.getMessage(), badValue);
            }
        }
        List<String> label = new ArrayList<>(List.of(kind.name()));
        for (PolicyParameter<?> parameter : kind.parameters()) {
            if (given.containsKey(parameter.name())) {
                label.add(parameter.name() + "=" + given.get(parameter.name()));
            }
        }
        return new PolicyChoice(String.join(":", label), kind.name(), PolicyParameters.of(given));
    }

    private static String knobList(PolicyKind kind) {
        return kind.parameters().isEmpty() ? "it has no knobs"
                : "its knobs: " + String.join(", ", kind.parameters().stream().map(PolicyParameter::name).toList());
    }

    /** The options for a cache of {@code capacityEntries} blocks with these knobs (no future stream). */
    public PolicyOptions options(long capacityEntries) {
        return new PolicyOptions(capacityEntries, parameters, null);
    }

    /** Whether the chosen policy declares {@code capability}. */
    public boolean has(PolicyCapability capability) {
        return Policies.has(name, capability);
    }
}
