package tierlab.experiments.compute;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import tierlab.engine.persist.CallerPaths;
import tierlab.experiments.CommandException;
import tierlab.sim.device.ComputeProfiles;
import tierlab.sim.device.ComputeSection;
import tierlab.sim.device.GpuSpec;
import tierlab.sim.device.GpuSpecs;
import tierlab.sim.device.RooflineCompute;
import tierlab.sim.device.StepRows;

/**
 * {@code tierlab compute fit TABLE.csv --model SHAPE [--gpu NAME] [--kind roofline|kernel-roofline] [--form max|sum]
 * --out PROFILE}: fits the roofline kind ({@link RooflineFit}) or the kernel-roofline kind ({@link KernelRooflineFit})
 * to measured steps, prints every row's error and the median and
 * 90th percentile, and writes a compute profile an experiment's {@code gpu.compute.profile} can name.
 * Warnings (a clamped or undetermined coefficient, no convergence) go to stderr and into the profile.
 * An existing file is never overwritten, and the profile appears whole or not at all.
 */
@Command(
        name = "fit",
        mixinStandardHelpOptions = true,
        description = {"Fit the roofline compute model to a measured step table (kind,batch,new_tokens,context_tokens,ms)",
            "and write a compute profile."})
public final class FitCommand implements Callable<Integer> {

    static final String ROOFLINE = "roofline";
    static final String KERNEL_ROOFLINE = "kernel-roofline";

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "TABLE.csv", description = "Measured steps: kind,batch,new_tokens,context_tokens,ms.")
    private Path table;

    @Option(names = "--model", required = true, paramLabel = "SHAPE",
            description = "The model the steps ran: a preset name or a YAML file of its fields (docs/models.md).")
    private String model;

    @Option(names = "--gpu", paramLabel = "NAME", defaultValue = "h100",
            description = "The GPU the steps ran on, whose peak rates the efficiencies scale (default: ${DEFAULT-VALUE}).")
    private String gpu;

    @Option(names = "--kind", paramLabel = "KIND", defaultValue = ROOFLINE,
            description = "roofline (one roofline over the step) or kernel-roofline (one per kernel, summed)"
                    + " (default: ${DEFAULT-VALUE}).")
    private String kind;

    @Option(names = "--form", paramLabel = "FORM", defaultValue = RooflineCompute.MAX,
            description = "The roofline kind's form: max (compute and memory overlap) or sum (they do not)"
                    + " (default: ${DEFAULT-VALUE}).")
    private String form;

    @Option(names = "--out", required = true, paramLabel = "PROFILE", description = "The compute profile to write (YAML).")
    private Path out;

    @Override
    public Integer call() throws IOException {
        table = CallerPaths.resolve(table);
        out = CallerPaths.resolve(out);
        if (Files.exists(out)) {
            throw new CommandException(out + ": exists (compute fit does not overwrite a file; remove it or name another)");
        }
        if (!form.equals(RooflineCompute.MAX) && !form.equals(RooflineCompute.SUM)) {
            throw new CommandException("--form: must be max or sum, was " + form);
        }
        if (!kind.equals(ROOFLINE) && !kind.equals(KERNEL_ROOFLINE)) {
            throw new CommandException("--kind: must be " + ROOFLINE + " or " + KERNEL_ROOFLINE + ", was " + kind);
        }
        GpuSpec gpuSpec = userError("--gpu", () -> GpuSpecs.get("--gpu", gpu));
        ModelArgument shape = ModelArgument.of(model);
        List<StepRows.Row> rows = userError(null, () -> StepRows.read(table, true));
        String tableName = table.getFileName().toString();
        Fitted result = kind.equals(ROOFLINE)
                ? userError(null, () -> Fitted.of(RooflineFit.fit(rows, shape.shape(), shape.section(), gpuSpec, form,
                        tableName), form))
                : userError(null, () -> Fitted.of(KernelRooflineFit.fit(rows, shape.shape(), shape.section(), gpuSpec,
                        tableName)));
        PrintWriter stdout = spec.commandLine().getOut();
        printFit(stdout, rows, shape, gpuSpec, result);
        PrintWriter err = spec.commandLine().getErr();
        result.warnings().forEach(line -> err.println("tierlab: warning: " + line));
        err.flush();
        String header = "Compute profile fitted by 'tierlab compute fit' to " + rows.size() + " steps of " + tableName
                + "\n(" + shape.shape().name() + " on " + gpuSpec.name() + ", " + result.description() + "; docs/compute.md)";
        writeWhole(out, ComputeProfiles.toYaml(result.section(), header));
        stdout.println("wrote " + out);
        stdout.flush();
        return 0;
    }

    /** What either kind's fit gives the command: the section, its values as a line, each row's prediction. */
    record Fitted(ComputeSection section, String description, String values, double[] predictedMs, double[] errorPercent,
                  double medianErrorPercent, double p90ErrorPercent, boolean converged, List<String> warnings) {

        static Fitted of(RooflineFit.Result r, String form) {
            var s = r.section();
            return new Fitted(s, "roofline, " + form + " form", "computeEfficiency " + RooflineFit.four(s.computeEfficiency())
                    + ", memoryEfficiency " + RooflineFit.four(s.memoryEfficiency()) + ", stepOverheadNs "
                    + RooflineFit.four(s.stepOverheadNs()) + ", sequenceNs " + RooflineFit.four(s.sequenceNs()),
                    r.predictedMs(), r.errorPercent(), r.medianErrorPercent(), r.p90ErrorPercent(), r.converged(), r.warnings());
        }

        static Fitted of(KernelRooflineFit.Result r) {
            var s = r.section();
            return new Fitted(s, "kernel-roofline", "gemmEfficiency " + RooflineFit.four(s.gemmEfficiency())
                    + ", attentionEfficiency " + RooflineFit.four(s.attentionEfficiency()) + ", memoryEfficiency "
                    + RooflineFit.four(s.memoryEfficiency()) + ", layerNs " + RooflineFit.four(s.layerNs()) + ", sequenceNs "
                    + RooflineFit.four(s.sequenceNs()),
                    r.predictedMs(), r.errorPercent(), r.medianErrorPercent(), r.p90ErrorPercent(), r.converged(), r.warnings());
        }
    }

    private void printFit(PrintWriter stdout, List<StepRows.Row> rows, ModelArgument shape, GpuSpec gpuSpec, Fitted result) {
        stdout.println(result.description() + " of " + shape.shape().name() + " on " + gpuSpec.name() + ", fitted to "
                + rows.size() + " steps" + (result.converged() ? "" : " (not converged)") + ":");
        stdout.println("  " + result.values());
        stdout.println("kind,batch,new_tokens,context_tokens,ms,predicted_ms,error_percent");
        for (int i = 0; i < rows.size(); i++) {
            StepRows.Row row = rows.get(i);
            stdout.println(String.format(Locale.ROOT, "%s,%d,%d,%d,%s,%.6f,%.3f", row.kind(), row.batch(), row.newTokens(),
                    row.contextTokens(), RooflineFit.four(row.ms()), result.predictedMs()[i], result.errorPercent()[i]));
        }
        stdout.println(String.format(Locale.ROOT, "error: median %.3f%%, p90 %.3f%% over %d steps", result.medianErrorPercent(),
                result.p90ErrorPercent(), rows.size()));
    }

    /** Writes {@code text} to a temporary file beside {@code target} and moves it into place. */
    static void writeWhole(Path target, String text) throws IOException {
        Path folder = target.toAbsolutePath().getParent();
        if (folder != null) {
            Files.createDirectories(folder);
        }
        Path temporary = Files.createTempFile(folder, "." + target.getFileName(), ".tmp");
        try {
            Files.writeString(temporary, text, StandardCharsets.UTF_8);
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, target);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /** Runs {@code action}; bad input (an IllegalArgumentException) becomes one line, prefixed with {@code where}. */
    static <T> T userError(String where, java.util.function.Supplier<T> action) {
        try {
            return action.get();
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            throw new CommandException(where == null || message.startsWith(where) ? message : where + ": " + message, e);
        }
    }
}
