package tierlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tierlab.engine.PinnedArena;
import tierlab.engine.StoragePorts;
import tierlab.engine.live.LiveComputeContext;
import tierlab.engine.live.LiveRuntime;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.ComputePort;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.OpSink;
import tierlab.model.io.StoragePort;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.L2Pool;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.PromptMix;
import tierlab.model.testkit.TestDirectories;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.SeedTree;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.GpuModel;
import tierlab.sim.device.SimComputeContext;

/**
 * A compute port handed to a runtime is the one every engine step goes to: the simulator's and the
 * live runtime's, each given a recording port, see exactly the steps the engine traced, in order.
 */
class ComputePortPassedInTest {
    private Path scratch;

    @AfterEach
    void deleteScratch() {
        TestDirectories.deleteRecursively(scratch);
    }

    /** The step indices of every {@code step} the engine records, in order. */
    private static final class TracedSteps implements DecisionTrace.DecisionListener {
        final List<Long> stepIndices = new ArrayList<>();

        @Override
        public void onDecision(String kind, long[] values) {
            if (kind.equals("step")) {
                stepIndices.add(values[0]);
            }
        }
    }

    /** Records each step it is handed, then lets {@code inner} carry it out. */
    private static final class RecordingPort implements ComputePort {
        final List<Long> stepIndices = new ArrayList<>();
        final Set<Long> requestIds = new TreeSet<>();
        long newTokens;
        private final ComputePort inner;

        RecordingPort(ComputePort inner) {
            this.inner = inner;
        }

        @Override
        public void step(IoOp.Compute step, OpSink sink) {
            stepIndices.add(step.stepIndex());
            newTokens += step.newTokens();
            step.items().forEach(item -> requestIds.add(item.requestId()));
            inner.step(step, sink);
        }
    }

    @Test
    void theSimRuntimeHandsEveryStepToThePortItWasGiven() {
        TracedSteps traced = new TracedSteps();
        DecisionTrace trace = new DecisionTrace(0, traced);
        DeviceProfile profile = DeviceProfile.preset("qwen3-8b-h100");
        RecordingPort[] recording = new RecordingPort[1];
        ComputePort.Opener<SimComputeContext> opener = context -> recording[0] =
                new RecordingPort(GpuModel.opener(profile.gpu().computeModel()).open(context));
        // The store's L2 state is a pool made here and handed in, as a shared pool would be.
        L2Pool pool = L2Pool.empty(settings());
        SimRuntime runtime = new SimRuntime(engine(trace, pool), profile, new SeedTree(4), opener);
        runtime.setCheckInvariants(true);
        requests().forEach(runtime::submit);
        runtime.run();
        assertSame(pool, runtime.scheduler().store().l2Pool());
        assertTrue(pool.storeEpoch() > 0, "the run's saves committed into the pool it was given");
        pool.checkInvariants();

        assertEquals(60, runtime.scheduler().finished().size());
        assertEquals(60, recording[0].requestIds.size(), "every request is computed through the port");
        assertEquals(traced.stepIndices, recording[0].stepIndices);
        assertEquals(traced.stepIndices.size(), runtime.computeSteps());
        // Delegating to the profile's GPU model decides exactly as the default port does.
        DecisionTrace defaults = new DecisionTrace();
        SimRuntime reference = new SimRuntime(engine(defaults), profile, new SeedTree(4));
        requests().forEach(reference::submit);
        reference.run();
        assertEquals(defaults.hash(), trace.hash());
    }

    @Test
    void theLiveRuntimeHandsEveryStepToThePortItWasGiven() throws Exception {
        TracedSteps traced = new TracedSteps();
        DecisionTrace trace = new DecisionTrace(0, traced);
        ServingEngine engine = engine(trace);
        StoreSettings settings = engine.store().settings();
        // A port that computes nothing and takes no time: it writes the step's blocks and completes at once,
        // from inside step(); the runtime's hand-off must still deliver it after the dispatch that issued it.
        RecordingPort[] recording = new RecordingPort[1];
        ComputePort.Opener<LiveComputeContext> opener = context -> recording[0] = new RecordingPort((step, sink) -> {
            context.blocksComputed().accept(step);
            sink.completed(step, IoCompletion.ok(step.ticket()));
        });
        scratch = TestDirectories.underTarget("compute-port");
        try (PinnedArena arena = PinnedArena.allocate(settings.l1CapacityBytes(), true);
             StoragePort port = StoragePorts.open(scratch.resolve("l2.bin"), arena, settings.l2CapacityBytes());
             LiveRuntime runtime = new LiveRuntime(engine, port, arena, 30_000_000_000L, null, opener)) {
            LiveRuntime.Report report = runtime.run(requests());
            assertEquals(60, report.finished().size());
            assertEquals(0, report.mismatches(), report.mismatchExamples().toString());
            assertTrue(report.loadMatches() > 0, "the repeated prompts load from the store");
            assertEquals(60, recording[0].requestIds.size(), "every request is computed through the port");
            assertEquals(traced.stepIndices, recording[0].stepIndices);
            assertEquals(traced.stepIndices.size(), report.computeSteps());
            long promptAndOutputTokens = report.finished().stream()
                    .mapToLong(outcome -> outcome.promptTokens() + outcome.outputTokens()).sum();
            assertTrue(recording[0].newTokens > 0 && recording[0].newTokens <= promptAndOutputTokens,
                    recording[0].newTokens + " new tokens of " + promptAndOutputTokens);
            assertTrue(engine.store().leftovers().isEmpty(), engine.store().leftovers().toString());
            engine.checkInvariants();
        }
    }

    private static StoreSettings settings() {
        Geometry geometry = TinyModel.smallGeometry();
        long block = geometry.blockBytes();
        return StoreSettings.defaults(geometry, 48 * block, 512 * block);
    }

    private static ServingEngine engine(DecisionTrace trace) {
        return engine(trace, L2Pool.empty(settings()));
    }

    private static ServingEngine engine(DecisionTrace trace, L2Pool pool) {
        return ServingEngines.create(SchedulerSettings.defaults(4_096).withConcurrency(4),
                new TieredStore(settings(), trace, pool), trace);
    }

    /** 60 requests over 12 prompts of 3 to 7 blocks, so later ones hit what earlier ones saved. */
    private static List<RequestSpec> requests() {
        return PromptMix.requests(77, 60, 12, 5, 200_000);
    }
}
