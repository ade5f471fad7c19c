package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tierlab.hunt.testkit.CommandRun;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.LinkProfile;

/**
 * An experiment on the catalogue's {@code remote-pool} profile, whose storage section names the
 * {@code link} model: the same workload swept over the NVMe preset and the remote pool runs on both,
 * and the pool's 25 GB/s link reads the warm pass back from L2 faster than the preset's drive.
 */
class StorageModelRunTest {

    private static final Path REMOTE_POOL = Path.of("catalog", "profiles", "remote-pool.yaml").toAbsolutePath();

    @TempDir
    Path folder;

    @Test
    void theCatalogueProfileNamesTheLinkModel() {
        DeviceProfile pool = DeviceProfile.load(REMOTE_POOL);
        assertEquals(new LinkProfile(4_000, 25e9), pool.storage());
    }

    @Test
    void anExperimentRunsOnTheLinkModel() throws IOException {
        Path file = folder.resolve("pool.yaml");
        Files.writeString(file, """
                name: pool
                workload:
                  type: long-prefill
                  prompts: 12
                  promptTokens: 2000
                store:
                  l1CapacityGiB: 1
                  l2CapacityGiB: 16
                  promotionsAsHeadroom: false
                scheduler:
                  concurrency: 4
                sweep:
                  device: [qwen3-8b-h100, "%s"]
                """.formatted(REMOTE_POOL));
        Path out = folder.resolve("out");
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", out.toString(), "-q");
        assertEquals(0, run.exitCode(), run.err());
        Table results = Table.read().csv(out.resolve("results.csv").toFile());
        assertEquals(2, results.rowCount());
        assertEquals(REMOTE_POOL.toString(), results.stringColumn("device").get(1));
        for (int row = 0; row < 2; row++) {
            assertTrue(results.numberColumn("warm.l2ReadOps").getDouble(row) > 0, "L1 holds a third of the prompts: L2 is read");
            assertEquals(0, results.numberColumn("warm.mismatches").getDouble(row), "no stale read on either device");
        }
        double nvmeS = results.numberColumn("warm.elapsedS").getDouble(0);
        double poolS = results.numberColumn("warm.elapsedS").getDouble(1);
        assertTrue(poolS < nvmeS, "the pool's link (25 GB/s) outruns the drive's 8 × 600 MB/s: " + poolS + " s vs " + nvmeS + " s");
    }
}
