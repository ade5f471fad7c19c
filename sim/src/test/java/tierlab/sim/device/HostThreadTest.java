package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The model thread's host costs, against times worked out by hand. */
class HostThreadTest {

    @Test
    void aProfileWithoutModelThreadCostsLeavesEveryTimeAsItWas() {
        HostThread thread = new HostThread(new HostProfile(1_000, 2_000));
        assertEquals(500, thread.copy(8L << 20, 500));
        assertEquals(700, thread.step(700));
        assertEquals(600, thread.copy(1, 600));
        assertEquals(0, thread.busyNs());
        assertEquals(0, thread.copyCalls());
        thread.checkInvariants();
    }

    @Test
    void copiesAndStepsQueueOnOneThread() {
        // 1,000 ns per call, 500 ns per MiB, 3,000 ns per step.
        HostThread thread = new HostThread(new HostProfile(0, 0, 1_000, 500.0, 3_000));
        // A 2 MiB copy ready at 0: 1,000 + 2 × 500 = 2,000 ns.
        assertEquals(2_000, thread.copy(2L << 20, 0));
        thread.checkInvariants();
        // A step ready at 500 waits for the copy: 2,000 + 3,000.
        assertEquals(5_000, thread.step(500));
        // A 1 MiB copy ready long after: 10,000 + 1,000 + 500.
        assertEquals(11_500, thread.copy(1L << 20, 10_000));
        assertEquals(2_000 + 3_000 + 1_500, thread.busyNs());
        assertEquals(2, thread.copyCalls());
        assertEquals(1, thread.steps());
        thread.checkInvariants();
    }

    @Test
    void profilesWithoutTheModelThreadFieldsLoadAsZeroAndAreWrittenWithoutThem(@TempDir Path dir) throws Exception {
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        assertFalse(preset.host().chargesModelThread());
        String yaml = preset.toYaml("");
        assertFalse(yaml.contains("copyCallNs") || yaml.contains("engineStepNs") || yaml.contains("copyNsPerMiB"), yaml);
        DeviceProfile charged = new DeviceProfile("charged", preset.nvme(), preset.pcie(), preset.gpu(),
                preset.host().withModelThread(40_000, 90_000.5, 25_000));
        Path file = dir.resolve("charged.yaml");
        Files.writeString(file, charged.toYaml("with host costs"));
        assertEquals(charged, DeviceProfile.load(file));
    }

    @Test
    void copiesOnStreamsQueuePerDirectionAndNeverHoldAStep() {
        // 1,000 ns per call, 500 ns per MiB, 3,000 ns per step; copies on the live runtime's stream threads.
        HostThread thread = new HostThread(new HostProfile(0, 0, 1_000, 500.0, 3_000).withCopiesOnStreams(true));
        // A 2 MiB staging copy (GPU to host) at 0: 2,000 ns on the D2H stream.
        assertEquals(2_000, thread.copy(2L << 20, 0, false));
        // A step at 100 does not wait for it: 100 + 3,000.
        assertEquals(3_100, thread.step(100));
        // A 1 MiB load (host to GPU) at 200 has its own stream: 200 + 1,500.
        assertEquals(1_700, thread.copy(1L << 20, 200, true));
        // A second staging copy at 500 queues behind the first on the D2H stream: 2,000 + 2,000.
        assertEquals(4_000, thread.copy(2L << 20, 500, false));
        assertEquals(2_000 + 3_000 + 1_500 + 2_000, thread.busyNs());
        assertEquals(3, thread.copyCalls());
        thread.checkInvariants();
        // The same calls on the model thread queue with the step.
        HostThread modelThread = new HostThread(new HostProfile(0, 0, 1_000, 500.0, 3_000));
        assertEquals(2_000, modelThread.copy(2L << 20, 0, false));
        assertEquals(5_000, modelThread.step(100));
        assertEquals(6_500, modelThread.copy(1L << 20, 200, true));
    }
}
