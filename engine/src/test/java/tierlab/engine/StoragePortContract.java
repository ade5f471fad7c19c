package tierlab.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tierlab.engine.uring.Errno;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;
import tierlab.model.testkit.TestDirectories;

/**
 * The contract of the model's {@link StoragePort} for real-device backends, run against every
 * implementation by subclassing: bytes land where the op says (checked byte for byte against an
 * in-memory reference), every op is reported exactly once, failures are values with errno names,
 * and closing releases everything.
 */
abstract class StoragePortContract {

    static final int BLOCK = 4096;
    static final long ARENA_BYTES = 4L << 20;
    static final long FILE_BYTES = 8L << 20;
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Opens the backend under test on {@code l2Path}. */
    protected abstract StoragePort open(Path l2Path, PinnedArena arena, long maxTransferBytes, long preallocateBytes) throws IOException;

    /** Makes the backend's file descriptor invalid without leaking the real one. */
    protected abstract void poisonFileDescriptor(StoragePort port) throws IOException;

    protected abstract IoCounters counters(StoragePort port);

    protected abstract List<IoFailure> failures(StoragePort port);

    /** Name prefix of the threads the backend starts (none may survive close). */
    protected abstract String threadNamePrefix();

    protected Path directory;
    protected PinnedArena arena;
    private final List<StoragePort> opened = new ArrayList<>();
    private final AtomicLong nextTicket = new AtomicLong(1);

    @BeforeEach
    void createArenaAndDirectory() {
        directory = DirectIoDirectory.newDirectory();
        arena = PinnedArena.allocate(ARENA_BYTES);
    }

    @AfterEach
    void closeEverything() {
        for (StoragePort port : opened) {
            port.close();
        }
        opened.clear();
        arena.close();
        TestDirectories.deleteRecursively(directory);
    }

    protected StoragePort openTracked(long maxTransferBytes, long preallocateBytes) throws IOException {
        StoragePort port = open(directory.resolve("l2.bin"), arena, maxTransferBytes, preallocateBytes);
        opened.add(port);
        return port;
    }

    protected StoragePort openDefault() throws IOException {
        return openTracked(0x7FFFF000L, FILE_BYTES);
    }

    protected IoOp.L2Read read(long l2Offset, long lengthBytes, long l1Offset) {
        return new IoOp.L2Read(nextTicket.getAndIncrement(), l2Offset, lengthBytes, l1Offset, 0, 1);
    }

    protected IoOp.L2Write write(long l1Offset, long l2Offset, long lengthBytes) {
        return new IoOp.L2Write(nextTicket.getAndIncrement(), l1Offset, l2Offset, lengthBytes);
    }

    protected void fillArena(long l1Offset, byte[] bytes) {
        MemorySegment.copy(bytes, 0, arena.segment(), ValueLayout.JAVA_BYTE, l1Offset, bytes.length);
    }

    protected byte[] arenaBytes(long l1Offset, int lengthBytes) {
        byte[] bytes = new byte[lengthBytes];
        MemorySegment.copy(arena.segment(), ValueLayout.JAVA_BYTE, l1Offset, bytes, 0, lengthBytes);
        return bytes;
    }

    private static byte[] randomBytes(SplittableRandom random, int lengthBytes) {
        byte[] bytes = new byte[lengthBytes];
        random.nextBytes(bytes);
        return bytes;
    }

    private static void assertSucceeded(Map<Long, IoCompletion> completions) {
        for (IoCompletion completion : completions.values()) {
            assertTrue(completion.succeeded(), () -> "ticket " + completion.ticket() + " failed with " + completion.errorName());
        }
    }

    /** Picks a range of 1..maxBlocks blocks in [0, limit) that overlaps none in {@code taken}. */
    private static long[] freeRange(SplittableRandom random, long limit, int maxBlocks, List<long[]> taken) {
        for (int attempt = 0; attempt < 1000; attempt++) {
            long length = (long) (1 + random.nextInt(maxBlocks)) * BLOCK;
            long start = (long) random.nextInt((int) ((limit - length) / BLOCK) + 1) * BLOCK;
            boolean overlaps = false;
            for (long[] range : taken) {
                if (start < range[0] + range[1] && range[0] < start + length) {
                    overlaps = true;
                    break;
                }
            }
            if (!overlaps) {
                long[] range = {start, length};
                taken.add(range);
                return range;
            }
        }
        return null;
    }

    // ---- data ------------------------------------------------------------------------------------

    @Test
    void randomBatchesOfReadsAndWritesMatchAReferenceByteForByte() throws IOException {
        long seed = 0x5EED_2026L;
        SplittableRandom random = new SplittableRandom(seed);
        StoragePort port = openDefault();
        byte[] reference = new byte[(int) FILE_BYTES]; // the preallocated file reads as zeros
        for (int round = 0; round < 40; round++) {
            int opCount = 1 + random.nextInt(16);
            List<long[]> l2Taken = new ArrayList<>();
            List<long[]> l1Taken = new ArrayList<>();
            List<IoOp.L2Op> batch = new ArrayList<>();
            List<byte[]> writePayloads = new ArrayList<>();
            for (int i = 0; i < opCount; i++) {
                long[] l2 = freeRange(random, FILE_BYTES, 32, l2Taken);
                if (l2 == null) {
                    break;
                }
                long[] l1 = null;
                for (int attempt = 0; attempt < 100 && l1 == null; attempt++) {
                    List<long[]> trial = new ArrayList<>(l1Taken);
                    long start = (long) random.nextInt((int) ((ARENA_BYTES - l2[1]) / BLOCK) + 1) * BLOCK;
                    boolean overlaps = trial.stream().anyMatch(r -> start < r[0] + r[1] && r[0] < start + l2[1]);
                    if (!overlaps) {
                        l1 = new long[] {start, l2[1]};
                        l1Taken.add(l1);
                    }
                }
                if (l1 == null) {
                    break;
                }
                if (random.nextBoolean()) {
                    byte[] payload = randomBytes(random, (int) l2[1]);
                    fillArena(l1[0], payload);
                    batch.add(write(l1[0], l2[0], l2[1]));
                    writePayloads.add(payload);
                } else {
                    // Poison the destination so a read that moved nothing cannot pass.
                    arena.slice(l1[0], l2[1]).fill((byte) 0xA5);
                    batch.add(read(l2[0], l2[1], l1[0]));
                    writePayloads.add(null);
                }
            }
            // Reads see the file as it was before the batch: no op of a batch overlaps another.
            byte[] before = reference.clone();
            assertSucceeded(CompletionCollector.runBatch(port, batch));
            for (int i = 0; i < batch.size(); i++) {
                IoOp.L2Op op = batch.get(i);
                if (op instanceof IoOp.L2Write) {
                    System.arraycopy(writePayloads.get(i), 0, reference, (int) op.l2Offset(), (int) op.lengthBytes());
                } else {
                    byte[] expected = new byte[(int) op.lengthBytes()];
                    System.arraycopy(before, (int) op.l2Offset(), expected, 0, expected.length);
                    int roundNumber = round;
                    assertArrayEquals(expected, arenaBytes(op.l1Offset(), expected.length),
                            () -> "seed " + seed + " round " + roundNumber + ": read " + op + " returned other bytes");
                }
            }
        }
        // Finally read the whole file back in 1 MiB pieces.
        for (long offset = 0; offset < FILE_BYTES; offset += 1 << 20) {
            assertSucceeded(CompletionCollector.runBatch(port, List.of(read(offset, 1 << 20, 0))));
            byte[] expected = new byte[1 << 20];
            System.arraycopy(reference, (int) offset, expected, 0, expected.length);
            long at = offset;
            assertArrayEquals(expected, arenaBytes(0, 1 << 20), () -> "seed " + seed + ": final read at " + at);
        }
    }

    @Test
    void overlappingWritesIssuedInOrderLeaveTheLastWritersBytes() throws IOException {
        StoragePort port = openDefault();
        SplittableRandom random = new SplittableRandom(7);
        byte[] reference = new byte[64 * BLOCK];
        long base = 100L * BLOCK;
        long[][] ranges = {{0, 16}, {4, 8}, {10, 20}, {2, 3}, {0, 64}, {30, 2}, {12, 40}};
        for (long[] range : ranges) {
            int length = (int) range[1] * BLOCK;
            byte[] payload = randomBytes(random, length);
            fillArena(0, payload);
            // The model orders overlapping writes; here: submit, wait, then the next.
            assertSucceeded(CompletionCollector.runBatch(port, List.of(write(0, base + range[0] * BLOCK, length))));
            System.arraycopy(payload, 0, reference, (int) range[0] * BLOCK, length);
        }
        assertSucceeded(CompletionCollector.runBatch(port, List.of(read(base, reference.length, BLOCK * 128))));
        assertArrayEquals(reference, arenaBytes(BLOCK * 128, reference.length));
    }

    @Test
    void operationsLargerThanTheTransferLimitAreSplitAndStillExact() throws IOException {
        long limit = 64 * 1024;
        StoragePort port = openTracked(limit, FILE_BYTES);
        int length = (1 << 20) + 3 * BLOCK; // not a multiple of the limit: the last piece is short
        byte[] payload = randomBytes(new SplittableRandom(11), length);
        fillArena(0, payload);
        IoCounters before = counters(port);
        assertSucceeded(CompletionCollector.runBatch(port, List.of(write(0, 5L * BLOCK, length))));
        assertSucceeded(CompletionCollector.runBatch(port, List.of(read(5L * BLOCK, length, 2L << 20))));
        assertArrayEquals(payload, arenaBytes(2L << 20, length));
        IoCounters delta = counters(port).minus(before);
        long piecesPerOp = (length + limit - 1) / limit;
        assertEquals(2 * (piecesPerOp - 1), delta.splitTransfers(), "extra pieces of two ops split at " + limit + " bytes");
        assertTrue(delta.transfers() >= 2 * piecesPerOp, () -> "at least one transfer per piece: " + delta);
        assertEquals(2, delta.opsCompleted());
        assertEquals(2L * length, delta.bytesTransferred());
    }

    // ---- errors as values ------------------------------------------------------------------------

    @Test
    void misalignedOrEmptyOpsFailWithEinvalBeforeAnyIo() throws IOException {
        StoragePort port = openDefault();
        IoCounters before = counters(port);
        List<IoOp.L2Op> bad = List.of(
                read(0, BLOCK, 100),                // buffer address not aligned
                read(4097, BLOCK, 0),               // file offset not aligned
                read(0, 1000, 0),                   // length not a multiple of 4096
                write(0, 8192, 4096 + 512),         // length aligned to 512 only
                read(-4096, BLOCK, 0),              // negative offset
                write(0, 0, 0));                    // empty
        Map<Long, IoCompletion> results = CompletionCollector.runBatch(port, bad);
        for (IoCompletion completion : results.values()) {
            assertFalse(completion.succeeded());
            assertEquals("EINVAL", completion.errorName(), () -> "ticket " + completion.ticket());
        }
        IoCounters delta = counters(port).minus(before);
        assertEquals(0, delta.transfers(), "no device request for rejected ops");
        assertEquals(0, delta.submitEnterCalls(), "no io_uring_enter submitted anything for rejected ops");
        assertEquals(0, delta.bytesTransferred());
        assertEquals(bad.size(), delta.errors());
        List<IoFailure> messages = failures(port);
        assertEquals(bad.size(), messages.size());
        for (IoFailure failure : messages) {
            assertTrue(failure.message().contains("rejected before any I/O"), failure::message);
        }
        assertTrue(messages.stream().anyMatch(f -> f.message().contains("l2Offset 4097 is not a non-negative multiple of 4096")),
                () -> "a message names the offending offset: " + messages);
    }

    @Test
    void sliceOutsideTheArenaFailsWithEfaultBeforeAnyIo() throws IOException {
        StoragePort port = openDefault();
        IoCounters before = counters(port);
        Map<Long, IoCompletion> results = CompletionCollector.runBatch(port, List.of(
                read(0, 2 * BLOCK, ARENA_BYTES - BLOCK), write(ARENA_BYTES, 0, BLOCK)));
        for (IoCompletion completion : results.values()) {
            assertEquals("EFAULT", completion.errorName());
        }
        assertEquals(0, counters(port).minus(before).transfers());
        assertTrue(failures(port).getFirst().message().contains("outside the arena"));
    }

    @Test
    void readsPastTheEndOfTheFileAreReportedShortNeverZeroFilled() throws IOException {
        long fileBytes = 1 << 20;
        StoragePort port = openTracked(0x7FFFF000L, fileBytes);
        IoOp.L2Read atEnd = read(fileBytes, BLOCK, 0);
        IoOp.L2Read straddling = read(fileBytes - BLOCK, 2 * BLOCK, 4 * BLOCK);
        IoOp.L2Read inside = read(fileBytes - 2 * BLOCK, 2 * BLOCK, 8 * BLOCK);
        Map<Long, IoCompletion> results = CompletionCollector.runBatch(port, List.of(atEnd, straddling, inside));
        assertEquals(Errno.ESHORT, results.get(atEnd.ticket()).errorName());
        assertEquals(Errno.ESHORT, results.get(straddling.ticket()).errorName());
        assertTrue(results.get(inside.ticket()).succeeded());
        assertTrue(failures(port).stream().allMatch(f -> f.message().contains("end of file")), () -> failures(port).toString());
        // The straddling read came back short and its remainder was tried again before ESHORT.
        assertTrue(counters(port).shortTransferResubmits() >= 1, () -> counters(port).toString());
    }

    @Test
    void aFailedOpInTheMiddleOfABatchLeavesTheOthersDeliveredAndTheBackendUsable() throws IOException {
        StoragePort port = openDefault();
        byte[] payload = randomBytes(new SplittableRandom(3), 8 * BLOCK);
        fillArena(0, payload);
        assertSucceeded(CompletionCollector.runBatch(port, List.of(write(0, 0, 8 * BLOCK))));

        IoOp.L2Read a = read(0, 2 * BLOCK, 16 * BLOCK);
        IoOp.L2Read b = read(2 * BLOCK, 2 * BLOCK, 18 * BLOCK);
        IoOp.L2Write tooFar = write(0, 1L << 50, BLOCK); // past the file system's largest file: EFBIG
        IoOp.L2Read misaligned = read(BLOCK, BLOCK, 3);
        IoOp.L2Read c = read(4 * BLOCK, 2 * BLOCK, 20 * BLOCK);
        IoOp.L2Read d = read(6 * BLOCK, 2 * BLOCK, 22 * BLOCK);
        Map<Long, IoCompletion> results = CompletionCollector.runBatch(port, List.of(a, b, tooFar, misaligned, c, d));
        assertFalse(results.get(tooFar.ticket()).succeeded());
        assertTrue(Set.of("EFBIG", "EINVAL").contains(results.get(tooFar.ticket()).errorName()),
                () -> "kernel error by name: " + results.get(tooFar.ticket()));
        assertEquals("EINVAL", results.get(misaligned.ticket()).errorName());
        for (IoOp.L2Read ok : List.of(a, b, c, d)) {
            assertTrue(results.get(ok.ticket()).succeeded(), () -> "ticket " + ok.ticket() + ": " + results.get(ok.ticket()));
        }
        assertArrayEquals(payload, arenaBytes(16 * BLOCK, 8 * BLOCK), "the successful reads around the failures");

        // The backend (and its ring) still works.
        assertSucceeded(CompletionCollector.runBatch(port, List.of(read(0, 8 * BLOCK, 32 * BLOCK))));
        assertArrayEquals(payload, arenaBytes(32 * BLOCK, 8 * BLOCK));
    }

    @Test
    void aBadFileDescriptorFailsEveryOpWithEbadf() throws IOException {
        StoragePort port = openDefault();
        poisonFileDescriptor(port);
        Map<Long, IoCompletion> results = CompletionCollector.runBatch(port, List.of(
                read(0, BLOCK, 0), write(0, BLOCK, BLOCK), read(2 * BLOCK, 4 * BLOCK, 4 * BLOCK)));
        for (IoCompletion completion : results.values()) {
            assertEquals("EBADF", completion.errorName(), () -> "ticket " + completion.ticket());
        }
        assertEquals(3, counters(port).errors());
    }

    @Test
    void submitAfterCloseFailsWithEclosedAndCloseIsIdempotent() throws IOException {
        StoragePort port = openDefault();
        port.close();
        port.close();
        Map<Long, IoCompletion> results = CompletionCollector.runBatch(port, List.of(read(0, BLOCK, 0), write(0, 0, BLOCK)));
        for (IoCompletion completion : results.values()) {
            assertEquals(Errno.ECLOSED, completion.errorName());
        }
        assertTrue(failures(port).getLast().message().contains("is closed"));
    }

    @Test
    void closeWaitsForAcceptedOpsAndReportsThemAll() throws IOException {
        StoragePort port = openDefault();
        CompletionCollector collector = new CompletionCollector();
        List<IoOp.L2Op> ops = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ops.add(read((long) (i % 64) * 8 * BLOCK, 8 * BLOCK, (long) (i % 32) * 8 * BLOCK));
        }
        port.submit(ops, collector);
        port.close();
        Map<Long, IoCompletion> results = collector.await(ops.size(), TIMEOUT);
        assertEquals(ops.size(), results.size());
        results.values().forEach(c -> assertTrue(c.succeeded(), () -> "accepted before close: " + c));
    }

    @Test
    void aThrowingSinkDoesNotStopTheBackend() throws IOException {
        StoragePort port = openDefault();
        CountDownLatch reported = new CountDownLatch(4);
        port.submit(List.of(read(0, BLOCK, 0), read(BLOCK, BLOCK, BLOCK), read(0, 1, 0), read(0, BLOCK, 2 * BLOCK)), (op, completion) -> {
            reported.countDown();
            throw new IllegalStateException("sink failure for ticket " + op.ticket());
        });
        try {
            assertTrue(reported.await(60, java.util.concurrent.TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertSucceeded(CompletionCollector.runBatch(port, List.of(read(0, BLOCK, 0))));
        // The latch opens just before each throw, so the count may trail it for a moment.
        long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (counters(port).sinkExceptions() < 4 && System.nanoTime() < deadlineNs) {
            Thread.onSpinWait();
        }
        assertEquals(4, counters(port).sinkExceptions());
    }

    // ---- concurrency and counters ----------------------------------------------------------------

    @Test
    void everyOpIsReportedExactlyOnceUnderConcurrentSubmitters() throws Exception {
        StoragePort port = openDefault();
        CompletionCollector collector = new CompletionCollector();
        int threads = 4;
        int batchesPerThread = 50;
        AtomicLong total = new AtomicLong();
        List<Thread> submitters = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int threadIndex = t;
            submitters.add(Thread.ofPlatform().start(() -> {
                SplittableRandom random = new SplittableRandom(100 + threadIndex);
                for (int b = 0; b < batchesPerThread; b++) {
                    List<IoOp.L2Op> batch = new ArrayList<>();
                    int size = 1 + random.nextInt(20);
                    for (int i = 0; i < size; i++) {
                        // Reads only (concurrent writes to shared ranges would race by design).
                        long l2 = (long) random.nextInt((int) (FILE_BYTES / BLOCK) - 4) * BLOCK;
                        long l1 = (long) random.nextInt((int) (ARENA_BYTES / BLOCK) - 4) * BLOCK;
                        batch.add(read(l2, (1 + random.nextInt(4)) * (long) BLOCK, l1));
                    }
                    total.addAndGet(size);
                    port.submit(batch, collector);
                }
            }));
        }
        for (Thread submitter : submitters) {
            submitter.join();
        }
        Map<Long, IoCompletion> results = collector.await((int) total.get(), TIMEOUT);
        assertEquals(total.get(), results.size());
        assertSucceeded(results);
        IoCounters counters = counters(port);
        assertEquals(total.get(), counters.opsCompleted());
        assertEquals((long) threads * batchesPerThread, counters.batches());
    }

    @Test
    void countersCountOpsBytesBatchesAndErrors() throws IOException {
        StoragePort port = openDefault();
        IoCounters before = counters(port);
        CompletionCollector.runBatch(port, List.of(write(0, 0, 4 * BLOCK), write(4 * BLOCK, 4 * BLOCK, 2 * BLOCK)));
        CompletionCollector.runBatch(port, List.of(read(0, 6 * BLOCK, 0), read(0, 7, 0)));
        IoCounters delta = counters(port).minus(before);
        assertEquals(4, delta.opsSubmitted());
        assertEquals(4, delta.opsCompleted());
        assertEquals(2, delta.batches());
        assertEquals(1, delta.errors());
        assertEquals(12L * BLOCK, delta.bytesTransferred());
        assertEquals(3, delta.transfers());
    }

    // ---- resources -------------------------------------------------------------------------------

    @Test
    void closeReleasesFileDescriptorsAndThreads() throws IOException {
        long fdsBefore = openFileDescriptors();
        StoragePort port = open(directory.resolve("fd-count.bin"), arena, 0x7FFFF000L, FILE_BYTES);
        assertSucceeded(CompletionCollector.runBatch(port, List.of(write(0, 0, BLOCK), read(0, BLOCK, BLOCK))));
        assertTrue(openFileDescriptors() > fdsBefore, "the open backend holds descriptors");
        port.close();
        assertEquals(fdsBefore, openFileDescriptors(), "descriptors after close (ring fds, eventfds, the L2 file)");
        // A pool's worker may still be on its way out when close() returns (the pool counts as
        // terminated before the thread's last instructions run): give each a bounded moment to end.
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith(threadNamePrefix())) {
                try {
                    thread.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while waiting for " + thread.getName(), e);
                }
            }
        }
        assertTrue(Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().startsWith(threadNamePrefix()) && t.isAlive()),
                "no " + threadNamePrefix() + "* thread survives close");
        assertEquals(List.of(), arena.users(), "the backend released the arena");
    }

    static long openFileDescriptors() throws IOException {
        try (Stream<Path> entries = Files.list(Path.of("/proc/self/fd"))) {
            return entries.count();
        }
    }

    @Test
    void theArenaRefusesToCloseWhileABackendUsesIt() throws IOException {
        StoragePort port = openDefault();
        IllegalStateException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, arena::close);
        assertTrue(refused.getMessage().contains("close those backends"), refused::getMessage);
        port.close();
        assertEquals(List.of(), arena.users());
    }

    @Test
    void aFileLargerThanTheFreeSpaceIsRefusedBeforeItIsCreated() throws IOException {
        Path l2 = directory.resolve("too-big.bin");
        long free = java.nio.file.Files.getFileStore(directory).getUsableSpace();
        long tooBig = (free / FILE_BYTES + 2) * FILE_BYTES;
        IOException refused = assertThrows(IOException.class, () -> open(l2, arena, 0x7FFFF000L, tooBig));
        assertTrue(refused.getMessage().contains("free, and the L2 file needs"), refused::getMessage);
        // Before: open created the file, fallocate failed with ENOSPC, and an empty file stayed behind.
        assertFalse(java.nio.file.Files.exists(l2), "no empty leftover");

        // A file that existed before is kept as it was.
        java.nio.file.Files.write(l2, new byte[4096]);
        assertThrows(IOException.class, () -> open(l2, arena, 0x7FFFF000L, tooBig));
        assertEquals(4096, java.nio.file.Files.size(l2));
    }
}
