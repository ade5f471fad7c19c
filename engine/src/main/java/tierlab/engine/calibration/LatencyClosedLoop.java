package tierlab.engine.calibration;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import tierlab.engine.bench.BenchCase;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;

/**
 * The closed loop of {@code tierlab.engine.bench.ClosedLoopRunner} (queue depth slots, each
 * completion submits its slot's next operation until the deadline), plus a latency histogram:
 * each slot remembers when its operation was handed to {@code submit}, and the completion records
 * the difference. Random offsets are uniform over block-aligned positions with repetition (fio's
 * {@code norandommap}); sequential ones come from one shared cursor that wraps.
 */
final class LatencyClosedLoop {

    /** How long after the deadline the last operations may take before the run is declared stuck. */
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(120);

    /** What one run produced; {@code latencies} holds one value per successful operation, in ns. */
    record Outcome(long ops, long bytes, long elapsedNs, long errors, String firstError, Histogram latencies) {}

    private LatencyClosedLoop() {}

    static Outcome run(StoragePort port, BenchCase benchCase, long fileBytes, Duration duration, long seed) {
        long blocks = fileBytes / benchCase.blockBytes();
        if (blocks < 1) {
            throw new IllegalArgumentException("the file of " + fileBytes + " bytes holds no block of " + benchCase.blockBytes() + " bytes");
        }
        Loop loop = new Loop(port, benchCase, blocks, seed);
        long startNs = System.nanoTime();
        loop.deadlineNs = startNs + duration.toNanos();
        for (int slot = 0; slot < benchCase.queueDepth(); slot++) {
            loop.submitNext(slot);
        }
        try {
            if (!loop.drained.await(duration.plus(DRAIN_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(port.name() + " did not complete its last operations within "
                        + DRAIN_TIMEOUT.toSeconds() + " s after the deadline (" + benchCase.name() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while measuring " + benchCase.name(), e);
        }
        long ops = loop.ops.sum();
        long errors = loop.errors.sum();
        return new Outcome(ops, (ops - errors) * benchCase.blockBytes(), loop.lastCompletionNs.get() - startNs, errors,
                loop.firstError.get(), loop.latencies.getIntervalHistogram());
    }

    /** Shared with the backend's completion threads: counters are atomic, the rest is per slot. */
    private static final class Loop implements StoragePort.CompletionSink {
        final StoragePort port;
        final BenchCase benchCase;
        final long blocks;
        final SplittableRandom[] randomBySlot;
        /**
         * When each slot's operation went to {@code submit}. A slot has one operation in flight, and the
         * backend hands the operation from the submitting thread to the completing one through its
         * concurrent queues, which orders the write before the completion's read.
         */
        final long[] submittedAtNsBySlot;
        final AtomicLong sequentialCursor = new AtomicLong();
        final AtomicLong tickets = new AtomicLong();
        final LongAdder ops = new LongAdder();
        final LongAdder errors = new LongAdder();
        final AtomicReference<String> firstError = new AtomicReference<>();
        final AtomicLong lastCompletionNs = new AtomicLong();
        final AtomicInteger liveSlots;
        final CountDownLatch drained = new CountDownLatch(1);
        /** Wait-free recording from any number of completion threads (3 significant digits). */
        final Recorder latencies = new Recorder(3);
        volatile long deadlineNs;

        Loop(StoragePort port, BenchCase benchCase, long blocks, long seed) {
            this.port = port;
            this.benchCase = benchCase;
            this.blocks = blocks;
            this.liveSlots = new AtomicInteger(benchCase.queueDepth());
            this.submittedAtNsBySlot = new long[benchCase.queueDepth()];
            this.randomBySlot = new SplittableRandom[benchCase.queueDepth()];
            SplittableRandom root = new SplittableRandom(seed);
            for (int i = 0; i < randomBySlot.length; i++) {
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
            submittedAtNsBySlot[slot] = System.nanoTime();
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
                latencies.recordValue(Math.max(1, nowNs - submittedAtNsBySlot[slot]));
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
