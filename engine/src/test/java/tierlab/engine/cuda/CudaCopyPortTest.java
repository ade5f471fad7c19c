package tierlab.engine.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tierlab.engine.PayloadPattern;
import tierlab.engine.PinnedArena;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;
import tierlab.model.io.OpSink;

/**
 * The copy port's logic against {@link FakeCuda}: bytes moved through the device, completions in
 * each stream's order and from the completion thread, failures as values carrying CUDA's error
 * name, payload verification on both directions, and everything given back at close.
 */
class CudaCopyPortTest {

    private static final long LANE_BYTES = 16 * 1024;
    private static final int TP = 2;
    private static final BlockKey A = new BlockKey(1, 11);
    private static final BlockKey B = new BlockKey(2, 22);
    private static final BlockKey C = new BlockKey(3, 33);

    /** Completions as they arrive, with the thread that reported each. */
    private static final class Sink implements OpSink {
        record Arrival(IoOp op, IoCompletion completion, String thread) {}

        final LinkedBlockingQueue<Arrival> arrivals = new LinkedBlockingQueue<>();

        @Override
        public void completed(IoOp op, IoCompletion completion) {
            arrivals.add(new Arrival(op, completion, Thread.currentThread().getName()));
        }

        Arrival next() throws InterruptedException {
            Arrival arrival = arrivals.poll(10, TimeUnit.SECONDS);
            assertTrue(arrival != null, "no completion within 10 s");
            return arrival;
        }

        void assertNothingMore() throws InterruptedException {
            assertNull(arrivals.poll(50, TimeUnit.MILLISECONDS), "a completion arrived before its copies ran");
        }
    }

    private static IoOp.Compute compute(long ticket, long... blocksAndKeys) {
        List<IoOp.GpuBlockWrite> writes = new ArrayList<>();
        BlockKey[] keys = {A, B, C};
        for (int i = 0; i < blocksAndKeys.length; i++) {
            writes.add(new IoOp.GpuBlockWrite(blocksAndKeys[i], keys[i]));
        }
        return new IoOp.Compute(ticket, 0, List.of(new IoOp.ComputeItem(1, 16, 0, writes)));
    }

    private static IoOp.CopyFromGpu staging(long ticket, long l1Offset, int lane, List<Long> blocks, List<BlockKey> keys) {
        return new IoOp.CopyFromGpu(ticket, 1, l1Offset, LANE_BYTES, lane, blocks,
                keys.stream().map(k -> new IoOp.Content(k, lane)).toList());
    }

    private static IoOp.CopyToGpu load(long ticket, long l1Offset, long gpuBlock, BlockKey key, int lane) {
        return new IoOp.CopyToGpu(ticket, 2, List.of(new IoOp.GpuLoadSegment(l1Offset, LANE_BYTES, gpuBlock, new IoOp.Content(key, lane))));
    }

    @Test
    void stagingAndLoadsMoveTheBytesAndAreVerifiedOnBothSides() throws Exception {
        FakeCuda cuda = new FakeCuda(true);
        Sink sink = new Sink();
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 8, false)) {
            try (CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, true)) {
                assertTrue(port.l1Registered());
                assertTrue(cuda.isRegistered(l1.baseAddress()));
                port.computed(compute(1, 5, 6));
                // Lane 1 of blocks 5 and 6 staged into L1 slots 0 and 1.
                port.fromGpu(staging(2, 0, 1, List.of(5L, 6L), List.of(A, B)), sink);
                Sink.Arrival staged = sink.next();
                assertTrue(staged.completion().succeeded());
                assertEquals(2, staged.op().ticket());
                assertEquals("cuda-completions", staged.thread());
                assertTrue(PayloadPattern.matches(l1.slice(0, LANE_BYTES), A, 1));
                assertTrue(PayloadPattern.matches(l1.slice(LANE_BYTES, LANE_BYTES), B, 1));
                // Loaded back into another GPU block, copied back and compared.
                port.toGpu(load(3, LANE_BYTES, 9, B, 1), sink);
                assertTrue(sink.next().completion().succeeded());
                port.awaitVerification();
                CudaCopyPort.Counters counters = port.counters();
                assertEquals(1, counters.loadMatches());
                assertEquals(0, counters.loadMismatches());
                assertEquals(0, counters.stagingMismatches());
                assertEquals(3 * LANE_BYTES, counters.copiedBytes());
                assertEquals(0, port.inFlight());
                port.checkInvariants();
            }
            assertTrue(cuda.leaksNothing(), cuda.leftovers());
        }
    }

    @Test
    void wrongBytesAreMismatchesNotFailures() throws Exception {
        FakeCuda cuda = new FakeCuda(true);
        Sink sink = new Sink();
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 4, false);
             CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, true)) {
            port.computed(compute(1, 5));
            // The model expects B in block 5, which holds A: the staging copy delivers the wrong KV.
            port.fromGpu(staging(2, 0, 0, List.of(5L), List.of(B)), sink);
            assertTrue(sink.next().completion().succeeded());
            // L1 slot 1 holds C's lane 0, the load expects A's: the GPU receives the wrong KV.
            PayloadPattern.fill(l1.slice(LANE_BYTES, LANE_BYTES), C, 0);
            port.toGpu(load(3, LANE_BYTES, 7, A, 0), sink);
            assertTrue(sink.next().completion().succeeded());
            port.awaitVerification();
            CudaCopyPort.Counters counters = port.counters();
            assertEquals(1, counters.stagingMismatches());
            assertEquals(1, counters.loadMismatches());
            assertEquals(0, counters.loadMatches());
            assertEquals(2, counters.mismatchExamples().size(), counters.mismatchExamples().toString());
            assertTrue(counters.mismatchExamples().get(1).startsWith("load of request 2 did not receive"));
        }
    }

    @Test
    void eachStreamCompletesInOrderAndTheDirectionsIndependently() throws Exception {
        FakeCuda cuda = new FakeCuda(false);
        Sink sink = new Sink();
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 4, false);
             CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, false)) {
            long toGpu = cuda.streamHandles().get(0);
            long fromGpu = cuda.streamHandles().get(1);
            port.toGpu(load(10, 0, 1, A, 0), sink);
            port.toGpu(load(11, LANE_BYTES, 2, A, 1), sink);
            port.fromGpu(staging(12, 2 * LANE_BYTES, 0, List.of(3L), List.of(B)), sink);
            sink.assertNothingMore();
            cuda.runAll(fromGpu);
            assertEquals(12, sink.next().op().ticket(), "the staging copy does not wait for the loads");
            cuda.runNext(toGpu);
            sink.assertNothingMore();
            cuda.runNext(toGpu);
            assertEquals(10, sink.next().op().ticket());
            sink.assertNothingMore();
            cuda.runAll(toGpu);
            assertEquals(11, sink.next().op().ticket());
            assertEquals(0, port.inFlight());
        }
    }

    @Test
    void aCopyCudaRefusesIsAFailedCompletionWithItsName() throws Exception {
        FakeCuda cuda = new FakeCuda(true);
        Sink sink = new Sink();
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 4, false);
             CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, false)) {
            cuda.failNextMemcpy(CudaApi.ERROR_INVALID_VALUE);
            port.toGpu(load(20, 0, 1, A, 0), sink);
            Sink.Arrival refused = sink.next();
            assertFalse(refused.completion().succeeded());
            assertEquals("cudaErrorInvalidValue", refused.completion().errorName());
            assertEquals(20, refused.completion().ticket());
            // A fault the device reports through the copy's event.
            cuda.failNextEvent(FakeCuda.ERROR_ILLEGAL_ADDRESS);
            port.fromGpu(staging(21, 0, 0, List.of(1L), List.of(A)), sink);
            Sink.Arrival faulted = sink.next();
            assertFalse(faulted.completion().succeeded());
            assertEquals("cudaErrorIllegalAddress", faulted.completion().errorName());
            // The port goes on working.
            port.toGpu(load(22, 0, 1, A, 0), sink);
            assertTrue(sink.next().completion().succeeded());
            assertEquals(2, port.counters().failedCopies());
            assertEquals(LANE_BYTES, port.counters().copiedBytes());
        }
    }

    @Test
    void noDeviceMemoryForABlockIsAFailedCopyNotAnException() throws Exception {
        FakeCuda cuda = new FakeCuda(true);
        Sink sink = new Sink();
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 4, false);
             CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, false)) {
            cuda.failNextMalloc();
            port.toGpu(load(50, 0, 1, A, 0), sink);
            Sink.Arrival failed = sink.next();
            assertFalse(failed.completion().succeeded());
            assertEquals("cudaErrorMemoryAllocation", failed.completion().errorName());
            port.toGpu(load(51, 0, 1, A, 0), sink);
            assertTrue(sink.next().completion().succeeded(), "the next slab is allocated");
        }
    }

    @Test
    void theCompletionThreadSurvivesABrokenQuery() throws Exception {
        FakeCuda cuda = new FakeCuda(false);
        Sink sink = new Sink();
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 4, false);
             CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, false)) {
            cuda.throwOnNextQuery();
            port.toGpu(load(60, 0, 1, A, 0), sink);
            Sink.Arrival broken = sink.next();
            assertFalse(broken.completion().succeeded());
            assertEquals("IllegalStateException", broken.completion().errorName());
            long toGpu = cuda.streamHandles().get(0);
            cuda.runAll(toGpu);
            port.toGpu(load(61, 0, 1, A, 0), sink);
            cuda.runAll(toGpu);
            assertTrue(sink.next().completion().succeeded(), "the completion thread goes on");
        }
    }

    @Test
    void withoutRegistrationTheCopiesStillWorkAndSaySo() throws Exception {
        FakeCuda cuda = new FakeCuda(true);
        cuda.refuseRegistration();
        Sink sink = new Sink();
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 4, false)) {
            try (CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, false)) {
                assertFalse(port.l1Registered());
                assertEquals("L1 arena not registered (cudaErrorInvalidValue): copies go through pageable memory", port.pinning());
                port.toGpu(load(30, 0, 1, A, 0), sink);
                assertTrue(sink.next().completion().succeeded());
                assertEquals(List.of("the CUDA copy port"), l1.users());
            }
            assertEquals(List.of(), l1.users(), "the port releases the arena");
            assertTrue(cuda.leaksNothing(), cuda.leftovers());
        }
    }

    @Test
    void theCompletionThreadUsesTheSameDevice() throws Exception {
        FakeCuda cuda = new FakeCuda(true);
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 4, false);
             CudaCopyPort port = new CudaCopyPort(cuda, 3, l1, LANE_BYTES, TP, false)) {
            Sink sink = new Sink();
            port.toGpu(load(40, 0, 1, A, 0), sink);
            sink.next();
            synchronized (cuda) {
                assertTrue(cuda.calls.contains("setDevice 3 on cuda-completions"), cuda.calls.toString());
            }
        }
    }

    // Layer-wise loading (scheduler.loadLayerGroups = G > 1): each load as G copies on the H2D stream.

    /** Landings reported by the port, with the thread that reported each, and where the completions went. */
    private static final class Landings {
        final List<String> seen = Collections.synchronizedList(new ArrayList<>());

        void landed(int group) {
            seen.add("group " + group + " on " + Thread.currentThread().getName());
        }

        OpSink sink(Sink delegate) {
            return (op, completion) -> {
                seen.add("completed " + op.ticket() + (completion.succeeded() ? "" : " " + completion.errorName()));
                delegate.completed(op, completion);
            };
        }
    }

    private static IoOp.CopyToGpu twoSegmentLoad(long ticket, long l1Offset0, long gpu0, long l1Offset1, long gpu1) {
        return new IoOp.CopyToGpu(ticket, 4, List.of(
                new IoOp.GpuLoadSegment(l1Offset0, LANE_BYTES, gpu0, new IoOp.Content(A, 0)),
                new IoOp.GpuLoadSegment(l1Offset1, LANE_BYTES, gpu1, new IoOp.Content(B, 1))));
    }

    /** The H2D stream's work as "copy L1OFFSET+BYTES to block-relative OFFSET" and "event" lines. */
    private static List<String> describe(List<FakeCuda.Queued> queued, long l1Base, Map<Long, Long> blockBases) {
        List<String> lines = new ArrayList<>();
        for (FakeCuda.Queued work : queued) {
            if (work.isEvent()) {
                lines.add("event");
            } else if (work.kind() == CudaApi.MEMCPY_DEVICE_TO_HOST) {
                lines.add("copy back " + work.bytes());
            } else {
                long l1Offset = work.source() - l1Base;
                // A segment's slices all keep source - destination; its first slice starts the GPU lane.
                long base = blockBases.computeIfAbsent(work.source() - work.destination(), k -> work.destination());
                lines.add("copy L1 " + l1Offset + " +" + work.bytes() + " to lane +" + (work.destination() - base));
            }
        }
        return lines;
    }

    @Test
    void aLoadInLayerGroupsIsOneCopyPerGroupAndSegmentWithAnEventAfterEachGroup() throws Exception {
        // Lanes of 16 KiB: 4 groups of 4,096 bytes; 3 groups of 5,461, 5,461 and 5,462 (the remainder last).
        int[][] cases = {{4, 4096, 4096, 4096, 4096}, {3, 5461, 5461, 5462}};
        for (int[] expectedCase : cases) {
            int groups = expectedCase[0];
            FakeCuda cuda = new FakeCuda(true);
            Sink sink = new Sink();
            Landings landings = new Landings();
            try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 8, false)) {
                PayloadPattern.fill(l1.slice(2 * LANE_BYTES, LANE_BYTES), A, 0);
                PayloadPattern.fill(l1.slice(5 * LANE_BYTES, LANE_BYTES), B, 1);
                try (CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, false)) {
                    port.setLayerGroups(new LayerGroupLoads(groups), landings::landed);
                    port.toGpu(twoSegmentLoad(70, 2 * LANE_BYTES, 4, 5 * LANE_BYTES, 9), sink);
                    assertTrue(sink.next().completion().succeeded());
                    List<String> expected = new ArrayList<>();
                    long offset = 0;
                    for (int group = 0; group < groups; group++) {
                        long bytes = expectedCase[1 + group];
                        expected.add("copy L1 " + (2 * LANE_BYTES + offset) + " +" + bytes + " to lane +" + offset);
                        expected.add("copy L1 " + (5 * LANE_BYTES + offset) + " +" + bytes + " to lane +" + offset);
                        expected.add("event");
                        offset += bytes;
                    }
                    assertEquals(LANE_BYTES, offset, "the groups cover the lane");
                    assertEquals(expected, describe(cuda.queued(cuda.streamHandles().get(0)), l1.baseAddress(), new HashMap<>()));
                    assertEquals(groups, landings.seen.size(), "every group landed: " + landings.seen);
                    assertEquals(2 * LANE_BYTES, port.counters().copiedBytes());
                    port.checkInvariants();
                }
                assertTrue(cuda.leaksNothing(), cuda.leftovers());
            }
        }
    }

    @Test
    void groupsLandInOrderAsTheirEventsCompleteAndTheLastBeforeTheLoadsCompletion() throws Exception {
        FakeCuda cuda = new FakeCuda(false);
        Sink sink = new Sink();
        Landings landings = new Landings();
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 8, false);
             CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, false)) {
            port.setLayerGroups(new LayerGroupLoads(4), landings::landed);
            long toGpu = cuda.streamHandles().get(0);
            port.toGpu(twoSegmentLoad(80, 0, 1, LANE_BYTES, 2), landings.sink(sink));
            port.toGpu(load(81, 2 * LANE_BYTES, 3, C, 0), landings.sink(sink));
            List<String> expected = new ArrayList<>();
            for (int group = 0; group < 4; group++) {
                // Group g of load 80: two slices, then its event.
                cuda.runNext(toGpu);
                cuda.runNext(toGpu);
                awaitSize(landings, expected.size());
                assertEquals(expected, landings.seen, "nothing lands before its group's event");
                cuda.runNext(toGpu);
                expected.add("group " + group + " on cuda-completions");
                if (group == 3) {
                    expected.add("completed 80");
                }
                awaitSize(landings, expected.size());
                assertEquals(expected, landings.seen);
            }
            assertEquals(80, sink.next().op().ticket());
            sink.assertNothingMore();
            cuda.runAll(toGpu);
            expected.addAll(List.of("group 0 on cuda-completions", "group 1 on cuda-completions",
                    "group 2 on cuda-completions", "group 3 on cuda-completions", "completed 81"));
            assertEquals(81, sink.next().op().ticket());
            assertEquals(expected, landings.seen);
            long events = cuda.queued(toGpu).stream().filter(FakeCuda.Queued::isEvent).count();
            assertEquals(8, events, "4 events per load");
            assertEquals(0, port.inFlight());
        }
    }

    private static void awaitSize(Landings landings, int size) throws InterruptedException {
        for (int i = 0; i < 1000 && landings.seen.size() < size; i++) {
            Thread.sleep(5);
        }
        Thread.sleep(20);
    }

    @Test
    void aLayerWiseLoadCudaRefusesOrFaultsFailsWithTheErrorNameAndLandsNothingMore() throws Exception {
        FakeCuda cuda = new FakeCuda(true);
        Sink sink = new Sink();
        Landings landings = new Landings();
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 8, false)) {
            try (CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, false)) {
                port.setLayerGroups(new LayerGroupLoads(3), landings::landed);
                // Group 1's first slice is refused (the third memcpy): known at submission, no group lands.
                cuda.failMemcpyAfter(2, CudaApi.ERROR_INVALID_VALUE);
                port.toGpu(twoSegmentLoad(90, 0, 1, LANE_BYTES, 2), landings.sink(sink));
                Sink.Arrival refused = sink.next();
                assertFalse(refused.completion().succeeded());
                assertEquals("cudaErrorInvalidValue", refused.completion().errorName());
                assertEquals(List.of("completed 90 cudaErrorInvalidValue"), landings.seen);
                // Group 0's event reports a device fault: the load fails with its name, no later group lands.
                cuda.failNextEvent(FakeCuda.ERROR_ILLEGAL_ADDRESS);
                port.toGpu(twoSegmentLoad(91, 0, 1, LANE_BYTES, 2), landings.sink(sink));
                Sink.Arrival faulted = sink.next();
                assertEquals("cudaErrorIllegalAddress", faulted.completion().errorName());
                assertEquals(List.of("completed 90 cudaErrorInvalidValue", "completed 91 cudaErrorIllegalAddress"), landings.seen);
                // The port goes on: the next load lands group by group.
                port.toGpu(twoSegmentLoad(92, 0, 1, LANE_BYTES, 2), landings.sink(sink));
                assertTrue(sink.next().completion().succeeded());
                assertEquals(List.of("group 0 on cuda-completions", "group 1 on cuda-completions", "group 2 on cuda-completions",
                        "completed 92"), landings.seen.subList(2, 6));
                assertEquals(2, port.counters().failedCopies());
                port.checkInvariants();
            }
            assertTrue(cuda.leaksNothing(), "every group event is given back: " + cuda.leftovers());
        }
    }

    @Test
    void aLayerWiseLoadIsVerifiedLikeAWholeOne() throws Exception {
        FakeCuda cuda = new FakeCuda(true);
        Sink sink = new Sink();
        Landings landings = new Landings();
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 8, false);
             CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, true)) {
            port.setLayerGroups(new LayerGroupLoads(5), landings::landed);
            PayloadPattern.fill(l1.slice(0, LANE_BYTES), A, 0);
            PayloadPattern.fill(l1.slice(LANE_BYTES, LANE_BYTES), B, 1);
            port.toGpu(twoSegmentLoad(100, 0, 1, LANE_BYTES, 2), sink);
            assertTrue(sink.next().completion().succeeded());
            // The second segment's L1 slot holds C's lane 1, not B's: one match, one mismatch.
            PayloadPattern.fill(l1.slice(LANE_BYTES, LANE_BYTES), C, 1);
            port.toGpu(twoSegmentLoad(101, 0, 3, LANE_BYTES, 4), sink);
            assertTrue(sink.next().completion().succeeded());
            port.awaitVerification();
            CudaCopyPort.Counters counters = port.counters();
            assertEquals(3, counters.loadMatches());
            assertEquals(1, counters.loadMismatches());
            assertEquals(List.of("load of request 4 did not receive " + new IoOp.Content(B, 1) + " on the GPU"),
                    counters.mismatchExamples());
            // Each segment is copied back whole, once, behind its last group and before the load's last event.
            List<FakeCuda.Queued> queued = cuda.queued(cuda.streamHandles().get(0)).subList(0, 17);
            assertEquals(List.of(LANE_BYTES, LANE_BYTES), queued.subList(14, 16).stream().map(FakeCuda.Queued::bytes).toList());
            assertTrue(queued.get(16).isEvent());
            assertEquals(10, landings.seen.size());
        }
    }

    @Test
    void aSplitNeedsALandingListener() throws Exception {
        FakeCuda cuda = new FakeCuda(true);
        try (PinnedArena l1 = PinnedArena.allocate(LANE_BYTES * 2, false);
             CudaCopyPort port = new CudaCopyPort(cuda, 0, l1, LANE_BYTES, TP, false)) {
            assertThrows(IllegalArgumentException.class,
                    () -> port.setLayerGroups(new LayerGroupLoads(2), null));
            // Whole loads again: one copy per segment and one event, as before layer-wise loading existed.
            port.setLayerGroups(null, null);
            Sink sink = new Sink();
            port.toGpu(twoSegmentLoad(110, 0, 1, LANE_BYTES, 2), sink);
            assertTrue(sink.next().completion().succeeded());
            assertEquals(List.of(LANE_BYTES, LANE_BYTES, 0L),
                    cuda.queued(cuda.streamHandles().get(0)).stream().map(FakeCuda.Queued::bytes).toList());
        }
    }
}
