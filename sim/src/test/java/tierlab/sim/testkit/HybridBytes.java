package tierlab.sim.testkit;

import java.nio.file.Path;
import tierlab.engine.BlockingStorage;
import tierlab.engine.PinnedArena;
import tierlab.engine.StoragePorts;
import tierlab.model.io.StoragePort;
import tierlab.model.store.StoreSettings;
import tierlab.sim.hybrid.RealBytes;

/**
 * Real bytes for a hybrid run: a pinned arena as large as the store's L1, the best storage port
 * (io_uring, FileChannel where io_uring is refused) on an L2 file as large as its L2, and the
 * {@link RealBytes} that moves every simulated read, write and copy through them. Closing it closes
 * all three, the bytes first.
 *
 * @param arena the real L1
 * @param port  the real L2 port
 * @param bytes what a {@code SimRuntime} is given with {@code setRealBytes}
 */
public record HybridBytes(PinnedArena arena, StoragePort port, RealBytes bytes) implements AutoCloseable {
    /** How long one blocking storage call may take before the run fails: far above any healthy drive. */
    public static final long STORAGE_TIMEOUT_NS = 10_000_000_000L;

    /** Allocates the arena and opens {@code l2File} for the capacities and geometry of {@code settings}. */
    public static HybridBytes open(StoreSettings settings, Path l2File) throws Exception {
        PinnedArena arena = PinnedArena.allocate(settings.l1CapacityBytes(), false);
        try {
            StoragePort port = StoragePorts.open(l2File, arena, settings.l2CapacityBytes());
            try {
                return new HybridBytes(arena, port, new RealBytes(arena, new BlockingStorage(port, STORAGE_TIMEOUT_NS),
                        settings.geometry().laneBytes(), settings.geometry().tp()));
            } catch (RuntimeException | Error e) {
                port.close();
                throw e;
            }
        } catch (Exception | Error e) {
            arena.close();
            throw e;
        }
    }

    @Override
    public void close() {
        try (PinnedArena closedLast = arena; StoragePort closedSecond = port; RealBytes closedFirst = bytes) {
            // try-with-resources closes in reverse order and keeps every failure.
        }
    }
}
