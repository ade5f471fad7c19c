package tierlab.experiments.run;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import tierlab.experiments.ChartFiles;
import tierlab.experiments.CommandException;

/**
 * {@code tierlab plot out/NAME}: draws the charts and writes the report again from the tables a
 * run wrote, without running anything. The chart and reference sections come from the copy of the
 * experiment file the run kept in the folder ({@code experiment.yaml}), which can be edited there,
 * or from {@code --file}. A spec that does not fit the tables is one line naming the file, line and
 * field, and nothing is written; a chart that fails to draw is named on stderr and in the report.
 */
@Command(
        name = "plot",
        mixinStandardHelpOptions = true,
        description = {
            "Re-draw the charts and report.md of an output folder from its tables, without re-running.",
            "Reads results.csv, requests.csv, timeseries.csv, summary.json and run.json, and the charts and"
                    + " reference sections of the experiment file kept in the folder (edit it there) or of --file."})
public final class PlotCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "An output folder written by 'tierlab run' (out/NAME).")
    private Path folder;

    @Option(names = "--file", paramLabel = "FILE",
            description = "Take the charts and reference from this experiment file instead of the folder's copy.")
    private Path file;

    @Override
    public Integer call() throws IOException {
        folder = tierlab.engine.persist.CallerPaths.resolve(folder);
        file = tierlab.engine.persist.CallerPaths.resolve(file);
        if (!Files.isDirectory(folder)) {
            throw new CommandException(folder + ": no such folder (give the output folder of a run, such as out/quickstart)");
        }
        Path specFile = file != null ? file : RunCommand.experimentCopy(folder);
        ChartSpecs specs = ChartSpecs.read(specFile);
        RunTables tables = RunTables.read(folder);
        Map<Integer, String> problems = specs.problems(tables);
        List<String> referenceProblems = specs.referenceProblems(tables);
        if (!problems.isEmpty()) {
            throw new CommandException(problems.values().iterator().next());
        }
        if (!referenceProblems.isEmpty()) {
            throw new CommandException(referenceProblems.getFirst());
        }
        Plotter.Plotted plotted = Plotter.render(folder, specs, tables, problems, ChartFiles.FILES);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Plotter.failureLines(plotted.charts()).forEach(line -> err.println("tierlab: " + line));
        err.flush();
        out.println("drew " + plotted.charts().drawn().size() + " chart" + (plotted.charts().drawn().size() == 1 ? "" : "s")
                + " and " + RunCommand.REPORT + " in " + folder + " from its tables and " + specFile);
        out.flush();
        if (!plotted.charts().failed().isEmpty()) {
            throw new CommandException(plotted.charts().failed().size() + " chart(s) could not be drawn (see above and "
                    + folder.resolve(RunCommand.REPORT) + ")");
        }
        return 0;
    }
}
