package tierlab.hunt;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import tierlab.engine.persist.AtomicFiles;

/**
 * A saved failure: the shrunk schedule (configuration with its ablation switches, and every step)
 * plus what it violated when it was found. Replaying needs only the file: runs are deterministic,
 * so {@link #replay()} reproduces the same violation at the same step.
 *
 * @param format          file format version
 * @param target          the property or hunt profile that found it (R1, swarm-store, ...)
 * @param seed            the QuickTheories seed that generated it
 * @param check           the violated check
 * @param stepIndex       the step of the violation (-1: the final drain)
 * @param message         the violation's message when it was found
 * @param originalLength  steps before shrinking
 */
public record ReplayFile(int format, String target, long seed, Check check, int stepIndex, String message,
                         int originalLength, Schedule schedule) {

    public static final int FORMAT = 1;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public static ReplayFile of(Finding finding) {
        return new ReplayFile(FORMAT, finding.target(), finding.seed(), finding.violation().check(),
                finding.violation().stepIndex(), finding.violation().message(), finding.original().length(), finding.shrunk());
    }

    public ScheduleResult replay() {
        return Runner.run(schedule);
    }

    /** True when the replay violates the same check at the same step as recorded. */
    public boolean reproduces() {
        ScheduleResult result = replay();
        return !result.passed() && result.violation().check() == check && result.violation().stepIndex() == stepIndex;
    }

    /** Writes atomically (temp file, then move), so a hunt interrupted mid-write leaves no half file. */
    public void write(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        AtomicFiles.write(file, temp -> JSON.writeValue(temp.toFile(), this));
    }

    /** A shrunk failure is a few dozen steps; a file this large is not one (refused before parsing). */
    public static final long MAX_FILE_BYTES = 16L << 20;

    /**
     * Reads a replay file.
     *
     * @throws IllegalArgumentException with one line naming the file, the line and what is wrong
     *                                  (too large, not JSON, binary, a field of the wrong type, an unknown field)
     * @throws IOException              when the file cannot be read at all
     */
    public static ReplayFile read(Path file) throws IOException {
        long size = java.nio.file.Files.size(file);
        if (size > MAX_FILE_BYTES) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT, "%s: %,d bytes; a replay file is at"
                    + " most %,d bytes (16 MiB)", file, size, MAX_FILE_BYTES));
        }
        String binary = tierlab.workload.BinaryContent.describe(file);
        if (binary != null) {
            throw new IllegalArgumentException(file + ": " + binary + "; a replay file is JSON text");
        }
        ReplayFile replay;
        try {
            replay = JSON.readValue(file.toFile(), ReplayFile.class);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(file + describe(e), e);
        }
        if (replay == null) {
            throw new IllegalArgumentException(file + ": the file is empty");
        }
        return replay.checkedFormat(file.toString());
    }

    /**
     * ":LINE:COLUMN: what is wrong" in words for a Jackson failure, without Jackson's own text
     * (its class names, its "[Source: ...]" tail, its list of token kinds).
     */
    static String describe(JacksonException e) {
        JsonLocation location = e.getLocation();
        String where = location == null || location.getLineNr() < 1 ? ": "
                : ":" + location.getLineNr() + (location.getColumnNr() > 0 ? ":" + location.getColumnNr() : "") + ": ";
        String field = e instanceof JsonMappingException bind ? fieldPath(bind) : "";
        return where + switch (e) {
            case UnrecognizedPropertyException unknown -> "unknown field '" + unknown.getPropertyName() + "'"
                    + (field.contains(".") ? " in '" + field.substring(0, field.lastIndexOf('.')) + "'" : "")
                    + " (known: " + unknown.getKnownPropertyIds().stream().map(Object::toString).sorted()
                            .collect(java.util.stream.Collectors.joining(", ")) + ")";
            case InvalidFormatException invalid -> "field '" + field + "': '" + invalid.getValue() + "' is not "
                    + typeName(invalid.getTargetType());
            case MismatchedInputException mismatched when mismatched.getTargetType() != null && !field.isEmpty() ->
                    "field '" + field + "' must be " + typeName(mismatched.getTargetType());
            case com.fasterxml.jackson.core.io.JsonEOFException eof -> "the file ends inside a JSON value (cut short?)";
            case StreamReadException read -> "not valid JSON";
            // A record's constructor refused the value: its own message says why, in this project's words.
            case ValueInstantiationException refused when refused.getCause() instanceof IllegalArgumentException why ->
                    (field.isEmpty() ? "" : "field '" + field + "': ") + why.getMessage();
            default -> field.isEmpty() ? "not a replay file" : "field '" + field + "' has a value this format does not allow";
        };
    }

    private static String fieldPath(JsonMappingException e) {
        return e.getPath().stream()
                .map(reference -> reference.getFieldName() != null ? reference.getFieldName() : "[" + reference.getIndex() + "]")
                .collect(java.util.stream.Collectors.joining(".")).replace(".[", "[");
    }

    private static String typeName(Class<?> type) {
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "a whole number";
        }
        if (type == double.class || type == Double.class || type == float.class) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "text";
        }
        if (type.isEnum()) {
            return "one of " + java.util.Arrays.stream(type.getEnumConstants()).map(Object::toString)
                    .collect(java.util.stream.Collectors.joining(", "));
        }
        if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "a list";
        }
        return "an object";
    }

    public static ReplayFile read(InputStream in, String name) throws IOException {
        return JSON.readValue(in, ReplayFile.class).checkedFormat(name);
    }

    private ReplayFile checkedFormat(String name) {
        if (format != FORMAT) {
            throw new IllegalArgumentException(name + ": replay format " + format + " is not the supported " + FORMAT);
        }
        if (schedule == null || schedule.config() == null) {
            throw new IllegalArgumentException(name + ": field 'schedule' with its 'config' is required");
        }
        return this;
    }

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
