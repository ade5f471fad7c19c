package tierlab.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import tierlab.model.testkit.Rejections;

class SettingsValidationTest {

    /** The engine's settings name the setting first, then a space and the reason. */
    private static void rejects(String setting, Executable construction) {
        Rejections.assertRejectedLeading(setting + " ", construction);
    }

    @Test
    void ioUringDefaultsAreEightRingsOfSixtyFour() {
        IoUringSettings defaults = IoUringSettings.defaults();
        assertEquals(8, defaults.ringCount());
        assertEquals(64, defaults.ringEntries());
        assertEquals(0x7FFFF000L, defaults.maxTransferBytes());
        assertEquals(1L << 30, defaults.fixedBufferChunkBytes());
    }

    @Test
    void ioUringSettingsNameTheRejectedSetting() {
        IoUringSettings d = IoUringSettings.defaults();
        rejects("ringCount", () -> d.withRings(0, 64));
        rejects("ringCount", () -> d.withRings(65, 64));
        rejects("ringEntries", () -> d.withRings(8, 48));
        rejects("ringEntries", () -> d.withRings(8, 1));
        rejects("maxTransferBytes", () -> d.withMaxTransferBytes(0x80000000L));
        rejects("maxTransferBytes", () -> d.withMaxTransferBytes(5000));
        rejects("fixedBufferChunkBytes", () -> d.withFixedBufferChunkBytes((1L << 30) + 4096));
        rejects("l2PreallocateBytes", () -> d.withL2PreallocateBytes(-1));
        rejects("alignmentBytes", () -> new IoUringSettings(1, 8, true, 4096, 4096, 1000, 0, true));
    }

    @Test
    void fileChannelSettingsNameTheRejectedSetting() {
        FileChannelSettings d = FileChannelSettings.defaults();
        rejects("workerThreads", () -> d.withWorkerThreads(0));
        rejects("maxTransferBytes", () -> d.withMaxTransferBytes(100));
        rejects("l2PreallocateBytes", () -> d.withL2PreallocateBytes(-4096));
        rejects("alignmentBytes", () -> new FileChannelSettings(1, true, 4096, 3000, 0));
    }
}
