package tierlab.experiments.compute;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import tierlab.experiments.CommandException;
import tierlab.experiments.run.ExperimentParsing;
import tierlab.model.geometry.ModelSection;
import tierlab.model.geometry.ModelShape;

/**
 * A {@code --model} value: a preset name ({@code qwen3-8b}) or a YAML or JSON file of the model's fields,
 * as an experiment's {@code model} section writes them (docs/models.md).
 */
record ModelArgument(ModelSection section, ModelShape shape) {

    static ModelArgument of(String value) {
        boolean isFile = value.contains("/") || value.endsWith(".yaml") || value.endsWith(".yml") || value.endsWith(".json");
        if (!isFile) {
            ModelSection section = ModelSection.ofPreset(value);
            return new ModelArgument(section, resolve("--model", section));
        }
        Path file = tierlab.engine.persist.CallerPaths.resolve(Path.of(value));
        if (!Files.isRegularFile(file)) {
            throw new CommandException(file + ": no such model file (--model takes a preset, "
                    + ModelShape.PRESETS.known() + ", or a YAML file of the model's fields)");
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CommandException(file + ": cannot read the model file (" + e.getMessage() + ")", e);
        }
        var mapper = ExperimentParsing.mapperFor(file);
        ModelSection section = ExperimentParsing.bind(file, text, null, () -> mapper.readValue(text, ModelSection.class));
        if (section == null) {
            throw new CommandException(file + ": the model file is empty");
        }
        try {
            return new ModelArgument(section, section.resolve("model"));
        } catch (IllegalArgumentException e) {
            throw new CommandException(file + ": " + e.getMessage(), e);
        }
    }

    private static ModelShape resolve(String where, ModelSection section) {
        try {
            return section.resolve("model");
        } catch (IllegalArgumentException e) {
            throw new CommandException(where + ": " + e.getMessage(), e);
        }
    }
}
