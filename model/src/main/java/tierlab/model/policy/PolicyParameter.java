package tierlab.model.policy;

import java.util.function.Predicate;

/**
 * One knob of a replacement policy, declared once beside the policy: its name (the key in
 * {@link PolicyParameters} and the field name in an experiment file's {@code store} section), its
 * type, its default, a one-line doc, and the rule a value must satisfy. Everything that reads or
 * checks policy knobs (the store's settings, the experiment loader, the catalogue) goes through
 * these declarations, so a new knob needs no change outside its policy's registry entry.
 *
 * @param rule        what a valid value satisfies, in words ("must be >= 1"); a bad value's message
 *                    is {@code NAME RULE, was VALUE}
 * @param valid       the rule as a test
 */
public record PolicyParameter<T>(String name, Class<T> type, T defaultValue, String doc, String rule,
                                 Predicate<T> valid) {

    /** A decimal number as people write one: digits, an optional point and fraction, an optional exponent. */
    private static final java.util.regex.Pattern PLAIN_DECIMAL =
            java.util.regex.Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?");

    public PolicyParameter {
        if (name == null || name.isBlank() || type == null || defaultValue == null || doc == null || rule == null
                || valid == null) {
            throw new IllegalArgumentException("a policy parameter needs a name, type, default, doc and rule");
        }
        if (!valid.test(defaultValue)) {
            throw new IllegalArgumentException(name + ": the default " + defaultValue + " breaks its own rule: " + rule);
        }
    }

    /** A whole-number knob of at least {@code minimum}. */
    public static PolicyParameter<Integer> atLeast(String name, int defaultValue, int minimum, String doc) {
        return new PolicyParameter<>(name, Integer.class, defaultValue, doc, "must be >= " + minimum, v -> v >= minimum);
    }

    /** A number knob within [{@code minimum}, {@code maximum}] (a share of the capacity, say). */
    public static PolicyParameter<Double> between(String name, double defaultValue, double minimum, double maximum,
                                                  String doc) {
        return new PolicyParameter<>(name, Double.class, defaultValue, doc,
                "must be between " + minimum + " and " + maximum,
                // Compared as Double.compare does, so -0.0 is below a minimum of 0.0 rather than equal to it.
                v -> Double.compare(v, minimum) >= 0 && Double.compare(v, maximum) <= 0);
    }

    /** A true-or-false knob. */
    public static PolicyParameter<Boolean> flag(String name, boolean defaultValue, String doc) {
        return new PolicyParameter<>(name, Boolean.class, defaultValue, doc, "must be true or false", v -> true);
    }

    /**
     * {@code text} (as typed on a command line) as this parameter's type, checked; the message
     * names the parameter. Numbers use '.' as the decimal point.
     */
    public T parsed(String text) {
        String trimmed = text == null ? "" : text.strip();
        Object value = trimmed;
        try {
            if (type == Integer.class) {
                value = Integer.valueOf(trimmed);
            } else if (type == Long.class) {
                value = Long.valueOf(trimmed);
            } else if (type == Double.class) {
                // Java's own reader also takes 0.9f, 0x1p-3, NaN and Infinity: a knob takes plain decimals only.
                if (!PLAIN_DECIMAL.matcher(trimmed).matches()) {
                    throw new NumberFormatException(trimmed);
                }
                value = Double.valueOf(trimmed);
            }
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException(name + " must be " + typeName()
                    + (type == Double.class ? " written in decimal, like 0.25 or 1e-3" : "") + ", was '" + trimmed + "'");
        }
        if (type == Boolean.class) {
            if (!trimmed.equals("true") && !trimmed.equals("false")) {
                throw new IllegalArgumentException(name + " must be true or false, was '" + trimmed + "'");
            }
            value = Boolean.valueOf(trimmed);
        }
        return checked(value);
    }

    /** {@code value} as this parameter's type, checked against the rule; the message names the parameter. */
    public T checked(Object value) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must be set");
        }
        Object converted = value;
        // Integral values arrive as whichever boxed type the caller had (a file parser's Long, say).
        if (type == Integer.class && value instanceof Long whole && whole == whole.intValue()) {
            converted = whole.intValue();
        } else if (type == Long.class && value instanceof Integer whole) {
            converted = whole.longValue();
        } else if (type == Double.class && value instanceof Number number && !(value instanceof Double)) {
            converted = number.doubleValue();
        }
        if (!type.isInstance(converted)) {
            throw new IllegalArgumentException(name + " must be " + typeName() + ", was " + value);
        }
        T typed = type.cast(converted);
        if (!valid.test(typed)) {
            throw new IllegalArgumentException(name + " " + rule + ", was " + value);
        }
        return typed;
    }

    /** The type in words, for messages and the catalogue: "a whole number", "a number", "true or false", "text". */
    public String typeName() {
        if (type == Integer.class || type == Long.class) {
            return "a whole number";
        }
        if (type == Double.class) {
            return "a number";
        }
        if (type == Boolean.class) {
            return "true or false";
        }
        return "text";
    }
}
