package tierlab.experiments.run;

import static tierlab.experiments.run.Fields.withField;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import tierlab.experiments.run.ExperimentFile.ComputeChoice;
import tierlab.experiments.run.ExperimentFile.GpuSection;
import tierlab.model.geometry.ModelSection;
import tierlab.model.geometry.ModelShape;
import tierlab.sim.device.ComputeModels;
import tierlab.sim.device.ComputeProfiles;
import tierlab.sim.device.ComputeSection;
import tierlab.sim.device.DeviceProfile;

/**
 * The {@code gpu.compute} section: which compute model prices the run's engine steps. The choice
 * becomes the run's device profile's GPU compute section, so every runtime reaches it through the one
 * place a profile becomes step times ({@code GpuProfile.computeModel()}) and the compute port it
 * opens. A model that reads a shape is priced for the run's model. Without the section a run keeps
 * its device profile's compute model, and its columns and decisions are what they always were.
 */
final class ComputeSections {

    private ComputeSections() {
    }

    static DeviceProfile apply(GpuSection gpu, DeviceProfile device, ModelShape shape, Path folder,
                               Map<String, Object> parameters) {
        ComputeChoice choice = gpu == null ? null : gpu.compute();
        ComputeSection section = choice == null ? device.gpu().compute() : chosen(choice, folder, parameters);
        if (section == null && device.gpu().compute() == null) {
            return device;
        }
        ComputeSection priced = section == null ? null : section.forModel(shape);
        checkTableModel(priced, shape);
        DeviceProfile applied = device.withGpu(device.gpu().withCompute(priced));
        // Opened once now, so a bad table or a model without compute fields is one line before any run starts.
        withField("gpu.compute", () -> applied.gpu().computeModel());
        return applied;
    }

    /** The section a file's {@code gpu.compute} names; null for {@code linear} without a profile (the device's terms). */
    private static ComputeSection chosen(ComputeChoice choice, Path folder, Map<String, Object> parameters) {
        String kind = choice.kind();
        if (kind != null) {
            ComputeModels.KINDS.get("gpu.compute.kind", kind);
        }
        ComputeSection section = null;
        if (choice.profile() != null) {
            Path file = folder.resolve(choice.profile()).normalize();
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("gpu.compute.profile: no such file: " + file
                        + " (paths are relative to the experiment file's folder)");
            }
            section = withField("gpu.compute.profile", () -> ComputeProfiles.load(file));
            String profileKind = ComputeModels.nameOf(section);
            if (kind != null && !kind.equals(profileKind)) {
                throw new IllegalArgumentException("gpu.compute.kind: " + kind + ", but " + file + " is a " + profileKind
                        + " profile");
            }
            kind = profileKind;
        } else if (kind == null) {
            throw new IllegalArgumentException("gpu.compute: name a kind (" + ComputeModels.KINDS.known()
                    + ") or a profile file");
        } else if (!kind.equals(ComputeModels.DEFAULT)) {
            throw new IllegalArgumentException("gpu.compute.profile: the " + kind + " kind needs a compute profile file"
                    + " ('tierlab compute fit' writes one" + (kind.equals("table") ? "; a step table's .csv will do" : "")
                    + ")");
        }
        parameters.put("gpu.compute.kind", kind);
        if (choice.profile() != null) {
            parameters.put("gpu.compute.profile", choice.profile());
        }
        return section;
    }

    /** A table prices only the model it was measured with: a table that records another model is refused. */
    private static void checkTableModel(ComputeSection section, ModelShape shape) {
        ModelSection recorded = section == null || !ComputeModels.nameOf(section).equals("table") ? null
                : ComputeProfiles.modelOf(section);
        if (recorded != null) {
            ModelShape measured = withField("gpu.compute.profile", () -> recorded.resolve("model"));
            if (!measured.name().equals(shape.name())) {
                throw new IllegalArgumentException("gpu.compute.profile: the table was measured with model '"
                        + measured.name() + "' and this run's model is '" + shape.name() + "' (a table prices its own model;"
                        + " the roofline kind carries a fit to another model)");
            }
        }
    }
}
