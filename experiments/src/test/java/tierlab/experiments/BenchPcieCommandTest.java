package tierlab.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.cuda.CudaDevice;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;

/** {@code tierlab bench pcie}: measured where there is a GPU, one line saying why not where there is none. */
class BenchPcieCommandTest {

    @TempDir
    Path folder;

    @Test
    void withoutAGpuItSaysWhyInOneLineAndWritesNothing() {
        CudaDevice device = CudaDevice.probe();
        Path out = folder.resolve("pcie");
        CommandRun run = CommandRun.of(Main.newCommandLine(), "bench", "pcie", "--quick", "--out", out.toString());
        if (device.available()) {
            System.out.println("bench pcie on " + device.description() + ":\n" + run.out());
            assertEquals(0, run.exitCode(), run.err());
            assertTrue(run.out().contains("round trip: 2.25 MiB host -> GPU -> host, every byte intact"), run.out());
            assertTrue(Files.exists(out.resolve("pcie.md")) && Files.exists(out.resolve("pcie.csv")));
            return;
        }
        assertEquals(1, run.exitCode());
        assertEquals("tierlab: PCIe not measured: " + device.description(), run.err().strip());
        assertFalse(Files.exists(out), "nothing is written");
    }

    @Test
    void badFlagsAreOneLine() {
        CommandRun run = CommandRun.of(Main.newCommandLine(), "bench", "pcie", "--streams", "0");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().startsWith("tierlab: stream count 0: must be in 1..16"), run.err());
        CommandRun sizes = CommandRun.of(Main.newCommandLine(), "bench", "pcie", "--sizes-kib", "0");
        assertEquals(2, sizes.exitCode());
        assertTrue(sizes.err().startsWith("tierlab: copy size 0 bytes: must be in 1.."), sizes.err());
    }
}
