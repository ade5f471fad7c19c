package tierlab.experiments.compute;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tierlab.engine.cuda.CudaDevice;
import tierlab.engine.cuda.compute.AttentionPath;
import tierlab.engine.cuda.compute.ForwardCheck;
import tierlab.engine.cuda.compute.ForwardLayout;
import tierlab.engine.cuda.compute.GpuContext;
import tierlab.engine.cuda.compute.StepBench;
import tierlab.engine.persist.CallerPaths;
import tierlab.experiments.CommandException;
import tierlab.sim.device.StepRows;

/**
 * {@code tierlab compute bench --model SHAPE [--shapes CSV] --out CSV}: the CUDA forward pass's step times
 * on this host's GPU, {@code kind,batch,new_tokens,context_tokens,ms} (the median of the timed replays).
 * Before timing, the kernels are checked against a CPU reference on a small shape ({@link ForwardCheck});
 * a mismatch stops the command. Without a usable GPU it exits 2 with one line.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = {"Time the CUDA forward pass over step shapes on this GPU: kind,batch,new_tokens,context_tokens,ms."})
public final class StepBenchCommand implements Callable<Integer> {

    /** The exit status when this host has no GPU the compute path can use. */
    static final int NO_GPU = 2;

    @Spec
    private CommandSpec spec;

    @Option(names = "--model", required = true, paramLabel = "SHAPE",
            description = "The model: a preset name or a YAML file of its fields (docs/models.md).")
    private String model;

    @Option(names = "--shapes", paramLabel = "CSV",
            description = "The steps to time: kind,batch,new_tokens,context_tokens (an ms column is ignored); default the grid of docs/hosts/h200/torch_steps.py.")
    private Path shapes;

    @Option(names = "--out", required = true, paramLabel = "CSV", description = "Where the step times are written.")
    private Path out;

    @Option(names = "--eager", description = "Run every step eagerly instead of replaying a captured CUDA graph.")
    private boolean eager;

    @Option(names = "--attention", paramLabel = "PATH", defaultValue = "fast",
            description = "The attention kernels: fast (flash-decoding) or reference (the first kernels); default ${DEFAULT-VALUE}.")
    private String attention;

    @Option(names = "--budget-s", paramLabel = "S", defaultValue = "1e9",
            description = "Start no new shape after this many seconds.")
    private double budgetSeconds;

    @Override
    public Integer call() {
        ModelArgument argument = ModelArgument.of(model);
        ForwardLayout.unsupported(argument.shape()).ifPresent(reason -> {
            throw new CommandException("--model: " + reason);
        });
        AttentionPath path = switch (attention) {
            case "fast" -> AttentionPath.FAST;
            case "reference" -> AttentionPath.REFERENCE;
            default -> throw new CommandException("--attention: " + attention + " is neither fast nor reference");
        };
        out = CallerPaths.resolve(out);
        List<StepBench.Shape> grid = shapes == null ? StepBench.defaultGrid() : readShapes(CallerPaths.resolve(shapes));
        PrintStream log = System.out;
        GpuContext.Opened opened = GpuContext.open(CudaDevice.probe());
        if (!opened.available()) {
            spec.commandLine().getErr().println("tierlab compute bench: no GPU to run on: " + opened.reason());
            return NO_GPU;
        }
        GpuContext gpu = opened.context();
        log.println("compute bench: " + gpu.description());
        ForwardCheck.Report check = ForwardCheck.run(gpu, path);
        log.println("kernel check: " + check.summary());
        if (!check.passed()) {
            throw new CommandException("the CUDA kernels disagree with the CPU reference: " + check.summary());
        }
        StepBench bench = new StepBench(gpu, new ForwardLayout(argument.shape(), StepBench.BLOCK_TOKENS), !eager, path);
        List<StepBench.Result> results;
        try {
            log.println("model " + bench.describe() + "; " + StepBench.TIMED + " timed replays per shape, "
                    + (eager ? "eager" : "CUDA graphs where the capture works"));
            results = bench.run(grid, budgetSeconds, log);
        } finally {
            bench.close();
        }
        List<StepRows.Row> rows = new ArrayList<>();
        for (StepBench.Result result : results) {
            if (result.failure() == null) {
                StepBench.Shape s = result.shape();
                rows.add(new StepRows.Row(s.kind(), s.batch(), s.newTokens(), s.contextTokens(), result.medianMs()));
            }
        }
        try {
            Files.writeString(out, StepRows.format(rows), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CommandException(out + ": cannot write the step times (" + e.getMessage() + ")", e);
        }
        log.println("wrote " + rows.size() + " of " + grid.size() + " shapes to " + out);
        return rows.size() == results.size() ? 0 : 1;
    }

    private static List<StepBench.Shape> readShapes(Path file) {
        List<StepBench.Shape> grid = new ArrayList<>();
        for (StepRows.Row row : FitCommand.userError(null, () -> StepRows.read(file, false))) {
            grid.add(new StepBench.Shape(row.kind(), row.batch(), Math.toIntExact(row.newTokens()),
                    Math.toIntExact(row.contextTokens())));
        }
        return grid;
    }
}
