package tierlab.engine.live;

import java.io.IOException;
import java.nio.file.Path;
import tierlab.engine.persist.IndexFile;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * L2 index persistence for live mode: on clean shutdown the store's index snapshot is written
 * beside the L2 file, and at start it is loaded so a restart keeps the L2 cache. A missing, torn
 * or foreign index (or one for another geometry) is reported in one sentence and the store starts
 * cold: the L2 file's bytes are then simply unreachable until the ring reuses them.
 */
public final class WarmStart {

    /** The store to run with and how it was obtained. */
    public record Opened(TieredStore store, boolean warm, String message) {}

    private WarmStart() {}

    public static Opened open(StoreSettings settings, Path l2Path, DecisionTrace trace) {
        Path indexPath = IndexFile.besideL2(l2Path);
        IndexFile.ExpectedGeometry expected = new IndexFile.ExpectedGeometry(
                Math.toIntExact(settings.slotCount()), settings.geometry().laneBytes(), settings.geometry().tp());
        return switch (IndexFile.read(indexPath, expected)) {
            case IndexFile.Loaded loaded -> new Opened(TieredStore.restore(settings, loaded.snapshot(), trace), true,
                    "warm start: " + loaded.snapshot().entries().size() + " L2 keys from " + indexPath);
            case IndexFile.Missing missing -> new Opened(new TieredStore(settings, trace), false, missing.message());
            case IndexFile.Rejected rejected -> new Opened(new TieredStore(settings, trace), false,
                    rejected.message() + "; starting cold");
        };
    }

    /**
     * Clean shutdown: writes the index (only keys whose L2 writes have landed) beside the L2 file.
     * Call it once the runtime is quiescent.
     */
    public static Path saveOnShutdown(TieredStore store, Path l2Path) throws IOException {
        Path indexPath = IndexFile.besideL2(l2Path);
        IndexFile.write(indexPath, store.snapshot());
        return indexPath;
    }
}
