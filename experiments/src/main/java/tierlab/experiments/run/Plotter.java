package tierlab.experiments.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tierlab.engine.persist.AtomicFiles;
import tierlab.experiments.ChartFiles;

/**
 * Charts and report from an output folder's tables: the one path both {@code tierlab run} (at the
 * end of a run, on the tables it has just written) and {@code tierlab plot} (on a folder written
 * earlier) take, so re-plotting an unchanged folder rewrites the same charts and report.
 */
public final class Plotter {

    /** The rendered report's inputs and outcome, for the caller's summary line and stderr. */
    public record Plotted(RunTables tables, List<ReportWriter.ReferenceValue> reference, List<ReferenceChecks.Evaluated> checks,
                          ChartRenderer.Rendered charts) {}

    /** The markdown section of the block-level miss-ratio curves, written by the run beside miss-ratio.csv. */
    public static final String MISS_RATIO_SECTION = "miss-ratio.md";

    private Plotter() {
    }

    /**
     * Reads the tables of {@code folder}, draws each chart of {@code specs} into it and writes
     * {@code report.md}. Charts whose spec does not fit the tables ({@code problems}) or that fail
     * to draw are named in the report; nothing else is lost.
     */
    public static Plotted render(Path folder, ChartSpecs specs, RunTables tables, Map<Integer, String> problems,
                                 ChartFiles.Writer writer) throws IOException {
        List<ReportWriter.ReferenceValue> reference = ReportWriter.reference(specs, tables);
        List<ReferenceChecks.Evaluated> checks = ReferenceChecks.evaluate(specs.reference() == null ? null
                : specs.reference().checks(), tables);
        List<String> extra = new ArrayList<>();
        Path missRatio = folder.resolve(MISS_RATIO_SECTION);
        if (Files.isRegularFile(missRatio)) {
            extra.add(Files.readString(missRatio, StandardCharsets.UTF_8));
        }
        ChartRenderer.Rendered charts = ChartRenderer.render(specs.charts(), tables, problems, folder, writer);
        String report = ReportWriter.markdown(specs, tables, charts, reference, checks, extra);
        AtomicFiles.writeString(folder.resolve(RunCommand.REPORT), report);
        return new Plotted(tables, reference, checks, charts);
    }

    /** One line per failed chart, for stderr: which chart and why. */
    public static List<String> failureLines(ChartRenderer.Rendered charts) {
        return charts.failed().stream().map(f -> "chart " + f.section().file() + " (" + f.title() + ") not drawn: "
                + f.cause()).toList();
    }
}
