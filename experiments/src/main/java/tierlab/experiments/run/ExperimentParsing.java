package tierlab.experiments.run;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import tierlab.experiments.CommandException;

/**
 * Reading an experiment file's text into {@link ExperimentFile}: a strict mapper (unknown fields,
 * duplicates and coercions refused) and one-line messages that name the file, the line and the field.
 */
public final class ExperimentParsing {

    private ExperimentParsing() {
    }

    /** The strict mapper for the file's format (.yaml, .yml or .json); the same for experiment and validation files. */
    public static ObjectMapper mapperFor(Path file) {
        String lower = file.getFileName().toString().toLowerCase(Locale.ROOT);
        ObjectMapper mapper;
        if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
            mapper = YAMLMapper.builder(new YAMLFactory()).build();
        } else if (lower.endsWith(".json")) {
            mapper = JsonMapper.builder().build();
        } else {
            throw new CommandException(file + ": an experiment file ends in .yaml, .yml or .json");
        }
        mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        mapper.enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
        mapper.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION.mappedFeature());
        mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
        // "64" is a string, not a number, and 64.5 is not a whole number: say so rather than guess.
        mapper.coercionConfigDefaults().setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }

    @FunctionalInterface
    public interface Parse<T> {
        T run() throws IOException;
    }

    /**
     * Runs a binding step; a binding problem becomes one {@link CommandException} line naming the file,
     * the line (when {@code where} is null and the parser knows it), {@code where} and the field path.
     */
    public static <T> T bind(Path file, String text, String where, Parse<T> parse) {
        try {
            return parse.run();
        } catch (JsonProcessingException e) {
            throw new CommandException(message(file, text, where, e), e);
        } catch (IOException e) {
            throw new CommandException(file + ": cannot read the experiment file (" + describeIo(e) + ")", e);
        } catch (IllegalArgumentException e) {
            // treeToValue wraps binding problems in IllegalArgumentException with the Jackson exception as cause.
            if (e.getCause() instanceof JsonProcessingException cause) {
                throw new CommandException(message(file, text, where, cause), e);
            }
            throw new CommandException(file + ": " + (where == null ? "" : where + ": ") + e.getMessage(), e);
        }
    }

    /** One line: file, line (when known), sweep point, field path, and what is wrong in plain words. */
    static String message(Path file, String source, String where, JsonProcessingException e) {
        StringBuilder text = new StringBuilder(file.toString());
        JsonLocation location = e.getLocation();
        int line = location == null ? -1 : location.getLineNr();
        if (e instanceof UnrecognizedPropertyException unknown) {
            // The parser has read past the unknown field's value by now (to the next line, for YAML);
            // the field's own line is where its key is written, if the key appears just once.
            line = keyLine(source, unknown.getPropertyName(), line);
        }
        String path = e instanceof JsonMappingException mapping ? path(mapping) : "";
        String causeMessage = e instanceof ValueInstantiationException instantiation && instantiation.getCause() != null
                ? instantiation.getCause().getMessage() : null;
        boolean causeNamesField = causeMessage != null && !path.isEmpty() && causeMessage.startsWith(path + ".");
        if (causeNamesField) {
            // A record refused one of its fields ("model.kvDtype: ..."): the parser stands past the record by
            // now; the field's own line is where its key is written, if the key appears just once.
            String field = causeMessage.substring(path.length() + 1).split("[:\\s]", 2)[0];
            line = keyLine(source, field, line);
        }
        if (line > 0 && where == null) {
            text.append(": line ").append(line);
        }
        if (where != null) {
            text.append(": ").append(where);
        }
        if (!path.isEmpty() && !(e instanceof UnrecognizedPropertyException) && !causeNamesField) {
            text.append(": ").append(path);
        }
        text.append(": ");
        if (e instanceof UnrecognizedPropertyException unknown) {
            String parent = path.contains(".") ? path.substring(0, path.lastIndexOf('.')) : "";
            List<String> known = unknown.getKnownPropertyIds() == null ? List.of()
                    : unknown.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList();
            text.append("unknown field '").append(path.isEmpty() ? unknown.getPropertyName() : path).append("'");
            if (!known.isEmpty()) {
                text.append(" (known").append(parent.isEmpty() ? "" : " in " + parent).append(": ")
                        .append(String.join(", ", known)).append(")");
            }
        } else if (e instanceof InvalidTypeIdException typeId) {
            text.append("unknown kind '").append(typeId.getTypeId()).append("'");
        } else if (e instanceof ValueInstantiationException instantiation && instantiation.getCause() != null) {
            text.append(instantiation.getCause().getMessage());
        } else if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
            String found = tierlab.workload.JsonProblems.found(e.getOriginalMessage());
            text.append("wrong type: expected ").append(typeName(mismatch.getTargetType()))
                    .append(found != null ? ", " + found : " (" + firstSentence(e.getOriginalMessage()) + ")");
        } else {
            text.append(firstSentence(e.getOriginalMessage()));
        }
        return text.toString();
    }

    /** The one line where {@code key:} (YAML) or {@code "key":} (JSON) is written, else {@code fallback}. */
    static int keyLine(String source, String key, int fallback) {
        if (source == null || key == null) {
            return fallback;
        }
        Pattern pattern = Pattern.compile("^\\s*(-\\s*)?[\"']?" + Pattern.quote(key) + "[\"']?\\s*:|[{,]\\s*[\"']?"
                + Pattern.quote(key) + "[\"']?\\s*:");
        int found = -1;
        String[] lines = source.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            if (pattern.matcher(lines[i]).find()) {
                if (found > 0) {
                    return fallback;
                }
                found = i + 1;
            }
        }
        return found > 0 ? found : fallback;
    }

    static String typeName(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number";
        }
        if (type == Double.class || type == double.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "text";
        }
        if (List.class.isAssignableFrom(type)) {
            return "a list";
        }
        return "a mapping of fields";
    }

    /** Jackson's message in words: no class names, switches or "[Source: ...]" tail (see JsonProblems). */
    static String firstSentence(String message) {
        return tierlab.workload.JsonProblems.words(message);
    }

    static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : e.getPath()) {
            if (reference.getFieldName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(reference.getFieldName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    static String describeIo(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    static String defaultName(Path file) {
        String base = file.getFileName().toString();
        int dot = base.lastIndexOf('.');
        return (dot > 0 ? base.substring(0, dot) : base).toLowerCase(Locale.ROOT);
    }
}
