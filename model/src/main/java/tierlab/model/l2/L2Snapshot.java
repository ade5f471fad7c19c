package tierlab.model.l2;

import java.util.List;

/**
 * The L2 index and ring as plain data: what the engine writes beside the L2 file on clean
 * shutdown and reads back at start so a warm restart keeps the L2 cache. Only committed keys are
 * kept; a store that was in flight at shutdown is lost and its slots are reclaimed by the ring.
 *
 * @param slotCount  slots in the file, checked against the configuration on restore
 * @param laneBytes  bytes per lane, checked likewise (a different model shape is a foreign index)
 * @param tp         tensor parallel degree, checked likewise
 */
public record L2Snapshot(int slotCount, long laneBytes, int tp, int head, long nextRunId,
                         List<L2Ring.Run> runsOldestFirst, List<L2Index.EntryRecord> entries) {
    public L2Snapshot {
        runsOldestFirst = List.copyOf(runsOldestFirst);
        entries = List.copyOf(entries);
    }
}
