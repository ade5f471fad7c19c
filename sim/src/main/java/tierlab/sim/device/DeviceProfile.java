package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tierlab.model.Registry;

/**
 * Every device the simulator models, as one file (JSON or YAML) an experiment can name. The
 * bundled presets live in {@code sim/src/main/resources/profiles/}.
 *
 * @param storage the storage device model and its parameters ({@link StorageModels}); absent (null)
 *                means the {@code nvme} model over the {@code nvme} section, as in every profile
 *                written before models were named
 * @param nvme    the NVMe drive's parameters; needed only when the storage model reads them
 */
public record DeviceProfile(String name, @JsonInclude(JsonInclude.Include.NON_NULL) StorageSection storage,
                            @JsonInclude(JsonInclude.Include.NON_NULL) NvmeProfile nvme, PcieProfile pcie,
                            GpuProfile gpu, HostProfile host) {

    public DeviceProfile {
        if (pcie == null || gpu == null || host == null) {
            throw new IllegalArgumentException("profile '" + name + "' must set pcie, gpu and host");
        }
        if (nvme == null && (storage == null || storage.readsNvmeSection())) {
            throw new IllegalArgumentException("profile '" + name + "' must set nvme (its storage model "
                    + (storage == null ? StorageModels.DEFAULT : StorageModels.nameOf(storage)) + " reads it)");
        }
    }

    /** A profile whose storage is the {@code nvme} model over {@code nvme}. */
    public DeviceProfile(String name, NvmeProfile nvme, PcieProfile pcie, GpuProfile gpu, HostProfile host) {
        this(name, null, nvme, pcie, gpu, host);
    }

    /** The storage section in effect: the file's, or the {@code nvme} model's when the file has none. */
    public StorageSection storageSection() {
        return storage == null ? new StorageModels.Nvme() : storage;
    }

    /** Reads a profile file; a bad file fails with one message naming the file and the field. */
    public static DeviceProfile load(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            DeviceProfile profile = parse(in, file.toString(), file.toString().endsWith(".json"));
            // A table compute model names its CSV relative to the profile file, as compute profiles do.
            if (profile.gpu().compute() instanceof TableSection table) {
                Path folder = file.toAbsolutePath().normalize().getParent();
                return profile.withGpu(profile.gpu().withCompute(table.relativeTo(folder)));
            }
            return profile;
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read device profile: " + e.getMessage(), e);
        }
    }

    /**
     * The bundled presets by name, each the resource file it is read from. A jar's resources cannot
     * be listed, so the names are registered here; the test checks each one loads.
     */
    public static final Registry<String> PRESETS = Registry.<String>of("device profile")
            .add("qwen3-8b-h100", "/profiles/qwen3-8b-h100.yaml")
            .add("qwen3-8b-h200", "/profiles/qwen3-8b-h200.yaml")
            .addProviders(DevicePresetProvider.class)
            .build();

    /** A bundled preset by name, e.g. {@code qwen3-8b-h100}; an unknown name's message lists the known ones. */
    public static DeviceProfile preset(String name) {
        String resource = PRESETS.get("device", name);
        try (InputStream in = DeviceProfile.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("device profile '" + name + "': the bundled " + resource + " is missing");
            }
            return parse(in, resource, false);
        } catch (IOException e) {
            throw new IllegalArgumentException(resource + ": " + e.getMessage(), e);
        }
    }

    /** The same devices under another name. */
    public DeviceProfile withName(String newName) {
        return new DeviceProfile(newName, storage, nvme, pcie, gpu, host);
    }

    /** The same PCIe, GPU and host with another NVMe drive (a calibrated one, say). */
    public DeviceProfile withNvme(NvmeProfile newNvme) {
        return new DeviceProfile(name, storage, newNvme, pcie, gpu, host);
    }

    /** The same NVMe, GPU and host with other PCIe figures (calibrated ones, say). */
    public DeviceProfile withPcie(PcieProfile newPcie) {
        return new DeviceProfile(name, storage, nvme, newPcie, gpu, host);
    }

    /** The same NVMe, PCIe and host with another GPU (an experiment's compute model, say). */
    public DeviceProfile withGpu(GpuProfile newGpu) {
        return new DeviceProfile(name, storage, nvme, pcie, newGpu, host);
    }

    /**
     * The profile as YAML that {@link #load} reads back to an equal profile. {@code headerComment}
     * (may be empty) is written first, each line prefixed with {@code "# "}: where the numbers came from.
     * Whole-numbered values are written without a fraction ({@code 600000000}, not {@code 6.0E8}).
     */
    public String toYaml(String headerComment) {
        ObjectMapper mapper = new ObjectMapper(new YAMLFactory()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
        StorageModels.registerWith(mapper);
        ComputeModels.registerWith(mapper);
        JsonNode tree = mapper.valueToTree(this);
        integralDoublesAsLongs(tree);
        StringBuilder text = new StringBuilder();
        if (headerComment != null && !headerComment.isBlank()) {
            for (String line : headerComment.strip().split("\\R")) {
                text.append(line.isBlank() ? "#" : "# " + line).append('\n');
            }
        }
        try {
            text.append(mapper.writeValueAsString(tree));
        } catch (IOException e) {
            throw new IllegalStateException("profile '" + name + "' cannot be written as YAML: " + e.getMessage(), e);
        }
        return text.toString();
    }

    private static void integralDoublesAsLongs(JsonNode node) {
        if (node instanceof ObjectNode object) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            for (String field : names) {
                JsonNode child = object.get(field);
                if (child.isDouble() && child.doubleValue() == Math.rint(child.doubleValue())
                        && Math.abs(child.doubleValue()) < 0x1p53) {
                    object.set(field, LongNode.valueOf((long) child.doubleValue()));
                } else {
                    integralDoublesAsLongs(child);
                }
            }
        }
    }

    private static DeviceProfile parse(InputStream in, String origin, boolean json) throws IOException {
        ObjectMapper mapper = json ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
        mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        StorageModels.registerWith(mapper);
        ComputeModels.registerWith(mapper);
        try {
            return mapper.readValue(in, DeviceProfile.class);
        } catch (InvalidTypeIdException e) {
            // An unknown or missing storage.model or gpu.compute.kind: the registry's message lists the known ones.
            boolean compute = path(e).startsWith("gpu");
            try {
                if (compute) {
                    ComputeModels.KINDS.get("gpu.compute.kind", e.getTypeId());
                } else {
                    StorageModels.MODELS.get("storage.model", e.getTypeId());
                }
            } catch (IllegalArgumentException unknown) {
                throw new IllegalArgumentException(origin + ": " + unknown.getMessage(), e);
            }
            throw new IllegalArgumentException(origin + ": field " + path(e) + ": " + e.getOriginalMessage(), e);
        } catch (UnrecognizedPropertyException e) {
            throw new IllegalArgumentException(origin + ": unknown field '" + e.getPropertyName() + "' at " + path(e), e);
        } catch (MismatchedInputException e) {
            throw new IllegalArgumentException(origin + ": field " + path(e) + ": "
                    + tierlab.workload.JsonProblems.words(e.getOriginalMessage()), e);
        } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
            Throwable cause = e.getCause() instanceof IllegalArgumentException ? e.getCause() : e;
            throw new IllegalArgumentException(origin + ": " + (cause == e
                    ? tierlab.workload.JsonProblems.words(e.getOriginalMessage()) : cause.getMessage()), e);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            // Not valid YAML or JSON: the line and the reason in words, not the parser's "[Source: ...]" tail.
            var location = e.getLocation();
            throw new IllegalArgumentException(origin + (location != null && location.getLineNr() > 0
                    ? ": line " + location.getLineNr() : "") + ": " + tierlab.workload.JsonProblems.words(e.getOriginalMessage()), e);
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
