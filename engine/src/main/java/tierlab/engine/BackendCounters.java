package tierlab.engine;

import java.util.concurrent.atomic.LongAdder;

/** The live counters behind {@link IoCounters}; written from ring or worker threads, read by anyone. */
final class BackendCounters {

    final LongAdder opsSubmitted = new LongAdder();
    final LongAdder opsCompleted = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder bytesTransferred = new LongAdder();
    final LongAdder batches = new LongAdder();
    final LongAdder transfers = new LongAdder();
    final LongAdder fixedBufferTransfers = new LongAdder();
    final LongAdder splitTransfers = new LongAdder();
    final LongAdder shortTransferResubmits = new LongAdder();
    final LongAdder enterCalls = new LongAdder();
    final LongAdder submitEnterCalls = new LongAdder();
    final LongAdder wakeups = new LongAdder();
    final LongAdder sinkExceptions = new LongAdder();

    IoCounters snapshot() {
        return new IoCounters(opsSubmitted.sum(), opsCompleted.sum(), errors.sum(), bytesTransferred.sum(),
                batches.sum(), transfers.sum(), fixedBufferTransfers.sum(), splitTransfers.sum(),
                shortTransferResubmits.sum(), enterCalls.sum(), submitEnterCalls.sum(), wakeups.sum(),
                sinkExceptions.sum());
    }
}
