package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tierlab.engine.cuda.CudaDevice;
import tierlab.hunt.testkit.CommandRun;

/**
 * live.gpu and live.verify in experiment files: which GPU side a live run used, and why, is in
 * run.json and on stderr; a run that asks for CUDA on a host without a device fails saying why;
 * bad values are one line naming the field.
 */
class LiveGpuRunTest {

    @TempDir
    Path folder;

    private static final String LIVE = """
            name: live-gpu
            mode: live
            workload: {type: long-prefill, model: tiny, prompts: 6, promptTokens: 160, promptSpreadTokens: 32}
            store: {l1CapacityGiB: 0.0005, l2CapacityGiB: 0.01}
            # prefixCaching off: the warm pass loads (and verifies) instead of finding its prompts in the GPU prefix cache.
            scheduler: {concurrency: 4, prefixCaching: false}
            """;

    private CommandRun runFile(String text) throws IOException {
        Path file = folder.resolve("live.yaml");
        Files.writeString(file, text);
        return RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
    }

    private JsonNode firstRun() throws IOException {
        return new ObjectMapper().readTree(folder.resolve("out/run.json").toFile()).path("runs").get(0);
    }

    @Test
    void autoUsesCudaWhenPresentElseHostBuffersAndSaysWhich() throws IOException {
        CudaDevice device = CudaDevice.probe();
        CommandRun run = runFile(LIVE);
        assertEquals(0, run.exitCode(), run.err());
        String gpu = firstRun().path("gpuCopies").asText();
        System.out.println("run.json runs[0].gpu: " + gpu);
        if (device.available()) {
            assertTrue(gpu.startsWith("cuda: " + device.description()), gpu);
        } else {
            assertEquals("host buffers: " + device.description(), gpu);
        }
        Table results = Table.read().csv(folder.resolve("out/results.csv").toFile());
        assertEquals("auto", results.column("live.gpu").getString(0));
        assertEquals(0.0, results.numberColumn("run.realMismatches").getDouble(0));
        assertTrue(results.numberColumn("run.realMatches").getDouble(0) > 0, "every load verified");
    }

    @Test
    void hostIsHostBuffersWithoutLooking() throws IOException {
        CommandRun run = runFile(LIVE + "live: {gpu: host}\n");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("host buffers: live.gpu is host", firstRun().path("gpuCopies").asText());
    }

    @Test
    void cudaWithoutADeviceIsAFailedRunThatSaysWhy() throws IOException {
        CudaDevice device = CudaDevice.probe();
        if (device.available()) {
            System.out.println("cudaWithoutADevice skipped: this host has " + device.description());
            Assumptions.abort("this host has a CUDA device");
        }
        CommandRun run = runFile(LIVE + "live: {gpu: cuda, verify: true}\n");
        Table results = Table.read().csv(folder.resolve("out/results.csv").toFile());
        String failure = results.column("failure").getString(0);
        assertEquals("live.gpu is cuda but there is no usable CUDA device: " + device.description(), failure);
        assertEquals(1.0, results.numberColumn("run.failed").getDouble(0));
        assertEquals("none: " + failure, firstRun().path("gpuCopies").asText());
    }

    @Test
    void badValuesAreOneLineNamingTheField() throws IOException {
        CommandRun wrong = runFile(LIVE + "live: {gpu: gpu0}\n");
        assertEquals(1, wrong.exitCode(), wrong.err());
        assertEquals(1, wrong.err().strip().lines().count(), wrong.err());
        assertTrue(wrong.err().contains("live.gpu: unknown value 'gpu0' (known: auto, cuda, host)"), wrong.err());
        CommandRun simulated = runFile(LIVE.replace("mode: live", "mode: sim") + "live: {gpu: cuda}\n");
        assertEquals(1, simulated.exitCode(), simulated.err());
        assertTrue(simulated.err().contains("live: applies to live mode only, and this run's mode is sim"), simulated.err());
        CommandRun misspelt = runFile(LIVE + "live: {gpus: cuda}\n");
        assertEquals(1, misspelt.exitCode(), misspelt.err());
        assertTrue(misspelt.err().contains("gpus"), misspelt.err());
        assertFalse(Files.exists(folder.resolve("out/results.csv")), "nothing is written for a bad file");
    }
}
