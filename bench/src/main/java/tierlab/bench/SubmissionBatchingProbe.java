package tierlab.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import tierlab.engine.IoCounters;
import tierlab.engine.IoUringBackend;
import tierlab.model.io.IoOp;

/**
 * io_uring_enter calls per operation for the same reads submitted in batches or one by one.
 *
 * <p>Both modes issue the same list of random block reads in groups of {@code batchSize} and wait
 * for each group before the next (the way the model hands the backend a batch of promotions):
 * <ul>
 *   <li><b>batched</b>: one {@code submit()} call per group with all its reads, which the ring
 *       sends with one io_uring_enter;</li>
 *   <li><b>unbatched</b>: {@code batchSize} {@code submit()} calls of one read each, back to back;
 *       the ring sends whatever has arrived when it next enters the kernel.</li>
 * </ul>
 * The backend should have one ring, so that all reads of a group meet on it. The counts come from
 * the backend's {@link IoCounters}: all enters (submitting or waiting), submitting enters (those that
 * passed at least one I/O SQE), and wake-ups of a ring that slept in the kernel.
 */
public final class SubmissionBatchingProbe {

    private SubmissionBatchingProbe() {}

    /**
     * Counts of one mode.
     *
     * @param mode            "batched" or "unbatched"
     * @param reads           reads completed
     * @param submitCalls     {@code submit()} calls
     * @param enterCalls      io_uring_enter calls of any kind
     * @param submitEnterCalls io_uring_enter calls that submitted I/O
     * @param wakeups         eventfd wake-ups of a sleeping ring
     * @param errors          failed reads
     */
    public record Result(String mode, long reads, long submitCalls, long enterCalls, long submitEnterCalls, long wakeups,
                         long errors) {
        public double enterCallsPerRead() {
            return (double) enterCalls / reads;
        }

        public double submitEnterCallsPerRead() {
            return (double) submitEnterCalls / reads;
        }

        public double submitCallsPerRead() {
            return (double) submitCalls / reads;
        }
    }

    /** Runs unbatched, then batched, on the same offsets; the arena must hold {@code batchSize * blockBytes}. */
    public static List<Result> run(IoUringBackend backend, long fileBytes, int blockBytes, int batchSize, int groups, long seed) {
        long blocks = fileBytes / blockBytes;
        SplittableRandom random = new SplittableRandom(seed);
        long[][] offsets = new long[groups][batchSize];
        for (long[] group : offsets) {
            for (int i = 0; i < batchSize; i++) {
                group[i] = random.nextLong(blocks) * blockBytes;
            }
        }
        List<Result> results = new ArrayList<>();
        results.add(runMode(backend, offsets, blockBytes, false));
        results.add(runMode(backend, offsets, blockBytes, true));
        return results;
    }

    private static Result runMode(IoUringBackend backend, long[][] offsets, int blockBytes, boolean batched) {
        AtomicLong tickets = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        IoCounters before = backend.counters();
        for (long[] group : offsets) {
            List<IoOp.L2Op> reads = new ArrayList<>(group.length);
            long batchId = tickets.get() + 1;
            for (int i = 0; i < group.length; i++) {
                reads.add(new IoOp.L2Read(tickets.incrementAndGet(), group[i], blockBytes, (long) i * blockBytes, batchId, group.length));
            }
            CountDownLatch done = new CountDownLatch(group.length);
            tierlab.model.io.StoragePort.CompletionSink sink = (op, completion) -> {
                if (!completion.succeeded()) {
                    errors.incrementAndGet();
                }
                done.countDown();
            };
            if (batched) {
                backend.submit(reads, sink);
            } else {
                for (IoOp.L2Op read : reads) {
                    backend.submit(List.of(read), sink);
                }
            }
            try {
                if (!done.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("a group of " + group.length + " reads did not complete within 60 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        IoCounters delta = backend.counters().minus(before);
        return new Result(batched ? "batched" : "unbatched", delta.opsCompleted(), delta.batches(), delta.enterCalls(),
                delta.submitEnterCalls(), delta.wakeups(), errors.get());
    }
}
