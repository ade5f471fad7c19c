package tierlab.engine;

/**
 * A snapshot of a backend's counters since it opened. Backends without io_uring report 0 for the
 * io_uring-specific fields ({@code enterCalls}, {@code submitEnterCalls}, {@code fixedBufferTransfers},
 * {@code wakeups}).
 *
 * @param opsSubmitted          operations accepted by {@code submit} (including those failed by validation)
 * @param opsCompleted          completions delivered to sinks, successful or failed
 * @param errors                failed completions (validation, kernel errno, ESHORT, ECLOSED)
 * @param bytesTransferred      bytes moved by successful operations
 * @param batches               {@code submit} calls with at least one operation
 * @param transfers             device requests issued: SQEs for io_uring, positional calls for FileChannel
 * @param fixedBufferTransfers  transfers issued as READ_FIXED / WRITE_FIXED
 * @param splitTransfers        transfers beyond the first of an operation, from splitting large operations
 * @param shortTransferResubmits remainders resubmitted after a short read or write
 * @param enterCalls            io_uring_enter calls, submitting or waiting
 * @param submitEnterCalls      io_uring_enter calls that submitted at least one I/O SQE
 * @param wakeups               times a ring thread blocked in io_uring_enter was woken for new work
 * @param sinkExceptions        exceptions thrown by completion sinks (caught and counted; the backend goes on)
 */
public record IoCounters(long opsSubmitted, long opsCompleted, long errors, long bytesTransferred, long batches,
                         long transfers, long fixedBufferTransfers, long splitTransfers, long shortTransferResubmits,
                         long enterCalls, long submitEnterCalls, long wakeups, long sinkExceptions) {

    /** The counts that happened between {@code earlier} and this snapshot. */
    public IoCounters minus(IoCounters earlier) {
        return new IoCounters(opsSubmitted - earlier.opsSubmitted, opsCompleted - earlier.opsCompleted,
                errors - earlier.errors, bytesTransferred - earlier.bytesTransferred, batches - earlier.batches,
                transfers - earlier.transfers, fixedBufferTransfers - earlier.fixedBufferTransfers,
                splitTransfers - earlier.splitTransfers, shortTransferResubmits - earlier.shortTransferResubmits,
                enterCalls - earlier.enterCalls, submitEnterCalls - earlier.submitEnterCalls,
                wakeups - earlier.wakeups, sinkExceptions - earlier.sinkExceptions);
    }
}
