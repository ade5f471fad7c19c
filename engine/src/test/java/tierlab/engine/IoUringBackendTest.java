package tierlab.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tierlab.engine.uring.IoUring;
import tierlab.engine.uring.IoUringLayout;
import tierlab.engine.uring.IoUringProbe;
import tierlab.engine.uring.UringAvailability;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;

/**
 * The storage-port contract on io_uring, plus what only io_uring has: one io_uring_enter per
 * batch, the fixed-buffer path, registration chunks, ring threads. Skipped, with the probe's
 * cause, where the kernel or sandbox refuses io_uring.
 */
class IoUringBackendTest extends StoragePortContract {

    @BeforeAll
    static void requireIoUring() {
        IoUringProbe probe = UringAvailability.probe();
        Assumptions.assumeTrue(probe.available(), () -> "io_uring unavailable, skipping: " + probe.cause());
    }

    @Override
    protected StoragePort open(Path l2Path, PinnedArena arena, long maxTransferBytes, long preallocateBytes) throws IOException {
        return IoUringBackend.open(l2Path, arena, IoUringSettings.defaults()
                .withMaxTransferBytes(maxTransferBytes).withL2PreallocateBytes(preallocateBytes));
    }

    private IoUringBackend openWith(IoUringSettings settings) throws IOException {
        IoUringBackend backend = IoUringBackend.open(directory.resolve("l2.bin"), arena, settings.withL2PreallocateBytes(FILE_BYTES));
        trackForClose(backend);
        return backend;
    }

    private final List<StoragePort> extra = new ArrayList<>();

    private void trackForClose(StoragePort port) {
        extra.add(port);
    }

    @org.junit.jupiter.api.AfterEach
    void closeExtra() {
        extra.forEach(StoragePort::close);
        extra.clear();
    }

    @Override
    protected void poisonFileDescriptor(StoragePort port) {
        ((IoUringBackend) port).poisonFileDescriptorForTest();
    }

    @Override
    protected IoCounters counters(StoragePort port) {
        return ((IoUringBackend) port).counters();
    }

    @Override
    protected List<IoFailure> failures(StoragePort port) {
        return ((IoUringBackend) port).recentFailures();
    }

    @Override
    protected String threadNamePrefix() {
        return "tierlab-io_uring-ring-";
    }

    private List<IoOp.L2Op> eightReads() {
        List<IoOp.L2Op> reads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            reads.add(read((long) i * 32 * BLOCK, 32 * BLOCK, (long) i * 32 * BLOCK));
        }
        return reads;
    }

    @Test
    void aBatchOfEightReadsOnOneRingIsOneSubmittingEnterAndUnbatchedIsEight() throws IOException {
        IoUringBackend backend = openWith(IoUringSettings.defaults().withRings(1, 64));
        CompletionCollector.runBatch(backend, eightReads()); // warm up

        IoCounters before = backend.counters();
        Map<Long, IoCompletion> batched = CompletionCollector.runBatch(backend, eightReads());
        batched.values().forEach(c -> assertTrue(c.succeeded()));
        IoCounters batchedDelta = backend.counters().minus(before);
        assertEquals(1, batchedDelta.submitEnterCalls(), () -> "one io_uring_enter submits the batch: " + batchedDelta);
        assertEquals(8, batchedDelta.transfers());
        assertEquals(1, batchedDelta.batches());

        before = backend.counters();
        for (IoOp.L2Op op : eightReads()) {
            CompletionCollector.runBatch(backend, List.of(op));
        }
        IoCounters unbatchedDelta = backend.counters().minus(before);
        assertEquals(8, unbatchedDelta.submitEnterCalls(), () -> "one io_uring_enter per unbatched read: " + unbatchedDelta);
        assertEquals(8, unbatchedDelta.batches());
        System.out.printf("io_uring_enter calls for 8 reads: batched %d (submitting %d), unbatched %d (submitting %d)%n",
                batchedDelta.enterCalls(), batchedDelta.submitEnterCalls(), unbatchedDelta.enterCalls(), unbatchedDelta.submitEnterCalls());
    }

    @Test
    void aBatchLargerThanTheRingIsStillDeliveredCompletely() throws IOException {
        IoUringBackend backend = openWith(IoUringSettings.defaults().withRings(1, 4));
        List<IoOp.L2Op> ops = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            ops.add(read((long) i * BLOCK, BLOCK, (long) i * BLOCK));
        }
        Map<Long, IoCompletion> results = CompletionCollector.runBatch(backend, ops);
        results.values().forEach(c -> assertTrue(c.succeeded()));
        assertTrue(backend.counters().submitEnterCalls() >= 100 / 4, "a 4-entry ring needs several enters for 100 ops");
    }

    @Test
    void theArenaIsRegisteredAndReadsAndWritesUseTheFixedOpcodes() throws IOException {
        IoUringBackend backend = (IoUringBackend) openDefault();
        assertTrue(backend.fixedBuffersActive(), () -> backend.fixedBufferStatus().toString());
        byte[] payload = new byte[16 * BLOCK];
        new SplittableRandom(5).nextBytes(payload);
        fillArena(0, payload);
        IoCounters before = backend.counters();
        CompletionCollector.runBatch(backend, List.of(write(0, 64 * BLOCK, payload.length)));
        CompletionCollector.runBatch(backend, List.of(read(64 * BLOCK, payload.length, 128 * BLOCK)));
        assertArrayEquals(payload, arenaBytes(128 * BLOCK, payload.length));
        IoCounters delta = backend.counters().minus(before);
        assertEquals(delta.transfers(), delta.fixedBufferTransfers(), () -> "every transfer used READ_FIXED/WRITE_FIXED: " + delta);
    }

    @Test
    void withoutFixedBuffersThePlainOpcodesMoveTheSameBytes() throws IOException {
        IoUringBackend backend = openWith(IoUringSettings.defaults().withFixedBuffers(false));
        assertFalse(backend.fixedBuffersActive());
        assertTrue(backend.fixedBufferStatus().getFirst().contains("fixedBuffers=false"));
        byte[] payload = new byte[16 * BLOCK];
        new SplittableRandom(6).nextBytes(payload);
        fillArena(0, payload);
        CompletionCollector.runBatch(backend, List.of(write(0, 64 * BLOCK, payload.length)));
        CompletionCollector.runBatch(backend, List.of(read(64 * BLOCK, payload.length, 128 * BLOCK)));
        assertArrayEquals(payload, arenaBytes(128 * BLOCK, payload.length));
        assertEquals(0, backend.counters().fixedBufferTransfers());
    }

    @Test
    void transfersNeverCrossARegisteredBufferBoundary() throws IOException {
        long chunk = 64 * 1024;
        IoUringBackend backend = openWith(IoUringSettings.defaults().withFixedBufferChunkBytes(chunk));
        assertTrue(backend.fixedBuffersActive());
        assertTrue(backend.fixedBufferStatus().getFirst().contains("as " + ARENA_BYTES / chunk + " fixed buffer(s)"),
                () -> backend.fixedBufferStatus().getFirst());
        // 40 KiB starting 8 KiB before a chunk boundary, then 200 KiB spanning four chunks.
        int small = 10 * BLOCK;
        int large = 50 * BLOCK;
        byte[] payload = new byte[small + large];
        new SplittableRandom(8).nextBytes(payload);
        fillArena(chunk - 2 * BLOCK, payload);
        IoCounters before = backend.counters();
        CompletionCollector.runBatch(backend, List.of(write(chunk - 2 * BLOCK, 0, small),
                write(chunk - 2 * BLOCK + small, small, large)));
        CompletionCollector.runBatch(backend, List.of(read(0, small + large, 8 * chunk + 3 * BLOCK)));
        assertArrayEquals(payload, arenaBytes(8 * chunk + 3 * BLOCK, payload.length));
        IoCounters delta = backend.counters().minus(before);
        assertTrue(delta.splitTransfers() >= 5, () -> "ops cut at 64 KiB chunk boundaries: " + delta);
        assertEquals(delta.transfers(), delta.fixedBufferTransfers());
    }

    @Test
    void transferLengthHonoursTheLimitAndChunkBoundaries() {
        assertEquals(IoUringLayout.MAX_RW_COUNT_BYTES, OpValidation.transferLength(0, 3L << 30, IoUringLayout.MAX_RW_COUNT_BYTES, 0));
        assertEquals(4096, OpValidation.transferLength(0, 4096, IoUringLayout.MAX_RW_COUNT_BYTES, 0));
        assertEquals(8192, OpValidation.transferLength(65536 - 8192, 1 << 20, 1 << 20, 65536));
        assertEquals(65536, OpValidation.transferLength(65536, 1 << 20, 1 << 20, 65536));
        // A 5 GiB op at the default limit: pieces of 0x7FFFF000 and a remainder.
        long remaining = 5L << 30;
        long offset = 0;
        int pieces = 0;
        while (remaining > 0) {
            long length = OpValidation.transferLength(offset, remaining, IoUringLayout.MAX_RW_COUNT_BYTES, 1L << 30);
            assertTrue(length > 0 && length <= IoUringLayout.MAX_RW_COUNT_BYTES && length % 4096 == 0);
            assertTrue(offset / (1L << 30) == (offset + length - 1) / (1L << 30), "within one registered chunk");
            offset += length;
            remaining -= length;
            pieces++;
        }
        assertEquals(5, pieces, "1 GiB chunks cap each piece below MAX_RW_COUNT");
    }

    @Test
    void aTransferOfNoBytesIsAnAssertionNotALoopWithoutEnd() {
        // The submitting loop advances by the length until nothing remains; zero would never end. Tests and
        // launchers run with -ea, so the check fires here.
        AssertionError zeroLeft = assertThrows(AssertionError.class, () -> OpValidation.transferLength(4096, 0, 1 << 20, 0));
        assertTrue(zeroLeft.getMessage().startsWith("transfer of 0 bytes at l1Offset 4096"), zeroLeft.getMessage());
        assertThrows(AssertionError.class, () -> OpValidation.transferLength(0, 8192, 0, 0), "a zero per-transfer maximum");
    }

    @Test
    void completionsArriveOnTheRingThreadAndASinkMaySubmitFollowUps() throws Exception {
        IoUringBackend backend = openWith(IoUringSettings.defaults().withRings(2, 8));
        AtomicInteger remaining = new AtomicInteger(200);
        CompletableFuture<String> done = new CompletableFuture<>();
        List<String> threads = java.util.Collections.synchronizedList(new ArrayList<>());
        StoragePort.CompletionSink[] sink = new StoragePort.CompletionSink[1];
        sink[0] = (op, completion) -> {
            threads.add(Thread.currentThread().getName());
            if (!completion.succeeded()) {
                done.completeExceptionally(new AssertionError(completion.toString()));
                return;
            }
            int left = remaining.decrementAndGet();
            if (left == 0) {
                done.complete("ok");
            } else if (left > 0) {
                backend.submit(List.of(read((left % 64) * (long) BLOCK, BLOCK, (left % 8) * (long) BLOCK)), sink[0]);
            }
        };
        backend.submit(List.of(read(0, BLOCK, 0)), sink[0]);
        assertEquals("ok", done.get(60, TimeUnit.SECONDS));
        assertTrue(threads.stream().allMatch(name -> name.startsWith("tierlab-io_uring-ring-")), threads::toString);
        assertEquals(1, threads.stream().distinct().count(), "follow-ups from a sink stay on the sink's ring");
    }

    @Test
    void closeFromACompletionSinkIsRefusedWithAClearMessage() throws Exception {
        IoUringBackend backend = openWith(IoUringSettings.defaults().withRings(1, 8));
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        backend.submit(List.of(read(0, BLOCK, 0)), (op, completion) -> {
            try {
                backend.close();
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(t);
            }
        });
        Throwable t = thrown.get(60, TimeUnit.SECONDS);
        assertTrue(t instanceof IllegalStateException && t.getMessage().contains("completion sink"), String.valueOf(t));
        assertTrue(CompletionCollector.runBatch(backend, List.of(read(0, BLOCK, 0))).values().iterator().next().succeeded());
    }

    @Test
    void startsOneThreadPerRingAndUsesTheBestSetupFlags() throws IOException {
        IoUringBackend backend = (IoUringBackend) openDefault();
        long ringThreads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("tierlab-io_uring-ring-")).count();
        assertEquals(8, ringThreads, "default: 8 rings, one event-loop thread each");
        int flags = backend.ringSetupFlags();
        System.out.println("ring setup flags 0x" + Integer.toHexString(flags) + "; " + backend.fixedBufferStatus().getFirst()
                + "; arena " + arena.lockStatus().reason());
        // 6.1+ kernels accept SINGLE_ISSUER | DEFER_TASKRUN; older ones fall back, which is fine too.
        assertTrue(flags == 0 || (flags & IoUringLayout.IORING_SETUP_SUBMIT_ALL) != 0);
    }

    @Test
    void openingOnAMissingDirectoryNamesTheFileAndTheErrno() {
        IOException e = assertThrows(IOException.class, () -> IoUringBackend.open(directory.resolve("no/such/dir/l2.bin"), arena,
                IoUringSettings.defaults()));
        assertTrue(e.getMessage().contains("ENOENT") && e.getMessage().contains("l2.bin"), e.getMessage());
        assertEquals(List.of(), arena.users());
    }

    @Test
    void aShortReadIsResubmittedForItsRemainderAndThenSucceeds() throws Exception {
        // A FIFO gives a genuine short read: io_uring completes partial reads of regular files and
        // block devices itself, but hands a pipe's partial read back in the CQE.
        Path fifo = directory.resolve("short-reads.fifo");
        Process mkfifo;
        try {
            mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        } catch (IOException e) {
            Assumptions.abort("no mkfifo here: " + e);
            return;
        }
        assertEquals(0, mkfifo.waitFor());
        IoUringBackend backend = IoUringBackend.open(fifo, arena, IoUringSettings.defaults().withRings(1, 8).withDirectIo(false));
        trackForClose(backend);
        byte[] payload = new byte[2 * BLOCK];
        new SplittableRandom(12).nextBytes(payload);
        try (java.io.OutputStream writer = java.nio.file.Files.newOutputStream(fifo)) {
            writer.write(payload, 0, BLOCK);
            writer.flush();
            CompletionCollector collector = new CompletionCollector();
            IoOp.L2Read read = read(0, 2 * BLOCK, 8 * BLOCK);
            backend.submit(List.of(read), collector);
            long deadlineNs = System.nanoTime() + 10_000_000_000L;
            while (backend.counters().shortTransferResubmits() == 0 && System.nanoTime() < deadlineNs) {
                Thread.sleep(1);
            }
            assertEquals(1, backend.counters().shortTransferResubmits(), "the first half came back short and the rest was resubmitted");
            assertEquals(0, collector.size(), "a short read is not a completion");
            writer.write(payload, BLOCK, BLOCK);
            writer.flush();
            IoCompletion completion = collector.await(1, TIMEOUT).get(read.ticket());
            assertTrue(completion.succeeded(), completion::toString);
        }
        assertArrayEquals(payload, arenaBytes(8 * BLOCK, payload.length));
    }
}
