package tierlab.engine;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import tierlab.engine.uring.IoUring;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;

/**
 * A quick sanity measurement, not the acceptance benchmark: random reads of one block size at a
 * fixed queue depth on one file, io_uring and FileChannel interleaved round by round (the virtio
 * disk here drifts by 2-3x within minutes, so only interleaved numbers compare), plus
 * io_uring_enter calls per op for batched and unbatched submission.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp engine/target/classes:model/target/classes \
 *      tierlab.engine.EngineSanityBench [l2Path] [fileMiB=1024] [blockKiB=128] [queueDepth=8] [secondsPerRun=4] [rounds=3]
 * </pre>
 */
public final class EngineSanityBench {

    /** One timed run. */
    public record RunResult(String backend, long ops, long bytes, double seconds, long enterCalls, long errors) {
        public double mibPerSecond() {
            return bytes / seconds / (1 << 20);
        }

        public double enterCallsPerOp() {
            return ops == 0 ? 0 : (double) enterCalls / ops;
        }
    }

    private EngineSanityBench() {}

    public static void main(String[] args) throws Exception {
        Path path = Path.of(args.length > 0 ? args[0] : "target/bench/l2-bench.bin");
        long fileBytes = (args.length > 1 ? Long.parseLong(args[1]) : 1024) << 20;
        int blockBytes = (args.length > 2 ? Integer.parseInt(args[2]) : 128) << 10;
        int queueDepth = args.length > 3 ? Integer.parseInt(args[3]) : 8;
        double seconds = args.length > 4 ? Double.parseDouble(args[4]) : 4;
        int rounds = args.length > 5 ? Integer.parseInt(args[5]) : 3;
        Files.createDirectories(path.toAbsolutePath().getParent());
        System.out.println(IoUring.probe());
        System.out.printf("file %s, %d MiB; random reads of %d KiB at queue depth %d; %.1f s per run; %d rounds%n",
                path, fileBytes >> 20, blockBytes >> 10, queueDepth, seconds, rounds);

        try (PinnedArena arena = PinnedArena.allocate(Math.max(64L << 20, (long) queueDepth * blockBytes))) {
            System.out.println("arena: " + arena.lockStatus().reason());
            fill(path, fileBytes, arena);
            List<RunResult> results = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                RunResult oneRing = runUring(path, arena, IoUringSettings.defaults().withRings(1, 64), "io_uring 1 ring",
                        fileBytes, blockBytes, queueDepth, seconds);
                RunResult fileChannel = runFileChannel(path, arena, fileBytes, blockBytes, queueDepth, seconds);
                RunResult eightRings = runUring(path, arena, IoUringSettings.defaults(), "io_uring 8 rings",
                        fileBytes, blockBytes, queueDepth, seconds);
                for (RunResult result : List.of(oneRing, fileChannel, eightRings)) {
                    System.out.printf("round %d  %-18s %9.1f MiB/s  %8d ops  %5.2f enter/op  errors %d%n", round,
                            result.backend(), result.mibPerSecond(), result.ops(), result.enterCallsPerOp(), result.errors());
                    results.add(result);
                }
                System.out.printf("round %d  ratio io_uring(1 ring)/filechannel = %.2f, io_uring(8 rings)/filechannel = %.2f%n", round,
                        oneRing.mibPerSecond() / fileChannel.mibPerSecond(), eightRings.mibPerSecond() / fileChannel.mibPerSecond());
            }
            enterCallsPerOp(path, arena, fileBytes, blockBytes);
        }
    }

    /** Writes the whole file once with pseudo-random bytes, so reads hit allocated, written blocks. */
    private static void fill(Path path, long fileBytes, PinnedArena arena) throws IOException {
        if (Files.exists(path) && Files.size(path) >= fileBytes) {
            return;
        }
        int chunk = 1 << 20;
        byte[] noise = new byte[chunk * 8];
        new SplittableRandom(42).nextBytes(noise);
        MemorySegment.copy(noise, 0, arena.segment(), ValueLayout.JAVA_BYTE, 0, noise.length);
        long startNs = System.nanoTime();
        try (IoUringBackend backend = IoUringBackend.open(path, arena, IoUringSettings.defaults().withRings(1, 64)
                .withL2PreallocateBytes(fileBytes))) {
            AtomicLong ticket = new AtomicLong();
            for (long offset = 0; offset < fileBytes; offset += 8L * chunk) {
                List<IoOp.L2Op> batch = new ArrayList<>();
                for (int i = 0; i < 8 && offset + (long) i * chunk < fileBytes; i++) {
                    batch.add(new IoOp.L2Write(ticket.incrementAndGet(), (long) i * chunk, offset + (long) i * chunk, chunk));
                }
                CountDownLatch done = new CountDownLatch(batch.size());
                backend.submit(batch, (op, completion) -> {
                    if (!completion.succeeded()) {
                        System.err.println("fill failed: " + completion);
                    }
                    done.countDown();
                });
                await(done);
            }
        }
        System.out.printf("filled %d MiB in %.1f s%n", fileBytes >> 20, (System.nanoTime() - startNs) / 1e9);
    }

    private static RunResult runUring(Path path, PinnedArena arena, IoUringSettings settings, String label, long fileBytes,
                                      int blockBytes, int queueDepth, double seconds) throws IOException {
        try (IoUringBackend backend = IoUringBackend.open(path, arena, settings)) {
            IoCounters before = backend.counters();
            RunResult raw = closedLoop(backend, label, fileBytes, blockBytes, queueDepth, seconds);
            IoCounters delta = backend.counters().minus(before);
            return new RunResult(label, raw.ops(), raw.bytes(), raw.seconds(), delta.enterCalls(), delta.errors());
        }
    }

    private static RunResult runFileChannel(Path path, PinnedArena arena, long fileBytes, int blockBytes, int queueDepth,
                                            double seconds) throws IOException {
        try (FileChannelBackend backend = FileChannelBackend.open(path, arena, FileChannelSettings.defaults().withWorkerThreads(queueDepth))) {
            if (!backend.directIo()) {
                System.out.println("filechannel: " + backend.directIoStatus());
            }
            return closedLoop(backend, "filechannel", fileBytes, blockBytes, queueDepth, seconds);
        }
    }

    /** Keeps {@code queueDepth} reads in flight for {@code seconds}: each completion submits the next read into the same L1 slot. */
    private static RunResult closedLoop(StoragePort port, String label, long fileBytes, int blockBytes, int queueDepth, double seconds) {
        long blocks = fileBytes / blockBytes;
        AtomicLong tickets = new AtomicLong();
        AtomicLong ops = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        CountDownLatch drained = new CountDownLatch(queueDepth);
        long startNs = System.nanoTime();
        long deadlineNs = startNs + (long) (seconds * 1e9);
        StoragePort.CompletionSink[] sink = new StoragePort.CompletionSink[1];
        sink[0] = (IoOp.L2Op op, IoCompletion completion) -> {
            ops.incrementAndGet();
            if (!completion.succeeded()) {
                errors.incrementAndGet();
            }
            if (System.nanoTime() < deadlineNs) {
                long block = ThreadLocalRandom.current().nextLong(blocks);
                port.submit(List.of(new IoOp.L2Read(tickets.incrementAndGet(), block * blockBytes, blockBytes, op.l1Offset(), 0, 1)), sink[0]);
            } else {
                drained.countDown();
            }
        };
        for (int slot = 0; slot < queueDepth; slot++) {
            long block = ThreadLocalRandom.current().nextLong(blocks);
            port.submit(List.of(new IoOp.L2Read(tickets.incrementAndGet(), block * blockBytes, blockBytes, (long) slot * blockBytes, 0, 1)), sink[0]);
        }
        await(drained);
        double elapsed = (System.nanoTime() - startNs) / 1e9;
        return new RunResult(label, ops.get(), ops.get() * blockBytes, elapsed, 0, errors.get());
    }

    /** The same 8 × 64 reads, submitted 8 per call or 1 per call, on one ring: io_uring_enter calls per op. */
    private static void enterCallsPerOp(Path path, PinnedArena arena, long fileBytes, int blockBytes) throws IOException {
        try (IoUringBackend backend = IoUringBackend.open(path, arena, IoUringSettings.defaults().withRings(1, 64))) {
            long blocks = fileBytes / blockBytes;
            SplittableRandom random = new SplittableRandom(9);
            AtomicLong ticket = new AtomicLong();
            for (boolean batched : new boolean[] {true, false}) {
                IoCounters before = backend.counters();
                for (int round = 0; round < 64; round++) {
                    List<IoOp.L2Op> reads = new ArrayList<>();
                    for (int i = 0; i < 8; i++) {
                        reads.add(new IoOp.L2Read(ticket.incrementAndGet(), random.nextLong(blocks) * blockBytes, blockBytes,
                                (long) i * blockBytes, round, 8));
                    }
                    CountDownLatch done = new CountDownLatch(8);
                    if (batched) {
                        backend.submit(reads, (op, completion) -> done.countDown());
                    } else {
                        for (IoOp.L2Op read : reads) {
                            backend.submit(List.of(read), (op, completion) -> done.countDown());
                        }
                    }
                    await(done);
                }
                IoCounters delta = backend.counters().minus(before);
                System.out.printf("%-9s 512 reads in %3d submit() calls: %.3f io_uring_enter/op (%.3f submitting enters/op), %d wake-ups%n",
                        batched ? "batched" : "unbatched", delta.batches(), (double) delta.enterCalls() / delta.opsCompleted(),
                        (double) delta.submitEnterCalls() / delta.opsCompleted(), delta.wakeups());
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("timed out waiting for completions");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
