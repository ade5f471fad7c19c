package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static tierlab.experiments.run.RunCommandTest.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.ChartFiles;
import tierlab.hunt.testkit.CommandRun;

/**
 * {@code tierlab plot}: charts and report re-drawn from an output folder's tables; a run draws them
 * the same way, so re-plotting an unchanged folder rewrites every file byte for byte. Charts never
 * cost data: a chart that fails (as on a host without fonts) is named, and everything else is written.
 */
class PlotCommandTest {

    @TempDir
    Path folder;

    @AfterEach
    void realCharts() {
        RunCommand.chartWriter = ChartFiles.FILES;
    }

    private Path runSmall(String name) throws IOException {
        Path file = folder.resolve(name + ".yaml");
        Files.writeString(file, RunCommandTest.SMALL);
        Path out = folder.resolve("out-" + name);
        CommandRun run = run("run", file.toString(), "--out", out.toString(), "--quiet");
        assertEquals(0, run.exitCode(), run.err());
        return out;
    }

    private static Map<String, byte[]> contents(Path dir) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> paths = Files.list(dir)) {
            for (Path path : paths.toList()) {
                files.put(path.getFileName().toString(), Files.readAllBytes(path));
            }
        }
        return files;
    }

    private static void assertSameFiles(Map<String, byte[]> expected, Map<String, byte[]> actual) {
        assertEquals(expected.keySet(), actual.keySet());
        expected.forEach((name, bytes) -> assertArrayEquals(bytes, actual.get(name), name + " differs"));
    }

    @Test
    void rePlottingAnUnchangedFolderRewritesEveryChartAndTheReportByteForByte() throws IOException {
        Path out = runSmall("small");
        assertTrue(Files.isRegularFile(out.resolve("experiment.yaml")), "the run keeps its experiment file");
        Map<String, byte[]> before = contents(out);
        Files.delete(out.resolve("hit.svg"));
        Files.delete(out.resolve("report.md"));

        CommandRun plot = run("plot", out.toString());
        assertEquals(0, plot.exitCode(), plot.err());
        assertTrue(plot.out().contains("drew 5 charts and report.md"), plot.out());
        assertSameFiles(before, contents(out));
    }

    @Test
    void anEditedChartIsRedrawnWithoutRerunning() throws IOException {
        Path out = runSmall("small");
        Map<String, byte[]> before = contents(out);
        Path copy = out.resolve("experiment.yaml");
        Files.writeString(copy, Files.readString(copy).replace(
                "{type: bar, file: bars, x: store.policy, y: warm.elapsedS, aggregate: mean}",
                "{type: bar, file: bars, x: store.policy, y: cold.elapsedS, title: Cold pass, aggregate: mean}"));

        CommandRun plot = run("plot", out.toString());
        assertEquals(0, plot.exitCode(), plot.err());
        Map<String, byte[]> after = contents(out);
        assertFalse(java.util.Arrays.equals(before.get("bars.svg"), after.get("bars.svg")), "the edited chart changed");
        assertTrue(new String(after.get("report.md")).contains("### Cold pass"));
        for (String table : new String[] {"results.csv", "requests.csv", "timeseries.csv", "summary.json", "run.json", "hit.svg"}) {
            assertArrayEquals(before.get(table), after.get(table), table + " is untouched");
        }
    }

    @Test
    void aBadChartSpecIsOneLineNamingFileLineAndFieldAndWritesNothing() throws IOException {
        Path out = runSmall("small");
        Path copy = out.resolve("experiment.yaml");
        Files.writeString(copy, Files.readString(copy).replace("y: warm.elapsedS,", "y: warm.elapsed,"));
        Map<String, byte[]> before = contents(out);
        int line = Files.readAllLines(copy).indexOf(Files.readAllLines(copy).stream()
                .filter(l -> l.contains("warm.elapsed,")).findFirst().orElseThrow()) + 1;

        CommandRun plot = run("plot", out.toString());
        assertEquals(1, plot.exitCode());
        assertEquals(1, plot.err().strip().lines().count(), plot.err());
        assertTrue(plot.err().contains(copy + ":" + line + ": charts[1].y: unknown metric 'warm.elapsed'"), plot.err());
        assertSameFiles(before, contents(out));

        Files.writeString(copy, Files.readString(copy).replace("charts:", "charts: [\n"));
        before = contents(out);
        CommandRun broken = run("plot", out.toString());
        assertEquals(1, broken.exitCode());
        assertTrue(broken.err().startsWith("tierlab: " + copy + ":"), broken.err());
        assertSameFiles(before, contents(out));
    }

    @Test
    void anotherFileCanBeNamedWithFile() throws IOException {
        Path out = runSmall("small");
        Path other = folder.resolve("other.yaml");
        Files.writeString(other, RunCommandTest.SMALL.replace("file: heat,", "file: heat2,"));
        CommandRun plot = run("plot", out.toString(), "--file", other.toString());
        assertEquals(0, plot.exitCode(), plot.err());
        assertTrue(Files.isRegularFile(out.resolve("heat2.svg")));
        assertTrue(Files.readString(out.resolve("report.md")).contains("(heat2.png)"));
    }

    @Test
    void aFailingChartCostsNoDataAndIsNamedInTheReportAndOnStderr() throws IOException {
        ChartFiles.Writer real = ChartFiles.FILES;
        RunCommand.chartWriter = (chart, png, svg) -> {
            if (png.getFileName().toString().equals("bars.png")) {
                // What the JDK throws on a host without fonts.
                throw new Error("Fontconfig head is null, check your fonts or fonts configuration");
            }
            real.write(chart, png, svg);
        };
        Path file = folder.resolve("small.yaml");
        Files.writeString(file, RunCommandTest.SMALL);
        Path out = folder.resolve("out");
        CommandRun run = run("run", file.toString(), "--out", out.toString(), "--quiet");

        assertEquals(1, run.exitCode(), "a missing chart is not a clean exit");
        assertTrue(run.err().contains("chart bars") && run.err().contains("Fontconfig head is null"), run.err());
        for (String name : new String[] {"results.csv", "requests.csv", "timeseries.csv", "summary.json", "run.json",
                "report.md", "experiment.yaml", "hit.png", "hit.svg", "heat.svg", "ttft.svg", "l1.svg"}) {
            assertTrue(Files.size(out.resolve(name)) > 0, name + " was written");
        }
        assertFalse(Files.exists(out.resolve("bars.png")));
        assertTrue(run.out().contains("wrote ") && run.out().contains("hit.png"), run.out());
        assertFalse(run.out().contains("bars.png"), "the summary lists only the files written: " + run.out());
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("1 chart could not be drawn"), report);
        assertTrue(report.contains("- `bars` (warm.elapsedS by store.policy): Error: Fontconfig head is null"), report);

        RunCommand.chartWriter = real;
        CommandRun plot = run("plot", out.toString());
        assertEquals(0, plot.exitCode(), plot.err());
        assertTrue(Files.size(out.resolve("bars.png")) > 0, "re-plotting draws it once the cause is gone");
        assertNotEquals(report, Files.readString(out.resolve("report.md")));
        assertFalse(Files.readString(out.resolve("report.md")).contains("could not be drawn"));
    }

    @Test
    void aFailingChartInPlotIsNamedAndTheOthersAreWritten() throws IOException {
        Path out = runSmall("small");
        ChartSpecs specs = ChartSpecs.read(out.resolve("experiment.yaml"));
        RunTables tables = RunTables.read(out);
        Files.delete(out.resolve("heat.svg"));
        Plotter.Plotted plotted = Plotter.render(out, specs, tables, Map.of(), (chart, png, svg) -> {
            if (png.getFileName().toString().startsWith("heat")) {
                throw new IllegalStateException("no encoder");
            }
            ChartFiles.FILES.write(chart, png, svg);
        });
        assertEquals(4, plotted.charts().drawn().size());
        assertEquals(1, plotted.charts().failed().size());
        assertEquals("chart heat (warm.l1HitRatio by store.policy and store.l1CapacityGiB) not drawn: IllegalStateException:"
                + " no encoder", Plotter.failureLines(plotted.charts()).getFirst());
        assertTrue(Files.readString(out.resolve("report.md")).contains("`heat`"));
    }

    /** Sets one cell of a CSV table the run wrote (row counts from 1 after the header) and returns the file. */
    private static Path editCell(Path csv, int row, String column, String value) throws IOException {
        java.util.List<String> lines = new java.util.ArrayList<>(Files.readAllLines(csv));
        java.util.List<String> header = java.util.List.of(lines.getFirst().split(",", -1));
        String[] cells = lines.get(row).split(",", -1);
        cells[header.indexOf(column)] = value;
        lines.set(row, String.join(",", cells));
        Files.write(csv, lines);
        return csv;
    }

    @Test
    void anEditedCellThatIsNotANumberIsOneLineNamingFileLineColumnAndValue() throws IOException {
        Path out = runSmall("small");
        Path results = editCell(out.resolve("results.csv"), 3, "warm.l1HitRatio", "abc");
        CommandRun plot = run("plot", out.toString());
        assertEquals(1, plot.exitCode(), plot.err());
        assertEquals("tierlab: " + results + ":4: column warm.l1HitRatio: 'abc' where a number is needed (was the file edited?)",
                plot.err().strip());
    }

    @Test
    void anEmptyOrBadCellInTheRequestAndSampleTablesOrTheRunColumnIsOneLine() throws IOException {
        Path out = runSmall("small");
        Path requests = editCell(out.resolve("requests.csv"), 5, "ttftMs", "");
        CommandRun plot = run("plot", out.toString());
        assertEquals(1, plot.exitCode(), plot.err());
        assertEquals("tierlab: " + requests + ":6: column ttftMs: empty where a number is needed (was the file edited?)",
                plot.err().strip());

        Path fresh = runSmall("again");
        Path timeseries = editCell(fresh.resolve("timeseries.csv"), 2, "l1UsedGiB", "1,5".replace(",", "x"));
        plot = run("plot", fresh.toString());
        assertEquals("tierlab: " + timeseries + ":3: column l1UsedGiB: '1x5' where a number is needed (was the file edited?)",
                plot.err().strip());

        Path third = runSmall("third");
        Path results = editCell(third.resolve("results.csv"), 2, "run", "");
        plot = run("plot", third.toString());
        assertEquals("tierlab: " + results + ":3: column run: empty where a run number (0, 1, 2, ...) is needed (was the"
                + " file edited?)", plot.err().strip());
    }

    @Test
    void aTableWithoutANeededColumnSaysWhich() throws IOException {
        Path out = runSmall("small");
        Path requests = out.resolve("requests.csv");
        Files.writeString(requests, Files.readString(requests).replaceFirst("ttftMs", "ttft"));
        CommandRun plot = run("plot", out.toString());
        assertEquals(1, plot.exitCode(), plot.err());
        assertEquals("tierlab: " + requests + ": no column 'ttftMs' in its header line (edited, or written by another program;"
                + " run the experiment again)", plot.err().strip());
    }

    @Test
    void aMetricEmptyInEveryRowLeavesTheReferenceRowEmptyAndNamesTheChartWithoutLibraryWords() throws IOException {
        // As when every run failed: the reference row's metric and the heat map's have no value anywhere.
        Path out = runSmall("small");
        Path results = out.resolve("results.csv");
        for (int row = 1; row <= 8; row++) {
            editCell(results, row, "warm.l1HitRatio", "");
        }
        CommandRun plot = run("plot", out.toString());
        assertEquals(1, plot.exitCode(), plot.err());
        assertTrue(plot.err().startsWith("tierlab: chart heat (warm.l1HitRatio by store.policy and store.l1CapacityGiB) not"
                + " drawn: no run has a value of warm.l1HitRatio (the runs failed, or its cells in results.csv are empty)\n"),
                plot.err());
        assertFalse(plot.err().contains("Exception"), plot.err());
        assertFalse(plot.err().contains("!!!"), plot.err());
        assertTrue(Files.readString(out.resolve("report.md")).contains("warm hit lru at 2 GiB"));
    }

    @Test
    void aByteOrderMarkAtTheStartOfAnExperimentFileOrATableIsIgnored() throws IOException {
        // A file saved by a Windows editor or a spreadsheet starts with U+FEFF; it is no part of the first field.
        Path file = folder.resolve("marked.yaml");
        Files.writeString(file, "\uFEFF" + RunCommandTest.SMALL);
        Path out = folder.resolve("out-marked");
        CommandRun first = run("run", file.toString(), "--out", out.toString(), "--quiet");
        assertEquals(0, first.exitCode(), first.err());
        Path results = out.resolve("results.csv");
        Files.writeString(results, "\uFEFF" + Files.readString(results));
        Path copy = out.resolve("experiment.yaml");
        assertTrue(Files.readString(copy).startsWith("\uFEFF"), "the copy is the file as it was");
        CommandRun plot = run("plot", out.toString());
        assertEquals(0, plot.exitCode(), plot.err());
        assertEquals("", plot.err());

        Path json = folder.resolve("marked.json");
        Files.writeString(json, "\uFEFF{\"name\": \"marked-json\", \"workload\": {\"type\": \"long-prefill\", \"prompts\": 3,"
                + " \"promptTokens\": 500}, \"store\": {\"l2CapacityGiB\": 4}, \"charts\": [{\"type\": \"bar\", \"file\": \"b\","
                + " \"x\": \"store.policy\", \"y\": \"cold.elapsedS\"}]}");
        Path jsonOut = folder.resolve("out-json");
        CommandRun second = run("run", json.toString(), "--out", jsonOut.toString(), "--quiet");
        assertEquals(0, second.exitCode(), second.err());
        plot = run("plot", jsonOut.toString());
        assertEquals(0, plot.exitCode(), plot.err());
    }
}
