package tierlab.experiments.compute;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code tierlab compute fit|predict}: the GPU's compute model fitted to measured steps, and asked about others. */
@Command(
        name = "compute",
        mixinStandardHelpOptions = true,
        description = {"Fit a compute profile to measured engine steps, or predict step times from one (docs/compute.md); time the CUDA forward pass on this GPU (bench, docs/cuda.md)."},
        subcommands = {FitCommand.class, PredictCommand.class, StepBenchCommand.class})
public final class ComputeCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a compute command is needed: "
                + String.join(", ", spec.subcommands().keySet()));
    }
}
