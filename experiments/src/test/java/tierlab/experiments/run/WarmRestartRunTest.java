package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static tierlab.experiments.run.RunCommandTest.run;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tierlab.engine.persist.IndexFile;
import tierlab.hunt.testkit.CommandRun;

/** {@code store.l2File}: a live run keeps its L2 file and index, and the next run starts warm from them. */
class WarmRestartRunTest {

    @TempDir
    Path folder;

    static final String LIVE = """
            name: live-warm
            mode: live
            workload: {type: long-prefill, model: tiny, prompts: 8, promptTokens: 160, promptSpreadTokens: 32}
            store: {l1CapacityGiB: 0.0005, l2CapacityGiB: 0.01, l2File: cache/l2.bin}
            scheduler: {concurrency: 4}
            """;

    /** One process's run; what RunExecutor says on stderr about the warm start comes back too. */
    private record Outcome(CommandRun run, String stderr, Table results) {}

    private Outcome runLive(Path file, String out) throws IOException {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        CommandRun run;
        try (PrintStream err = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setErr(err);
            run = run("run", file.toString(), "--out", folder.resolve(out).toString(), "-q");
        } finally {
            System.setErr(original);
        }
        assertEquals(0, run.exitCode(), run.err() + run.out());
        Table results = Table.read().csv(folder.resolve(out).resolve("results.csv").toFile());
        assertEquals(0.0, results.numberColumn("run.realMismatches").getDouble(0), "never wrong bytes");
        assertEquals("", results.column("failure").getString(0));
        return new Outcome(run, captured.toString(StandardCharsets.UTF_8), results);
    }

    @Test
    void theSecondProcessServesItsFirstPassFromTheFirstOnesL2() throws IOException {
        Path file = folder.resolve("live.yaml");
        Files.writeString(file, LIVE);
        Path l2 = folder.resolve("cache/l2.bin");
        Files.createDirectories(l2.getParent());

        Outcome first = runLive(file, "a");
        assertTrue(first.stderr().contains("does not exist; starting with a cold L2"), first.stderr());
        assertEquals(0.0, first.results().numberColumn("cold.externalHitRatio").getDouble(0), "nothing stored before");
        assertTrue(Files.isRegularFile(l2) && Files.isRegularFile(IndexFile.besideL2(l2)), "the L2 file and its index are kept");

        Outcome second = runLive(file, "b");
        assertTrue(second.stderr().contains("warm start:"), second.stderr());
        assertTrue(second.results().numberColumn("cold.externalHitRatio").getDouble(0) > 0,
                "the cold pass of the second process hits the first one's L2");
        assertTrue(second.results().numberColumn("run.realMatches").getDouble(0) > 0);

        // A damaged index: one line says why, and the run starts cold.
        byte[] index = Files.readAllBytes(IndexFile.besideL2(l2));
        index[index.length / 2] ^= 1;
        Files.write(IndexFile.besideL2(l2), index);
        Outcome third = runLive(file, "c");
        assertTrue(third.stderr().contains("rejected") && third.stderr().contains("starting with a cold L2"), third.stderr());
        assertEquals(0.0, third.results().numberColumn("cold.externalHitRatio").getDouble(0));
    }

    @Test
    void onlyOneLiveRunMayNameAPersistentFile() throws IOException {
        Path sim = folder.resolve("sim.yaml");
        Files.writeString(sim, LIVE.replace("mode: live", "mode: sim"));
        CommandRun simRun = run("run", sim.toString(), "--out", folder.resolve("s").toString(), "-q");
        assertEquals(1, simRun.exitCode());
        assertTrue(simRun.err().contains("store.l2File: only a live run keeps a persistent L2 file"), simRun.err());

        Path sweep = folder.resolve("sweep.yaml");
        Files.writeString(sweep, LIVE + "seeds: [1, 2]\n");
        CommandRun sweepRun = run("run", sweep.toString(), "--out", folder.resolve("w").toString(), "-q");
        assertEquals(1, sweepRun.exitCode());
        assertTrue(sweepRun.err().contains("store.l2File: a persistent L2 file serves one run at a time"), sweepRun.err());
    }
}
