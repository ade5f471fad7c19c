package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.engine.FileChannelBackend;
import tierlab.engine.FileChannelSettings;
import tierlab.engine.IoUringBackend;
import tierlab.engine.PinnedArena;
import tierlab.engine.uring.IoUringProbe;
import tierlab.hunt.testkit.CommandRun;

/**
 * run.json says what ran: the tierlab version and commit, and for every live or
 * hybrid run whether its L1 was pinned, which storage backend served L2 and why, and (live) how KV
 * moved to the GPU.
 */
class RunFactsTest {

    private static final String LIVE = """
            name: facts
            mode: live
            workload: {type: long-prefill, model: tiny, prompts: 4, promptTokens: 160, promptSpreadTokens: 32}
            store: {l1CapacityGiB: 0.0005, l2CapacityGiB: 0.01}
            scheduler: {concurrency: 2}
            """;

    @TempDir
    Path folder;

    private JsonNode runJson(String yaml, String mode) throws Exception {
        Path file = Files.writeString(folder.resolve(mode + ".yaml"), yaml);
        CommandRun run = RunCommandTest.run("run", file.toString(), "--out", folder.resolve(mode).toString(), "-q");
        assertEquals(0, run.exitCode(), run.err() + run.out());
        return new ObjectMapper().readTree(folder.resolve(mode).resolve("run.json").toFile());
    }

    @Test
    void aLiveRunSaysItsBackendItsL1LockItsCopyPathAndWhichTierlabRanIt() throws Exception {
        JsonNode json = runJson(LIVE, "live");
        JsonNode run = json.path("runs").get(0);
        System.out.println("live run.json runs[0]: " + run);
        System.out.println("live run.json tierlab: " + json.path("tierlab"));

        IoUringProbe probe = IoUringBackend.probe();
        String backend = run.path("storageBackend").asText();
        assertTrue(probe.available() ? backend.startsWith("io_uring, ") : backend.startsWith("filechannel (io_uring unavailable: "),
                backend);
        // Host buffers here (no GPU): the words after the colon say why (no CUDA library, no device, or live.gpu is host).
        assertTrue(run.path("gpuCopies").asText().startsWith(RunFacts.HOST_BUFFERS), run.path("gpuCopies").asText());
        boolean pinned = run.path("l1Pinned").asBoolean();
        String lock = run.path("l1Lock").asText();
        assertTrue(run.path("l1Pinned").isBoolean());
        assertEquals(pinned, lock.startsWith("mlocked"), lock);

        JsonNode tierlab = json.path("tierlab");
        assertTrue(tierlab.path("version").asText().matches("\\d+\\.\\d+\\.\\d+.*"), tierlab.toString());
        assertEquals(json.path("gitCommit").asText(), tierlab.path("gitCommit").asText());
        assertEquals("repository", tierlab.path("from").asText());
    }

    @Test
    void aSimRunHasNoHardwareFacts() throws Exception {
        JsonNode run = runJson(LIVE.replace("mode: live", "mode: sim"), "sim").path("runs").get(0);
        for (String key : RunFacts.KEYS) {
            assertFalse(run.has(key), key + " in a sim run: " + run);
        }
    }

    @Test
    void theFileChannelFallbackSaysWhyIoUringWasNotUsed() throws Exception {
        IoUringProbe refused = new IoUringProbe(false, "io_uring_setup(4, flags=0x0) failed: EPERM (Operation not permitted)",
                "EPERM", 0, "Linux test");
        try (PinnedArena arena = PinnedArena.allocate(1 << 20, false);
             FileChannelBackend channel = FileChannelBackend.open(folder.resolve("l2.bin"), arena,
                     FileChannelSettings.defaults().withL2PreallocateBytes(1 << 20))) {
            String described = RunFacts.describe(channel, refused);
            System.out.println("FileChannel fallback: " + described);
            assertTrue(described.startsWith("filechannel (io_uring unavailable: io_uring_setup(4, flags=0x0) failed: EPERM"),
                    described);
            assertTrue(described.endsWith(channel.directIoStatus()), described);
        }
    }
}
