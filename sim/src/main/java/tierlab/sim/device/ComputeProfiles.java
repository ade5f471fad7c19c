package tierlab.sim.device;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import tierlab.model.geometry.ModelSection;

/**
 * Compute profile files: one {@link ComputeSection} as YAML or JSON (its {@code kind} and that kind's
 * fields), what {@code tierlab compute fit} writes and experiment files name in {@code gpu.compute.profile}.
 * A CSV file is read as a {@code table} profile of that table. A bad file is one line naming the file,
 * the line where the parser knows it, and the field.
 */
public final class ComputeProfiles {

    private ComputeProfiles() {
    }

    /** Reads {@code file}; a table's relative path is resolved against the file's folder. */
    public static ComputeSection load(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(file + ": no such compute profile file");
        }
        Path folder = file.toAbsolutePath().normalize().getParent();
        if (file.getFileName().toString().endsWith(".csv")) {
            return new TableSection(file.toAbsolutePath().normalize().toString(), null, null);
        }
        ObjectMapper mapper = mapper(file.getFileName().toString().endsWith(".json"));
        ComputeSection section;
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read the compute profile (" + e.getMessage() + ")", e);
        }
        try {
            section = mapper.readValue(text, ComputeSection.class);
        } catch (InvalidTypeIdException e) {
            throw new IllegalArgumentException(file + lineOf(e) + ": " + kindProblem(e), e);
        } catch (UnrecognizedPropertyException e) {
            // The YAML parser has read past the unknown key by now; its own line is where the key is written.
            throw new IllegalArgumentException(file + ": line " + keyLine(text, e.getPropertyName(), e) + ": unknown field '"
                    + path(e) + "'", e);
        } catch (JsonMappingException e) {
            Throwable cause = e.getCause() instanceof IllegalArgumentException ? e.getCause() : null;
            throw new IllegalArgumentException(file + lineOf(e) + ": " + (path(e).isEmpty() ? "" : path(e) + ": ")
                    + (cause != null ? cause.getMessage() : e.getOriginalMessage()), e);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read the compute profile (" + e.getMessage() + ")", e);
        }
        if (section == null) {
            throw new IllegalArgumentException(file + ": the compute profile is empty");
        }
        return section instanceof TableSection table ? table.relativeTo(folder) : section;
    }

    /** {@code section} as YAML that {@link #load} reads back, {@code headerComment} first as {@code #} lines. */
    public static String toYaml(ComputeSection section, String headerComment) {
        ObjectMapper mapper = new ObjectMapper(new YAMLFactory()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .disable(YAMLGenerator.Feature.USE_NATIVE_TYPE_ID)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
        // A model section's unset fields (a preset's) are left out rather than written as nulls.
        mapper.setDefaultPropertyInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL);
        ComputeModels.registerWith(mapper);
        StringBuilder text = new StringBuilder();
        for (String line : headerComment.strip().split("\\R")) {
            text.append(line.isBlank() ? "#" : "# " + line).append('\n');
        }
        try {
            return text.append(mapper.writerFor(ComputeSection.class).writeValueAsString(section)).toString();
        } catch (IOException e) {
            throw new IllegalStateException("a compute profile cannot be written as YAML: " + e.getMessage(), e);
        }
    }

    /** The model a profile records, or null (a linear profile, a bare table). */
    public static ModelSection modelOf(ComputeSection section) {
        return switch (section) {
            case RooflineSection roofline -> roofline.model();
            case KernelRooflineSection kernels -> kernels.model();
            case TableSection table -> table.model();
            default -> null;
        };
    }

    static ObjectMapper mapper(boolean json) {
        ObjectMapper mapper = json ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
        mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        ComputeModels.registerWith(mapper);
        return mapper;
    }

    private static String kindProblem(InvalidTypeIdException e) {
        try {
            ComputeModels.KINDS.get("kind", e.getTypeId());
        } catch (IllegalArgumentException unknown) {
            return unknown.getMessage();
        }
        return e.getOriginalMessage();
    }

    private static int keyLine(String text, String key, JsonMappingException e) {
        String[] lines = text.split("\\R", -1);
        int found = -1;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].matches("^[\\s{,-]*" + java.util.regex.Pattern.quote(key) + "\\s*:.*")
                    || lines[i].matches(".*[{,]\\s*" + java.util.regex.Pattern.quote(key) + "\\s*:.*")) {
                if (found > 0) {
                    found = -1;
                    break;
                }
                found = i + 1;
            }
        }
        return found > 0 ? found : e.getLocation() == null ? 0 : e.getLocation().getLineNr();
    }

    private static String lineOf(JsonMappingException e) {
        return e.getLocation() == null || e.getLocation().getLineNr() < 1 ? "" : ": line " + e.getLocation().getLineNr();
    }

    private static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (var reference : e.getPath()) {
            if (reference.getFieldName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(reference.getFieldName());
            }
        }
        return path.toString();
    }
}
