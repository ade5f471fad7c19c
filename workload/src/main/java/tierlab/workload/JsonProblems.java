package tierlab.workload;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What is wrong with a JSON or YAML value, in words, from a Jackson message: Jackson's text names its own
 * classes and switches ({@code CoercionConfig}, {@code JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS},
 * {@code [Source: REDACTED (StreamReadFeature...)]}, token kinds), which say nothing to the person who wrote
 * the file. The callers add the file, line and field; this gives the reason.
 */
public final class JsonProblems {

    private static final Pattern NON_NUMERIC = Pattern.compile("Non-standard token '([^']*)'");
    private static final Pattern EMPTY_TEXT = Pattern.compile("Cannot coerce empty String");
    private static final Pattern COERCE = Pattern.compile("Cannot coerce (String|Integer|Floating-point|Boolean|\\w+) value"
            + " \\((.*?)\\) to");
    private static final Pattern FROM_KIND = Pattern.compile("from (String|Object|Array|Integer|Floating-point|Boolean|Null)"
            + " value");
    private static final Pattern FROM_TEXT = Pattern.compile("from String \"(.*?)\": ");
    private static final Pattern UNEXPECTED_CHARACTER = Pattern.compile("Unexpected character \\('(.+?)' \\(code \\d+\\)\\)");
    private static final Pattern UNRECOGNIZED_TOKEN = Pattern.compile("Unrecognized token '(.*?)': was expecting .*");
    /** Jackson's own tails and switches, dropped wherever they appear. */
    private static final List<Pattern> INTERNALS = List.of(
            Pattern.compile("\\s*\\(but could if coercion was enabled using `CoercionConfig`\\)"),
            Pattern.compile("\\s*(at )?\\[Source: .*$", Pattern.DOTALL),
            Pattern.compile(":?\\s*enable `?[A-Za-z.]*ALLOW_[A-Z_]+`? to allow"),
            Pattern.compile("\\s*\\(token [A-Z_]+\\)"),
            Pattern.compile("\\s*\\(for Object starting at \\[Source.*?\\]\\)"));

    private JsonProblems() {
    }

    /**
     * What the value found was, when the message says ("found empty text", "found the number 5", "found a
     * list"), for a caller that says what was expected; null when the message does not say.
     */
    public static String found(String message) {
        if (message == null) {
            return null;
        }
        if (EMPTY_TEXT.matcher(message).find()) {
            return "found empty text";
        }
        Matcher coerce = COERCE.matcher(message);
        if (coerce.find()) {
            return "found " + kindWord(coerce.group(1), true) + " " + coerce.group(2);
        }
        Matcher text = FROM_TEXT.matcher(message);
        if (text.find()) {
            return "found the text '" + text.group(1) + "'";
        }
        Matcher kind = FROM_KIND.matcher(message);
        if (kind.find()) {
            return "found " + kindWord(kind.group(1), false);
        }
        return null;
    }

    /** The message's reason in words, on one line, without Jackson's class names and switches. */
    public static String words(String message) {
        if (message == null || message.isBlank()) {
            return "malformed";
        }
        String line = message.strip().replaceAll("\\s*\\R\\s*", " ");
        Matcher nonNumeric = NON_NUMERIC.matcher(line);
        if (nonNumeric.find()) {
            return "'" + nonNumeric.group(1) + "' is not a number JSON allows (write a decimal number such as 1.5)";
        }
        Matcher unrecognized = UNRECOGNIZED_TOKEN.matcher(line);
        if (unrecognized.find()) {
            return "'" + unrecognized.group(1) + "' is not a JSON value (text needs double quotes)";
        }
        String found = found(line);
        if (found != null) {
            return "wrong type: " + found;
        }
        line = UNEXPECTED_CHARACTER.matcher(line).replaceAll(matched -> "unexpected character '"
                + Matcher.quoteReplacement(matched.group(1)) + "'");
        for (Pattern internal : INTERNALS) {
            line = internal.matcher(line).replaceAll("");
        }
        // "Cannot deserialize value of type `java.lang.Long`": the simple name only.
        line = line.replaceAll("`[a-zA-Z0-9_.$]+\\.([A-Za-z0-9_$]+)`", "$1").strip();
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }

    /** A Jackson value kind in words: "the number" before a value shown, "a number" alone. */
    private static String kindWord(String jacksonKind, boolean valueFollows) {
        return switch (jacksonKind) {
            case "String" -> valueFollows ? "the text" : "text";
            case "Object" -> "a mapping";
            case "Array" -> "a list";
            case "Integer", "Floating-point" -> valueFollows ? "the number" : "a number";
            case "Boolean" -> valueFollows ? "the value" : "true or false";
            case "Null" -> "null";
            default -> jacksonKind.toLowerCase(Locale.ROOT);
        };
    }
}
