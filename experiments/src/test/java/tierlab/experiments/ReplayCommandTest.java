package tierlab.experiments;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;
import tierlab.model.policy.BeladyPolicy;
import tierlab.model.policy.Policies;
import tierlab.model.testkit.ReferenceLru;
import tierlab.workload.MooncakeTraceReader;

class ReplayCommandTest {

    private static final List<Long> CAPACITIES = List.of(8L, 32L, 128L, 512L);

    @TempDir
    Path folder;

    @Test
    void writesTheFourFilesWithOneCsvRowPerPolicyAndCapacity() throws IOException {
        Path trace = writeSyntheticTrace(folder.resolve("synthetic.jsonl"), 7);
        Path out = folder.resolve("results/replay");

        CommandRun run = run("replay", "--trace", trace.toString(), "--out", out.toString(), "--capacities", "512,8,32,128");

        assertEquals(0, run.exitCode(), run.err());
        assertEquals("", run.err());
        for (String name : ReplayCommand.OUTPUT_FILES) {
            assertTrue(Files.size(out.resolve(name)) > 0, name + " is written");
        }
        byte[] png = Files.readAllBytes(out.resolve(ReplayCommand.PNG_FILE));
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, java.util.Arrays.copyOf(png, 4));
        assertTrue(Files.readString(out.resolve(ReplayCommand.SVG_FILE)).contains("<svg"));
        try (Stream<Path> siblings = Files.list(out.getParent())) {
            assertEquals(List.of(out), siblings.toList(), "no temporary folder is left beside the output");
        }

        Map<String, long[]> rows = readCsv(out.resolve(ReplayCommand.CSV_FILE));
        assertEquals(Policies.names().size() * CAPACITIES.size(), rows.size());
        for (String policy : Policies.names()) {
            for (long capacity : CAPACITIES) {
                assertTrue(rows.containsKey(policy + "@" + capacity), "row for " + policy + " at " + capacity);
            }
        }

        String report = Files.readString(out.resolve(ReplayCommand.REPORT_FILE));
        assertTrue(report.contains("](" + ReplayCommand.PNG_FILE + ")"), "the report shows the chart");
        assertTrue(report.contains("--capacities 8,32,128,512"), "the report gives the full command");
        assertTrue(report.contains("| lru |"), "the report has the table");
        assertTrue(run.out().contains("infinite cache"), run.out());
    }

    @Test
    void aChartThatCannotBeDrawnCostsNeitherTheTableNorTheReport() throws IOException {
        Path trace = writeSyntheticTrace(folder.resolve("synthetic.jsonl"), 7);
        Path out = folder.resolve("out");
        // What a host without fonts throws from the first string XChart measures.
        ReplayCommand.chartFiles = (chart, png, svg) -> {
            throw new RuntimeException("Fontconfig head is null, check your fonts or fonts configuration");
        };
        CommandRun run;
        try {
            run = run("replay", "--trace", trace.toString(), "--out", out.toString(), "--capacities", "8,32");
        } finally {
            ReplayCommand.chartFiles = ChartFiles.FILES;
        }

        assertEquals(1, run.exitCode(), "a chart that failed is a failure");
        assertTrue(run.err().contains("miss-ratio.png not drawn: RuntimeException: Fontconfig head is null"), run.err());
        assertEquals(Policies.names().size() * 2, readCsv(out.resolve(ReplayCommand.CSV_FILE)).size());
        String report = Files.readString(out.resolve(ReplayCommand.REPORT_FILE));
        assertTrue(report.contains("| lru |") && report.contains("**The chart could not be drawn** (RuntimeException:"
                + " Fontconfig head is null"), report);
        assertFalse(Files.exists(out.resolve(ReplayCommand.PNG_FILE)));
        assertFalse(Files.exists(out.resolve(ReplayCommand.SVG_FILE)));
    }

    @Test
    void lruRowsMatchAPlainLinkedHashMapLru() throws IOException {
        Path trace = writeSyntheticTrace(folder.resolve("synthetic.jsonl"), 11);
        Path out = folder.resolve("out");

        CommandRun run = run("replay", "--trace", trace.toString(), "--out", out.toString(), "--capacities", "8,32,128,512");

        assertEquals(0, run.exitCode(), run.err());
        Map<String, long[]> rows = readCsv(out.resolve(ReplayCommand.CSV_FILE));
        long[] references = MooncakeTraceReader.read(trace).flattenedReferences();
        for (long capacity : CAPACITIES) {
            long hits = ReferenceLru.hits(references, (int) capacity);
            long[] row = rows.get("lru@" + capacity);
            assertEquals(references.length, row[0], "references at " + capacity);
            assertEquals(hits, row[1], "lru hits at " + capacity);
            assertEquals(references.length - hits, row[2], "lru misses at " + capacity);
            // Belady's MIN is optimal under demand insertion: no policy may beat it.
            for (String policy : Policies.names()) {
                assertTrue(rows.get(policy + "@" + capacity)[1] <= rows.get(BeladyPolicy.NAME + "@" + capacity)[1],
                        policy + " beats belady at " + capacity);
            }
        }
        long distinct = java.util.Arrays.stream(references).distinct().count();
        String infinite = DemoReport.percent((double) (references.length - distinct) / references.length);
        assertTrue(run.out().contains("infinite cache") && run.out().contains(infinite), run.out());
    }

    /**
     * The issue's acceptance check on the Mooncake trace in data/ itself: the CSV's lru hits equal a
     * LinkedHashMap in access order evicting its eldest entry, at capacities below and above the
     * trace's working set.
     */
    @Test
    void lruOnTheSharedTraceEqualsATriviallyCorrectLru() throws IOException {
        Path trace = Path.of("../data/mooncake_synthetic_trace.jsonl");
        Path out = folder.resolve("shared");
        CommandRun run = run("replay", "--trace", trace.toString(), "--out", out.toString(), "--policies", "lru",
                "--capacities", "500,4000,32000");
        assertEquals(0, run.exitCode(), run.err());
        Map<String, long[]> rows = readCsv(out.resolve(ReplayCommand.CSV_FILE));
        long[] references = MooncakeTraceReader.read(trace).flattenedReferences();
        for (long capacity : List.of(500L, 4000L, 32000L)) {
            long hits = ReferenceLru.hits(references, (int) capacity);
            long[] row = rows.get("lru@" + capacity);
            assertEquals(hits, row[1], "lru hits at " + capacity + " blocks");
            assertEquals(references.length - hits, row[2], "lru misses at " + capacity + " blocks");
        }
    }

    @Test
    void aMissingTraceFailsWithOneLineAndLeavesNoOutputFolder() {
        Path out = folder.resolve("never/replay");

        CommandRun run = run("replay", "--trace", folder.resolve("missing.jsonl").toString(), "--out", out.toString());

        assertEquals(1, run.exitCode());
        assertEquals("tierlab: trace file " + folder.resolve("missing.jsonl") + ": no such file", run.err().strip());
        assertFalse(Files.exists(out));
        assertFalse(Files.exists(out.getParent()), "not even the parent folder is created");
    }

    @Test
    void aMalformedTraceLineFailsWithFileAndLineAndLeavesNoOutputFolder() throws IOException {
        Path trace = folder.resolve("bad.jsonl");
        Files.writeString(trace, """
                {"timestamp": 0, "input_length": 512, "output_length": 1, "hash_ids": [1]}
                {"timestamp": 1, "input_length": 512, "output_length": 1}
                """);
        Path out = folder.resolve("out");

        CommandRun run = run("replay", "--trace", trace.toString(), "--out", out.toString());

        assertEquals(1, run.exitCode());
        assertEquals("tierlab: " + trace + ":2: missing field \"hash_ids\"", run.err().strip());
        assertFalse(Files.exists(out));
    }

    @Test
    void aSecondRunReplacesTheOutputsAndAFolderWithOtherFilesIsRefused() throws IOException {
        Path trace = writeSyntheticTrace(folder.resolve("synthetic.jsonl"), 3);
        Path out = folder.resolve("out");

        assertEquals(0, run("replay", "--trace", trace.toString(), "--out", out.toString(), "--capacities", "16").exitCode());
        CommandRun second = run("replay", "--trace", trace.toString(), "--out", out.toString(), "--capacities", "16,64");
        assertEquals(0, second.exitCode(), second.err());
        assertEquals(1 + Policies.names().size() * 2, Files.readAllLines(out.resolve(ReplayCommand.CSV_FILE)).size());
        try (Stream<Path> siblings = Files.list(folder)) {
            assertEquals(Set.of(trace, out), Set.copyOf(siblings.toList()), "no .tmp- or .old- folder is left");
        }

        Path notOurs = Files.writeString(out.resolve("notes.txt"), "mine");
        CommandRun refused = run("replay", "--trace", trace.toString(), "--out", out.toString(), "--capacities", "16");
        assertEquals(1, refused.exitCode());
        assertTrue(refused.err().startsWith("tierlab: output folder " + out + " holds files this job does not write (notes.txt)"),
                refused.err());
        assertEquals("mine", Files.readString(notOurs));
    }

    @Test
    void badFlagsGiveOneLineAndExitCode2() {
        for (String[] args : List.of(
                new String[] {"replay", "--bogus"},
                new String[] {"replay", "--capacities", "0,8"},
                new String[] {"replay", "--capacities", "eight"},
                new String[] {"replay", "--policies", "lru,mru"},
                new String[] {"replay", "--policies", "2q:smallRatio=0.1"},
                new String[] {"replay", "--policies", "2q:kin=lots"},
                new String[] {"replay", "--policies", "2q:kin=1.5"},
                new String[] {"replay", "--policies", "2q:kin"},
                new String[] {"replay", "--policies", "lru:kin=0.5"},
                new String[] {"frobnicate"},
                new String[] {})) {
            CommandRun run = run(args);
            String shown = String.join(" ", args);
            assertEquals(2, run.exitCode(), shown);
            assertTrue(run.err().startsWith("tierlab: "), shown + ": " + run.err());
            assertEquals(1, run.err().lines().count(), shown + ": " + run.err());
            assertEquals("", run.out(), shown);
        }
    }

    @Test
    void badPolicyKnobsNameThePolicyAndTheKnob() {
        String helpHint = " (see 'tierlab replay --help')";
        assertEquals("tierlab: --policies: policy '2q' has no knob 'smallRatio' (its knobs: kin, kout)" + helpHint,
                run("replay", "--policies", "2q:smallRatio=0.1").err().strip());
        assertEquals("tierlab: --policies: policy '2q': kin must be a number written in decimal, like 0.25 or 1e-3, was 'lots'" + helpHint,
                run("replay", "--policies", "2q:kin=lots").err().strip());
        assertEquals("tierlab: --policies: policy '2q': kin must be between 0.0 and 1.0, was 1.5" + helpHint,
                run("replay", "--policies", "2q:kin=1.5").err().strip());
        assertEquals("tierlab: --policies: policy 'lfu': agingFactor must be between 0.0 and 1000000.0, was -0.0" + helpHint,
                run("replay", "--policies", "lfu:agingFactor=-0.0").err().strip());
        assertEquals("tierlab: --policies: policy 's3-fifo': ghostRatio must be a number written in decimal, like 0.25 or 1e-3,"
                + " was '0x1p-3'" + helpHint, run("replay", "--policies", "s3-fifo:ghostRatio=0x1p-3").err().strip());
        assertEquals("tierlab: --policies: policy 'lru' has no knob 'kin' (it has no knobs)" + helpHint,
                run("replay", "--policies", "lru:kin=0.5").err().strip());
        assertEquals("tierlab: --policies: policy 's3-fifo': knob 'smallRatio' is given twice" + helpHint,
                run("replay", "--policies", "s3-fifo:smallRatio=0.1:smallRatio=0.2").err().strip());
    }

    @Test
    void onePolicyAtSeveralSettingsGivesOneCurveEach() throws IOException {
        Path trace = writeSyntheticTrace(folder.resolve("synthetic.jsonl"), 5);
        Path out = folder.resolve("knobs");
        CommandRun run = run("replay", "--trace", trace.toString(), "--out", out.toString(), "--capacities", "32,128",
                "--policies", "s3-fifo,s3-fifo:ghostRatio=0.9:smallRatio=0.2,2q:kin=0.5,s3-fifo:smallRatio=0.2:ghostRatio=0.9");
        assertEquals(0, run.exitCode(), run.err());
        Map<String, long[]> rows = readCsv(out.resolve(ReplayCommand.CSV_FILE));
        // Labels list the knobs in declaration order, so the two spellings of one setting are one curve.
        assertEquals(Set.of("s3-fifo@32", "s3-fifo@128", "s3-fifo:smallRatio=0.2:ghostRatio=0.9@32",
                "s3-fifo:smallRatio=0.2:ghostRatio=0.9@128", "2q:kin=0.5@32", "2q:kin=0.5@128"), rows.keySet());
        long[] references = MooncakeTraceReader.read(trace).flattenedReferences();
        for (long capacity : List.of(32L, 128L)) {
            var paper = new tierlab.model.policy.S3FifoPolicy(capacity, 0.2, 0.9, 1);
            long hits = tierlab.model.policy.CacheReplay.run(paper, capacity, references).hits();
            assertEquals(hits, rows.get("s3-fifo:smallRatio=0.2:ghostRatio=0.9@" + capacity)[1], "at " + capacity);
        }
        assertTrue(Files.readString(out.resolve(ReplayCommand.REPORT_FILE))
                .contains("--policies s3-fifo,s3-fifo:smallRatio=0.2:ghostRatio=0.9,2q:kin=0.5"));
    }

    @Test
    void helpExitsZero() {
        CommandRun run = run("replay", "--help");
        assertEquals(0, run.exitCode());
        assertTrue(run.out().contains("--capacities"), run.out());
    }

    private static CommandRun run(String... args) {
        return CommandRun.of(Main.newCommandLine(), args);
    }

    /**
     * A small trace with Mooncake's shape: requests share prefixes of a few "documents" (equal
     * ids at equal positions) and add blocks of their own, so every policy sees hits and evictions.
     */
    private static Path writeSyntheticTrace(Path file, long seed) throws IOException {
        Random random = new Random(seed);
        int documents = 12;
        long nextUniqueId = 10_000;
        List<String> lines = new ArrayList<>();
        for (int request = 0; request < 400; request++) {
            int document = (int) Math.min(documents - 1, Math.abs(random.nextGaussian()) * 4);
            int sharedBlocks = 1 + random.nextInt(40);
            int ownBlocks = random.nextInt(8);
            List<String> ids = new ArrayList<>();
            for (int position = 0; position < sharedBlocks; position++) {
                ids.add(Long.toString(document * 100L + position));
            }
            for (int block = 0; block < ownBlocks; block++) {
                ids.add(Long.toString(nextUniqueId++));
            }
            lines.add("{\"timestamp\": " + request * 10 + ", \"input_length\": " + ids.size() * 512
                    + ", \"output_length\": " + random.nextInt(100) + ", \"hash_ids\": [" + String.join(", ", ids) + "]}");
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
        return file;
    }

    /** CSV rows keyed "policy@capacity", values {references, hits, misses}; checks the header and ratios. */
    private static Map<String, long[]> readCsv(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        assertEquals(String.join(",", MissRatioTable.COLUMNS), lines.getFirst());
        Map<String, long[]> rows = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",");
            assertEquals(7, cells.length, line);
            String key = cells[0] + "@" + cells[1];
            assertTrue(seen.add(key), "duplicate row " + key);
            long references = Long.parseLong(cells[2]);
            long hits = Long.parseLong(cells[3]);
            long misses = Long.parseLong(cells[4]);
            assertEquals(references, hits + misses, line);
            assertEquals((double) hits / references, Double.parseDouble(cells[5]), 1e-12, line);
            assertEquals((double) misses / references, Double.parseDouble(cells[6]), 1e-12, line);
            rows.put(key, new long[] {references, hits, misses});
        }
        return rows;
    }
}
