package tierlab.sim.device;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Every device the simulator models, as one file (JSON or YAML) an experiment can name. The
 * bundled presets live in {@code sim/src/main/resources/profiles/}.
 */
public record DeviceProfile(String name, NvmeProfile nvme, PcieProfile pcie, GpuProfile gpu, HostProfile host) {

    public DeviceProfile {
        if (nvme == null || pcie == null || gpu == null || host == null) {
            throw new IllegalArgumentException("profile '" + name + "' must set nvme, pcie, gpu and host");
        }
    }

    /** Reads a profile file; a bad file fails with one message naming the file and the field. */
    public static DeviceProfile load(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return parse(in, file.toString(), file.toString().endsWith(".json"));
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read device profile: " + e.getMessage(), e);
        }
    }

    /** A bundled preset by name, e.g. {@code qwen3-8b-h100}. */
    public static DeviceProfile preset(String name) {
        String resource = "/profiles/" + name + ".yaml";
        try (InputStream in = DeviceProfile.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("device profile: no preset named '" + name + "'");
            }
            return parse(in, resource, false);
        } catch (IOException e) {
            throw new IllegalArgumentException(resource + ": " + e.getMessage(), e);
        }
    }

    private static DeviceProfile parse(InputStream in, String origin, boolean json) throws IOException {
        ObjectMapper mapper = json ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
        mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        try {
            return mapper.readValue(in, DeviceProfile.class);
        } catch (UnrecognizedPropertyException e) {
            throw new IllegalArgumentException(origin + ": unknown field '" + e.getPropertyName() + "' at " + path(e), e);
        } catch (MismatchedInputException e) {
            throw new IllegalArgumentException(origin + ": field " + path(e) + ": " + e.getOriginalMessage(), e);
        } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
            Throwable cause = e.getCause() instanceof IllegalArgumentException ? e.getCause() : e;
            throw new IllegalArgumentException(origin + ": " + cause.getMessage(), e);
        }
    }

    private static String path(com.fasterxml.jackson.databind.JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (var reference : e.getPath()) {
            if (reference.getFieldName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(reference.getFieldName());
            }
        }
        return path.toString();
    }

    static void positive(String field, double value) {
        if (!(value > 0)) {
            throw new IllegalArgumentException(field + " must be > 0, was " + value);
        }
    }

    static void nonNegative(String field, double value) {
        if (!(value >= 0)) {
            throw new IllegalArgumentException(field + " must be >= 0, was " + value);
        }
    }
}
