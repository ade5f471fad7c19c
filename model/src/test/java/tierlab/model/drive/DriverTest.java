package tierlab.model.drive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.ComputePort;
import tierlab.model.io.CopyPort;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.OpSink;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/** The driver's grouping of operations onto ports, which decides the order completions are scheduled in. */
class DriverTest {

    /** Records every hand-off to a port as one line, in order. */
    private static final class RecordingPorts implements StoragePort, CopyPort, ComputePort {
        final List<String> handedOff = new ArrayList<>();

        @Override
        public void submit(List<? extends IoOp.L2Op> ops, CompletionSink sink) {
            handedOff.add("storage " + ops.stream().map(op -> op.ticket()).toList());
        }

        @Override
        public void toGpu(IoOp.CopyToGpu copy, OpSink sink) {
            handedOff.add("toGpu " + copy.ticket());
        }

        @Override
        public void fromGpu(IoOp.CopyFromGpu copy, OpSink sink) {
            handedOff.add("fromGpu " + copy.ticket());
        }

        @Override
        public void step(IoOp.Compute step, OpSink sink) {
            handedOff.add("compute " + step.ticket());
        }

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public void close() {
        }
    }

    private static ServingEngine engine() {
        DecisionTrace trace = new DecisionTrace();
        TieredStore store = new TieredStore(StoreSettings.defaults(Geometry.qwen3_8b(), 1L << 30, 4L << 30), trace);
        return ServingEngines.create(SchedulerSettings.defaults(64), store, trace);
    }

    private static IoOp.L2Read read(long ticket, long batchId) {
        return new IoOp.L2Read(ticket, 0, 4096, 0, batchId, 1);
    }

    @Test
    void copiesAndStepsGoInOrderThenReadsPerBatchInFirstSeenOrderThenAllWritesAsOneSubmission() {
        RecordingPorts ports = new RecordingPorts();
        Driver driver = new Driver(engine(), ports, ports, ports, (op, completion) -> { }, (op, completion) -> { });
        List<IoOp> ops = List.of(
                read(1, 7),
                new IoOp.L2Write(2, 0, 0, 4096),
                new IoOp.CopyToGpu(3, 1, List.of()),
                read(4, 5),
                new IoOp.Compute(5, 0, List.of()),
                read(6, 7),
                new IoOp.L2Write(7, 4096, 4096, 4096),
                new IoOp.CopyFromGpu(8, 1, 0, 4096, 0, List.of(), List.of()));
        assertTrue(driver.dispatch(ops));
        assertEquals(List.of("toGpu 3", "compute 5", "fromGpu 8", "storage [1, 6]", "storage [4]", "storage [2, 7]"),
                ports.handedOff);
        assertFalse(driver.dispatch(List.of()), "nothing to hand off");
    }

    @Test
    void aDeliveredCompletionIsObservedThenGoesToTheEngine() {
        RecordingPorts ports = new RecordingPorts();
        List<String> observed = new ArrayList<>();
        ServingEngine engine = engine();
        Driver driver = new Driver(engine, ports, ports, ports, (op, completion) -> { },
                (op, completion) -> observed.add(op.getClass().getSimpleName() + " " + completion.succeeded()));
        // Shorter than a block: a miss that is one compute step, saves nothing and then finishes.
        engine.submit(new RequestSpec(1, 0, 5, 1, List.of()), 0);
        engine.tick(0);
        List<IoOp> ops = engine.drainOps();
        assertTrue(driver.dispatch(ops));
        IoOp.Compute step = (IoOp.Compute) ops.getFirst();
        assertEquals(List.of("compute " + step.ticket()), ports.handedOff);
        driver.deliver(step, IoCompletion.ok(step.ticket()), 1_000);
        assertEquals(List.of("Compute true"), observed);
        assertEquals(1, engine.finishedCount(), "the engine saw the step complete");
        engine.checkInvariants();
    }
}
