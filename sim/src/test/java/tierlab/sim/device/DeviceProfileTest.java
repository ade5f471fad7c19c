package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        assertEquals("device: unknown device profile 'nope' (known: qwen3-8b-h100)", e4.getMessage());
        for (String preset : DeviceProfile.PRESETS.names()) {
            assertEquals(preset, DeviceProfile.preset(preset).name(), "every registered preset loads under its own name");
        }
    }
}
