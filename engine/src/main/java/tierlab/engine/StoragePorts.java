package tierlab.engine;

import java.io.IOException;
import java.nio.file.Path;
import tierlab.model.io.StoragePort;

/**
 * Opens the best storage port this machine allows: the io_uring engine where the kernel and
 * sandbox permit io_uring, otherwise the FileChannel backend. Both get the L2 file sized to
 * {@code l2Bytes} and the same arena.
 */
public final class StoragePorts {
    private StoragePorts() {}

    public static StoragePort open(Path l2Path, PinnedArena arena, long l2Bytes) throws IOException {
        if (IoUringBackend.probe().available()) {
            return IoUringBackend.open(l2Path, arena, IoUringSettings.defaults().withL2PreallocateBytes(l2Bytes));
        }
        return FileChannelBackend.open(l2Path, arena, FileChannelSettings.defaults().withL2PreallocateBytes(l2Bytes));
    }

    /**
     * Storage submissions a real port has made so far: io_uring_enter calls, or the FileChannel
     * backend's batches (0 for a port that does not count them).
     */
    public static long submissions(StoragePort port) {
        return switch (port) {
            case IoUringBackend uring -> uring.counters().submitEnterCalls();
            case FileChannelBackend channel -> channel.counters().batches();
            default -> 0;
        };
    }
}
