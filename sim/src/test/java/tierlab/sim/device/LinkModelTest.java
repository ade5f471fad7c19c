package tierlab.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.IoOp;
import tierlab.model.io.OpSink;
import tierlab.model.io.StoragePort;

/** The link storage model against completion times computed by hand. */
class LinkModelTest {

    /** 1 byte per ns and 1 µs per operation keep the arithmetic in the head. */
    private static final LinkProfile ONE_BYTE_PER_NS = new LinkProfile(1_000, 1e9);

    @Test
    void operationsCrossTheLinkOneAtATimeThenTakeTheLatency() {
        LinkModel link = new LinkModel(ONE_BYTE_PER_NS);
        // Idle link: 0 + 4096 ns transfer + 1000 ns latency.
        assertEquals(5_096, link.submit(true, 4_096, 0));
        link.checkInvariants();
        // Arrives at 100 while the link is busy until 4096: 4096 + 1000 + 1000.
        assertEquals(6_096, link.submit(false, 1_000, 100));
        link.checkInvariants();
        // Arrives after the link went idle (at 5096): 10000 + 10 + 1000.
        assertEquals(11_010, link.submit(true, 10, 10_000));
        link.checkInvariants();
        assertEquals(2, link.readOps());
        assertEquals(1, link.writeOps());
        assertEquals(4_096 + 1_000 + 10, link.bytes());
        assertEquals(4_096 + 1_000 + 10, link.linkBusyNs());
        assertEquals(10_010, link.linkFreeAtNs());
    }

    @Test
    void theLatencyDoesNotHoldTheLink() {
        LinkModel link = new LinkModel(new LinkProfile(1_000_000, 1e9));
        // Both at 0: the second waits only for the first's 1000 ns transfer, not for its 1 ms latency.
        assertEquals(1_001_000, link.submit(true, 1_000, 0));
        assertEquals(1_002_000, link.submit(true, 1_000, 0));
        link.checkInvariants();
    }

    @Test
    void aTransferTimeIsRoundedUpToAWholeNanosecond() {
        LinkModel link = new LinkModel(new LinkProfile(0, 3e9));
        // 10 bytes at 3 bytes/ns: 3.33 ns, rounded up to 4.
        assertEquals(4, link.submit(false, 10, 0));
        assertEquals(8, link.submit(false, 10, 0));
        link.checkInvariants();
    }

    @Test
    void badParametersNameTheirField() {
        IllegalArgumentException latency = assertThrows(IllegalArgumentException.class, () -> new LinkProfile(-1, 1e9));
        assertTrue(latency.getMessage().startsWith("storage.operationLatencyNs must be >= 0"), latency.getMessage());
        IllegalArgumentException bandwidth = assertThrows(IllegalArgumentException.class, () -> new LinkProfile(0, 0));
        assertTrue(bandwidth.getMessage().startsWith("storage.linkBytesPerSecond must be > 0"), bandwidth.getMessage());
    }

    /**
     * Through the registry, behind the host's submitting thread: a submission of two operations
     * reaches the device when the submitter is done with it (submission + 2 × per-operation).
     */
    @Test
    void theRegistryOpensTheModelBehindTheHostSubmitter() {
        DeviceProfile preset = DeviceProfile.preset("qwen3-8b-h100");
        HostProfile host = new HostProfile(60_000, 3_000);
        DeviceProfile profile = new DeviceProfile("link", ONE_BYTE_PER_NS, null, preset.pcie(), preset.gpu(), host);
        List<Long> completions = new ArrayList<>();
        CompletionTimeline timeline = new CompletionTimeline() {
            @Override
            public long nowNs() {
                return 0;
            }

            @Override
            public void completeAt(IoOp op, long completionNs, OpSink sink) {
                completions.add(completionNs);
            }
        };
        SimStoragePort port = StorageModels.open(profile, model -> 7, timeline);
        assertEquals("sim-link", port.name());
        assertTrue(port.device() instanceof LinkModel);
        StoragePort.CompletionSink ignored = (op, completion) -> { };
        port.submit(List.of(new IoOp.L2Read(1, 0, 2_000, 0, 0, 2), new IoOp.L2Read(2, 2_000, 3_000, 2_000, 0, 2)), ignored);
        // At the device at 60000 + 2 × 3000 = 66000; then 2000 ns and 3000 ns transfers, 1000 ns latency each.
        assertEquals(List.of(69_000L, 72_000L), completions);
        assertEquals(1, port.submitter().submissions());
        ((LinkModel) port.device()).checkInvariants();
    }
}
