package tierlab.bench;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;

/**
 * Keeps {@code queueDepth} operations in flight on a {@link StoragePort} for a fixed time, the way
 * fio's io_uring engine keeps {@code iodepth} requests in flight: a closed loop in which every
 * completion immediately submits the next operation of its slot.
 *
 * <pre>
 *   slot i owns the L1 slice [i * blockBytes, (i + 1) * blockBytes) of the arena
 *
 *   start: submit one op per slot (queueDepth submit() calls)
 *   completion of slot i (on the backend's thread):
 *       count it; if before the deadline and it succeeded, submit slot i's next op
 *       (one submit() of one op: the io_uring backend keeps it on the completing ring and
 *       sends it with that ring's next io_uring_enter, together with the other slots' ops)
 *       else the slot retires
 *   end: the last slot retires; elapsed = last completion - start
 * </pre>
 *
 * Random access draws block-aligned offsets uniformly (with repetition, like fio's
 * {@code norandommap}) from a generator per slot, seeded, so a run is reproducible in its offsets;
 * sequential access hands out consecutive blocks from one shared cursor and wraps at the end of
 * the file, as fio's {@code rw=read/write} do with {@code time_based}. A failed operation retires
 * its slot (a failing backend must not spin) and is reported in the result.
 */
public final class ClosedLoopRunner {

    /** How long after the deadline the last operations may take before the run is declared stuck. */
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(120);

    private ClosedLoopRunner() {}

    /**
     * One timed run.
     *
     * @param ops        completed operations, including those drained after the deadline
     * @param bytes      bytes moved by successful operations
     * @param elapsedNs  from the first submit to the last completion
     * @param errors     failed operations (each retired its slot)
     * @param firstError the first failure as "ticket: errno name", or null
     */
    public record Result(long ops, long bytes, long elapsedNs, long errors, String firstError) {
        public double mibPerSecond() {
            return elapsedNs == 0 ? 0 : bytes / (elapsedNs / 1e9) / (1 << 20);
        }

        public double opsPerSecond() {
            return elapsedNs == 0 ? 0 : ops / (elapsedNs / 1e9);
        }
    }

    /**
     * Runs {@code benchCase} on {@code port} for {@code duration}. The port's arena must hold at
     * least {@code queueDepth * blockBytes} bytes from offset 0, and the file at least
     * {@code fileBytes} bytes (every offset is below it).
     */
    public static Result run(StoragePort port, BenchCase benchCase, long fileBytes, Duration duration, long seed) {
        return run(port, benchCase, fileBytes, duration, seed, null);
    }

    /** A run with the latency of every successful operation, from {@code submit} to completion, in ns. */
    public record Timed(Result result, Histogram latencies) {}

    /** {@link #run} that also times each operation (the calibration experiment needs the latencies). */
    public static Timed runTimed(StoragePort port, BenchCase benchCase, long fileBytes, Duration duration, long seed) {
        // Wait-free recording from any number of completion threads, 3 significant digits.
        Recorder recorder = new Recorder(3);
        Result result = run(port, benchCase, fileBytes, duration, seed, recorder);
        return new Timed(result, recorder.getIntervalHistogram());
    }

    private static Result run(StoragePort port, BenchCase benchCase, long fileBytes, Duration duration, long seed,
                              Recorder latencies) {
        Objects.requireNonNull(port, "port");
        Objects.requireNonNull(benchCase, "benchCase");
        int blockBytes = benchCase.blockBytes();
        int queueDepth = benchCase.queueDepth();
        long blocks = fileBytes / blockBytes;
        if (blocks < 1) {
            throw new IllegalArgumentException("the file of " + fileBytes + " bytes holds no block of " + blockBytes + " bytes");
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, was " + duration);
        }
        Loop loop = new Loop(port, benchCase, blocks, seed, latencies);
        long startNs = System.nanoTime();
        loop.deadlineNs = startNs + duration.toNanos();
        for (int slot = 0; slot < queueDepth; slot++) {
            loop.submitNext(slot);
        }
        try {
            if (!loop.drained.await(duration.plus(DRAIN_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(port.name() + " did not complete its last " + loop.drained.getCount()
                        + " operations within " + DRAIN_TIMEOUT.toSeconds() + " s after the deadline (" + benchCase.name() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + benchCase.name(), e);
        }
        long ops = loop.ops.sum();
        long errors = loop.errors.sum();
        return new Result(ops, (ops - errors) * blockBytes, loop.lastCompletionNs.get() - startNs, errors, loop.firstError.get());
    }

    /** The loop's state; the sink runs on the backend's threads, so everything shared is atomic or per slot. */
    private static final class Loop implements StoragePort.CompletionSink {
        final StoragePort port;
        final BenchCase benchCase;
        final long blocks;
        final SplittableRandom[] randomBySlot;
        final AtomicLong sequentialCursor = new AtomicLong();
        final AtomicLong tickets = new AtomicLong();
        final LongAdder ops = new LongAdder();
        final LongAdder errors = new LongAdder();
        final AtomicReference<String> firstError = new AtomicReference<>();
        final AtomicLong lastCompletionNs = new AtomicLong();
        final AtomicInteger liveSlots;
        final CountDownLatch drained = new CountDownLatch(1);
        /** Null when the run is not timed. */
        final Recorder latencies;
        /**
         * When each slot's operation went to {@code submit} (timed runs). A slot has one operation in
         * flight, and the backend hands the operation from the submitting thread to the completing one
         * through its concurrent queues, which orders the write before the completion's read.
         */
        final long[] submittedAtNsBySlot;
        volatile long deadlineNs;

        Loop(StoragePort port, BenchCase benchCase, long blocks, long seed, Recorder latencies) {
            this.port = port;
            this.benchCase = benchCase;
            this.blocks = blocks;
            this.latencies = latencies;
            this.submittedAtNsBySlot = new long[benchCase.queueDepth()];
            this.liveSlots = new AtomicInteger(benchCase.queueDepth());
            this.randomBySlot = new SplittableRandom[benchCase.queueDepth()];
            SplittableRandom root = new SplittableRandom(seed);
            for (int i = 0; i < randomBySlot.length; i++) {
                // Each slot's generator is touched only by whoever completes that slot's one op in flight.
                randomBySlot[i] = root.split();
            }
        }

        void submitNext(int slot) {
            long block = benchCase.access().random()
                    ? randomBySlot[slot].nextLong(blocks)
                    : Math.floorMod(sequentialCursor.getAndIncrement(), blocks);
            long l2Offset = block * benchCase.blockBytes();
            long l1Offset = (long) slot * benchCase.blockBytes();
            long ticket = tickets.incrementAndGet();
            IoOp.L2Op op = benchCase.access().write()
                    ? new IoOp.L2Write(ticket, l1Offset, l2Offset, benchCase.blockBytes())
                    : new IoOp.L2Read(ticket, l2Offset, benchCase.blockBytes(), l1Offset, ticket, 1);
            if (latencies != null) {
                submittedAtNsBySlot[slot] = System.nanoTime();
            }
            port.submit(List.of(op), this);
        }

        @Override
        public void completed(IoOp.L2Op op, IoCompletion completion) {
            long nowNs = System.nanoTime();
            ops.increment();
            int slot = (int) (op.l1Offset() / benchCase.blockBytes());
            if (!completion.succeeded()) {
                errors.increment();
                firstError.compareAndSet(null, completion.errorName() + " on ticket " + op.ticket() + " (" + op + ")");
            } else {
                if (latencies != null) {
                    latencies.recordValue(Math.max(1, nowNs - submittedAtNsBySlot[slot]));
                }
                if (nowNs < deadlineNs) {
                    submitNext(slot);
                    return;
                }
            }
            lastCompletionNs.accumulateAndGet(nowNs, Math::max);
            if (liveSlots.decrementAndGet() == 0) {
                drained.countDown();
            }
        }
    }
}
