package tierlab.experiments.compute;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tierlab.engine.persist.CallerPaths;
import tierlab.experiments.CommandException;
import tierlab.model.geometry.ModelSection;
import tierlab.model.io.ComputeModel;
import tierlab.model.io.StepShape;
import tierlab.sim.device.ComputeModels;
import tierlab.sim.device.ComputeProfiles;
import tierlab.sim.device.ComputeSection;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.GpuProfile;
import tierlab.sim.device.StepRows;

/**
 * {@code tierlab compute predict --profile PROFILE [--model OTHER] --shapes SHAPES.csv}: the step time of
 * every row of SHAPES under a compute profile, as {@code kind,batch,new_tokens,context_tokens,ms} on
 * stdout (an {@code ms} column in SHAPES is ignored). A roofline profile prices {@code --model} instead
 * of the model it was fitted on; a table prices only its own model. A linear profile's missing terms
 * are those of the bundled device preset.
 */
@Command(
        name = "predict",
        mixinStandardHelpOptions = true,
        description = {"Predict step times under a compute profile: kind,batch,new_tokens,context_tokens,ms to stdout."})
public final class PredictCommand implements Callable<Integer> {

    /** The device preset whose GPU terms a linear profile falls back on. */
    static final String BASE_DEVICE = "qwen3-8b-h100";

    @Spec
    private CommandSpec spec;

    @Option(names = "--profile", required = true, paramLabel = "PROFILE",
            description = "A compute profile (written by 'tierlab compute fit', or a step table .csv).")
    private Path profile;

    @Option(names = "--model", paramLabel = "OTHER",
            description = "Price this model instead of the profile's: a preset name or a YAML file of its fields (roofline kinds only).")
    private String model;

    @Option(names = "--shapes", required = true, paramLabel = "SHAPES.csv",
            description = "The steps to price: kind,batch,new_tokens,context_tokens (an ms column is ignored).")
    private Path shapes;

    @Override
    public Integer call() {
        profile = CallerPaths.resolve(profile);
        shapes = CallerPaths.resolve(shapes);
        ComputeSection section = FitCommand.userError(null, () -> ComputeProfiles.load(profile));
        String kind = ComputeModels.nameOf(section);
        if (model != null) {
            ModelArgument other = ModelArgument.of(model);
            if (!pricesModels(kind)) {
                throw new CommandException("--model: " + profile + " is a " + kind + " profile, which prices "
                        + (kind.equals("table") ? "only the model it was measured with" : "no model shape")
                        + "; only a roofline or kernel-roofline profile prices another model");
            }
            section = section.forModel(other.shape());
        } else {
            ModelSection recorded = ComputeProfiles.modelOf(section);
            if (pricesModels(kind) && recorded == null) {
                throw new CommandException(profile + ": the " + kind + " profile records no model; name one with --model");
            }
        }
        GpuProfile base = DeviceProfile.preset(BASE_DEVICE).gpu().withCompute(section);
        ComputeModel compute = FitCommand.userError(profile.toString(), base::computeModel);
        List<StepRows.Row> rows = FitCommand.userError(null, () -> StepRows.read(shapes, false));
        List<StepRows.Row> priced = new ArrayList<>(rows.size());
        for (StepRows.Row row : rows) {
            priced.add(new StepRows.Row(row.kind(), row.batch(), row.newTokens(), row.contextTokens(),
                    compute.stepNs(shapeOf(row)) / 1e6));
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(StepRows.format(priced));
        out.flush();
        return 0;
    }

    private static boolean pricesModels(String kind) {
        return kind.equals(FitCommand.ROOFLINE) || kind.equals(FitCommand.KERNEL_ROOFLINE);
    }

    /** A uniform step: {@code batch} sequences of the row's new tokens over its context. */
    static StepShape shapeOf(StepRows.Row row) {
        List<StepShape.Sequence> sequences = new ArrayList<>(row.batch());
        for (int i = 0; i < row.batch(); i++) {
            sequences.add(new StepShape.Sequence(i, row.newTokens(), row.contextTokens(), row.decode()));
        }
        return new StepShape(sequences);
    }
}
