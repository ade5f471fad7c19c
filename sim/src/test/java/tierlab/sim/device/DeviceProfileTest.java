package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceProfileTest {
    @TempDir
    Path dir;

    @Test
    void thePresetLoads() {
        DeviceProfile profile = DeviceProfile.preset("qwen3-8b-h100");
        assertEquals("qwen3-8b-h100", profile.name());
        assertEquals(8, profile.nvme().channels());
        assertTrue(profile.pcie().h2dBytesPerSecond() > 1e10);
    }

    @Test
    void badFilesNameTheFileAndTheField() throws Exception {
        String good = new String(DeviceProfile.class.getResourceAsStream("/profiles/qwen3-8b-h100.yaml").readAllBytes());
        Path unknown = dir.resolve("unknown.yaml");
        Files.writeString(unknown, good.replace("channels: 8", "channels: 8\n  chanels: 9"));
        IllegalArgumentException e1 = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.load(unknown));
        assertTrue(e1.getMessage().contains("unknown.yaml") && e1.getMessage().contains("chanels"), e1.getMessage());

        Path negative = dir.resolve("negative.yaml");
        Files.writeString(negative, good.replace("channels: 8", "channels: -1"));
        IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.load(negative));
        assertTrue(e2.getMessage().contains("negative.yaml") && e2.getMessage().contains("nvme.channels"), e2.getMessage());

        Path wrongType = dir.resolve("type.yaml");
        Files.writeString(wrongType, good.replace("queueDepth: 64", "queueDepth: lots"));
        IllegalArgumentException e3 = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.load(wrongType));
        assertTrue(e3.getMessage().contains("type.yaml") && e3.getMessage().contains("queueDepth"), e3.getMessage());

        IllegalArgumentException e4 = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.preset("nope"));
        assertTrue(e4.getMessage().contains("nope"));
        assertEquals("device: unknown device profile 'nope' (known: qwen3-8b-h100, qwen3-8b-h200)", e4.getMessage());
        for (String preset : DeviceProfile.PRESETS.names()) {
            assertEquals(preset, DeviceProfile.preset(preset).name(), "every registered preset loads under its own name");
        }
    }

    private static final String PCIE_GPU_HOST = """
            pcie:
              h2dBytesPerSecond: 26000000000
              h2dLatencyNs: 10000
              d2hBytesPerSecond: 24000000000
              d2hLatencyNs: 10000
            gpu:
              name: h100
              stepOverheadNs: 2000000
              prefillNsPerToken: 34000
              attentionNsPerTokenPair: 1.5
              decodeNsPerSequence: 150000
            host:
              submissionNs: 60000
              perOperationNs: 3000
            """;

    private Path write(String name, String text) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    @Test
    void aProfileWithoutAStorageSectionRunsTheNvmeModelAndIsWrittenAsBefore() {
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        assertNull(preset.storage(), "the preset names no storage model");
        assertTrue(preset.storageSection().readsNvmeSection());
        assertEquals(StorageModels.DEFAULT, StorageModels.nameOf(preset.storageSection()));
        assertFalse(preset.toYaml("").contains("storage"), "a profile without the section is written without it");
    }

    @Test
    void aStorageSectionNamesItsModelAndRoundTrips() throws Exception {
        Path file = write("link.yaml", """
                name: pool
                storage:
                  model: link
                  operationLatencyNs: 4000
                  linkBytesPerSecond: 25000000000
                """ + PCIE_GPU_HOST);
        DeviceProfile profile = DeviceProfile.load(file);
        assertEquals(new LinkProfile(4_000, 25e9), profile.storage());
        assertNull(profile.nvme(), "the link model reads no nvme section, so the profile needs none");
        Path again = write("again.yaml", profile.toYaml("written back"));
        assertTrue(Files.readString(again).contains("model: link"), Files.readString(again));
        assertEquals(profile, DeviceProfile.load(again));
    }

    @Test
    void anExplicitNvmeModelReadsTheNvmeSection() throws Exception {
        String good = new String(DeviceProfile.class.getResourceAsStream("/profiles/qwen3-8b-h100.yaml").readAllBytes());
        DeviceProfile explicit = DeviceProfile.load(write("explicit.yaml", good + "storage:\n  model: nvme\n"));
        assertEquals(new StorageModels.Nvme(), explicit.storage());
        assertEquals(DeviceProfile.preset("qwen3-8b-h100").nvme(), explicit.nvme());
        assertEquals(explicit, DeviceProfile.load(write("explicit-again.yaml", explicit.toYaml(""))));

        Path noNvme = write("no-nvme.yaml", "name: bare\nstorage: {model: nvme}\n" + PCIE_GPU_HOST);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.load(noNvme));
        assertTrue(e.getMessage().contains("no-nvme.yaml") && e.getMessage().contains("must set nvme (its storage model nvme"),
                e.getMessage());
    }

    @Test
    void badStorageSectionsNameTheFileAndTheField() throws Exception {
        Path unknown = write("unknown-model.yaml", "name: x\nstorage: {model: tape}\n" + PCIE_GPU_HOST);
        IllegalArgumentException e1 = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.load(unknown));
        assertEquals(unknown + ": storage.model: unknown storage model 'tape' (known: nvme, link)", e1.getMessage());

        Path missing = write("missing-model.yaml", "name: x\nstorage: {linkBytesPerSecond: 1}\n" + PCIE_GPU_HOST);
        IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.load(missing));
        assertEquals(missing + ": storage.model: missing (one of nvme, link)", e2.getMessage());

        Path misspelt = write("misspelt.yaml", """
                name: x
                storage: {model: link, operationLatencyNs: 1, linkBytesPerSecond: 1, linkLatencyNs: 1}
                """ + PCIE_GPU_HOST);
        IllegalArgumentException e3 = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.load(misspelt));
        assertTrue(e3.getMessage().contains("misspelt.yaml") && e3.getMessage().contains("unknown field 'linkLatencyNs'")
                && e3.getMessage().contains("storage"), e3.getMessage());

        Path zero = write("zero.yaml", "name: x\nstorage: {model: link, operationLatencyNs: 1, linkBytesPerSecond: 0}\n"
                + PCIE_GPU_HOST);
        IllegalArgumentException e4 = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.load(zero));
        assertTrue(e4.getMessage().contains("zero.yaml") && e4.getMessage().contains("storage.linkBytesPerSecond must be > 0"),
                e4.getMessage());

        Path absent = write("absent.yaml", "name: x\nstorage: {model: link, operationLatencyNs: 1}\n" + PCIE_GPU_HOST);
        IllegalArgumentException e5 = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.load(absent));
        assertTrue(e5.getMessage().contains("absent.yaml") && e5.getMessage().contains("storage.linkBytesPerSecond"),
                e5.getMessage());
    }
}
