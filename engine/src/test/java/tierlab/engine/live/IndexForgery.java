package tierlab.engine.live;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tierlab.engine.persist.IndexFile;
import tierlab.engine.persist.UnitChecksums;
import tierlab.model.geometry.BlockKey;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Snapshot;

/**
 * Indexes rewritten the way an adversary would, whole and with a valid file checksum: keys swapped
 * between two slots, or a slot's key replaced by one the file never held. With the unit checksums
 * left as saved (bound to the keys they were saved with), a warm start must refuse them; with the
 * unit checksums recomputed for the forged keys, only the run's payload checks can tell.
 */
final class IndexForgery {

    private IndexForgery() {}

    /**
     * Swaps the keys of the first two entries that share a parent (the first blocks of two prompts:
     * the index stays consistent with itself, each key's children still find it); false when there
     * is no such pair.
     */
    static boolean swapKeys(Path l2, boolean recomputeUnitChecksums) throws IOException {
        IndexFile.Loaded loaded = load(l2);
        if (loaded == null) {
            return false;
        }
        List<L2Index.EntryRecord> entries = new ArrayList<>(loaded.snapshot().entries());
        for (int i = 0; i < entries.size(); i++) {
            for (int j = i + 1; j < entries.size(); j++) {
                L2Index.EntryRecord a = entries.get(i);
                L2Index.EntryRecord b = entries.get(j);
                if (a.parent().equals(b.parent()) && a.tokenCount() == b.tokenCount()) {
                    entries.set(i, new L2Index.EntryRecord(b.key(), a.parent(), a.slot(), a.tokenCount(), a.runId(), a.version()));
                    entries.set(j, new L2Index.EntryRecord(a.key(), b.parent(), b.slot(), b.tokenCount(), b.runId(), b.version()));
                    rewrite(l2, loaded, entries, recomputeUnitChecksums);
                    return true;
                }
            }
        }
        return false;
    }

    /** Gives the first leaf entry a key the L2 file never held; false when the index has no entry. */
    static boolean foreignKey(Path l2, boolean recomputeUnitChecksums) throws IOException {
        IndexFile.Loaded loaded = load(l2);
        if (loaded == null) {
            return false;
        }
        List<L2Index.EntryRecord> entries = new ArrayList<>(loaded.snapshot().entries());
        for (int i = 0; i < entries.size(); i++) {
            L2Index.EntryRecord e = entries.get(i);
            if (!hasChild(entries, e.key())) {
                BlockKey stranger = BlockKey.fromTraceId(e.parent(), 987_654, i);
                entries.set(i, new L2Index.EntryRecord(stranger, e.parent(), e.slot(), e.tokenCount(), e.runId(), e.version()));
                rewrite(l2, loaded, entries, recomputeUnitChecksums);
                return true;
            }
        }
        return false;
    }

    private static IndexFile.Loaded load(Path l2) {
        return IndexFile.read(IndexFile.besideL2(l2), WarmStart.geometryOf(WarmRestartHarness.SETTINGS)) instanceof IndexFile.Loaded
                loaded && !loaded.snapshot().entries().isEmpty() ? loaded : null;
    }

    private static boolean hasChild(List<L2Index.EntryRecord> entries, BlockKey key) {
        return entries.stream().anyMatch(e -> e.parent().equals(key));
    }

    private static void rewrite(Path l2, IndexFile.Loaded loaded, List<L2Index.EntryRecord> entries, boolean recompute)
            throws IOException {
        L2Snapshot old = loaded.snapshot();
        L2Snapshot forged = new L2Snapshot(old.slotCount(), old.laneBytes(), old.tp(), old.head(), old.nextRunId(),
                old.runsOldestFirst(), entries);
        int[] units = recompute ? UnitChecksums.compute(l2, forged) : loaded.contents().unitCrc32c();
        IndexFile.write(IndexFile.besideL2(l2), new IndexFile.Contents(forged, loaded.contents().stamp(), units));
    }
}
