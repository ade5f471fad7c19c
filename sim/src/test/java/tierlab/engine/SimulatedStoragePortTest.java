package tierlab.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.OpSink;
import tierlab.model.io.StoragePort;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.HostSubmitter;
import tierlab.sim.device.SimStoragePort;
import tierlab.sim.device.StorageModels;
import tierlab.sim.hybrid.RealBytes;
import tierlab.sim.kernel.Simulator;

/**
 * The storage-port contract on the simulator's storage port (host submitter + the profile's storage
 * model, the preset's NVMe model here; subclasses name other models) carrying
 * real bytes as hybrid mode does ({@link RealBytes#storagePort}): the simulated device decides when
 * each operation completes, the FileChannel backend moves the bytes then. The class lives in
 * {@code tierlab.engine} because the contract and the backend's test hooks are package-private there.
 */
class SimulatedStoragePortTest extends StoragePortContract {

    /**
     * The port under test and the virtual clock it completes on. A submission runs the simulator
     * until every completion it scheduled has been delivered, on the submitting thread (one at a time).
     */
    private static final class Simulated implements StoragePort, CompletionTimeline {
        private final Simulator simulator = new Simulator();
        private final FileChannelBackend real;
        private final RealBytes bytes;
        private final HostSubmitter submitter;
        private final StoragePort port;
        private boolean closed;

        Simulated(FileChannelBackend real, PinnedArena arena, DeviceProfile profile) {
            this.real = real;
            this.bytes = new RealBytes(arena, new BlockingStorage(real, TIMEOUT.toNanos()), BLOCK, 1);
            SimStoragePort simulated = StorageModels.open(profile, model -> 1, this);
            this.submitter = simulated.submitter();
            this.port = bytes.storagePort(simulated);
        }

        @Override
        public long nowNs() {
            return simulator.nowNs();
        }

        @Override
        public void completeAt(IoOp op, long atNs, OpSink sink) {
            simulator.at(atNs, now -> sink.completed(op, IoCompletion.ok(op.ticket())));
        }

        @Override
        public synchronized void submit(List<? extends IoOp.L2Op> ops, CompletionSink sink) {
            port.submit(ops, sink);
            simulator.run();
        }

        @Override
        public String name() {
            return port.name();
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            port.close();
            real.close();
            bytes.close();
        }

        /**
         * The real backend's counters, except that a batch is one submission of the simulated host
         * submitter: the backend sees each operation alone, at the virtual instant it completes.
         */
        IoCounters counters() {
            IoCounters c = real.counters();
            return new IoCounters(c.opsSubmitted(), c.opsCompleted(), c.errors(), c.bytesTransferred(), submitter.submissions(),
                    c.transfers(), c.fixedBufferTransfers(), c.splitTransfers(), c.shortTransferResubmits(), c.enterCalls(),
                    c.submitEnterCalls(), c.wakeups(), c.sinkExceptions());
        }
    }

    @Override
    protected StoragePort open(Path l2Path, PinnedArena arena, long maxTransferBytes, long preallocateBytes) throws IOException {
        FileChannelBackend real = FileChannelBackend.open(l2Path, arena, FileChannelSettings.defaults()
                .withMaxTransferBytes(maxTransferBytes).withL2PreallocateBytes(preallocateBytes));
        return new Simulated(real, arena, profile());
    }

    /** The simulated host, whose storage section picks the device model under test. */
    protected DeviceProfile profile() {
        return DeviceProfile.preset("qwen3-8b-h100");
    }

    @Override
    protected void poisonFileDescriptor(StoragePort port) throws IOException {
        ((Simulated) port).real.poisonFileDescriptorForTest();
    }

    @Override
    protected IoCounters counters(StoragePort port) {
        return ((Simulated) port).counters();
    }

    @Override
    protected List<IoFailure> failures(StoragePort port) {
        return ((Simulated) port).real.recentFailures();
    }

    @Override
    protected String threadNamePrefix() {
        return "tierlab-filechannel-";
    }

    /**
     * Where a simulated port differs from a threaded backend, by design: its sink runs inside a
     * simulator event on the runtime's own thread, so a throwing sink (an invariant the engine
     * found broken) stops that event and reaches the runtime, which must end the run. The other
     * completions are not lost: they are delivered once the simulator runs on.
     */
    @Override
    @Test
    void aThrowingSinkDoesNotStopTheBackend() throws IOException {
        StoragePort port = openDefault();
        List<Long> reported = new ArrayList<>();
        List<IoOp.L2Read> reads = List.of(read(0, BLOCK, 0), read(BLOCK, BLOCK, BLOCK));
        assertThrows(IllegalStateException.class, () -> port.submit(reads, (op, completion) -> {
            reported.add(op.ticket());
            throw new IllegalStateException("sink failure for ticket " + op.ticket());
        }));
        assertEquals(1, reported.size(), "the exception stopped the event that threw it");
        assertThrows(IllegalStateException.class, () -> port.submit(List.of(), (op, completion) -> { }),
                "the simulator runs on at the next submission: the other read reaches its sink, which throws again");
        assertEquals(2, reported.size());
        Map<Long, IoCompletion> next = CompletionCollector.runBatch(port, List.of(read(0, BLOCK, 0)));
        assertTrue(next.values().stream().allMatch(IoCompletion::succeeded), next.toString());
        assertEquals(0, counters(port).sinkExceptions(), "the backend's own sink never threw");
    }
}
