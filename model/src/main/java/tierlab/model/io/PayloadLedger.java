package tierlab.model.io;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.io.IoOp.Content;
import tierlab.model.util.OffsetTable;

/**
 * Follows payload identity through every copy without moving bytes: which block lane's KV sits
 * in each L1 lane-sized cell, each L2 unit and each GPU block lane. Applying the model's
 * operations at their completion, in the order a backend completes them, makes every stale or
 * torn read visible as a mismatch (I6), exactly as real payload verification does in hybrid and
 * live mode, but at simulation speed.
 *
 * <p>Contents are looked up by position only; no map is iterated to decide anything. The ledger
 * updates one entry per lane of every copy, so its maps are {@link OffsetTable}s: L1 cells and L2
 * units are lane-strided byte offsets and GPU block lanes small numbers, which index paged arrays
 * directly instead of being hashed.
 */
public final class PayloadLedger {

    private final long laneBytes;
    private final int tp;
    private final OffsetTable<Content> l1ByOffset;
    private final OffsetTable<Content> l2ByOffset;
    /** Keyed by {@link #gpuLane}. */
    private final OffsetTable<Content> gpuByBlockLane = new OffsetTable<>(1);
    private long loadMatches;
    private long loadMismatches;
    private long stagingMismatches;
    private final List<String> mismatchExamples = new ArrayList<>();

    public PayloadLedger(long laneBytes, int tp) {
        this(laneBytes, tp, new OffsetTable<>(laneBytes));
    }

    private PayloadLedger(long laneBytes, int tp, OffsetTable<Content> l2ByOffset) {
        this.laneBytes = laneBytes;
        this.tp = tp;
        this.l1ByOffset = new OffsetTable<>(laneBytes);
        this.l2ByOffset = l2ByOffset;
    }

    /**
     * A ledger of another process on the same host whose L2 is {@code other}'s (a fleet's shared
     * pool): its own L1 and GPU, one L2, so a read of a unit another instance wrote is checked
     * against what that instance wrote.
     */
    public static PayloadLedger sharingL2With(PayloadLedger other) {
        return new PayloadLedger(other.laneBytes, other.tp, other.l2ByOffset);
    }

    /** Applies a completed operation; a failed one moves nothing. */
    public void apply(IoOp op, boolean succeeded) {
        if (!succeeded) {
            return;
        }
        switch (op) {
            case IoOp.L2Read read -> {
                for (long i = 0; i < read.lengthBytes(); i += laneBytes) {
                    put(l1ByOffset, read.l1Offset() + i, l2ByOffset.get(read.l2Offset() + i));
                }
            }
            case IoOp.L2Write write -> {
                for (long i = 0; i < write.lengthBytes(); i += laneBytes) {
                    put(l2ByOffset, write.l2Offset() + i, l1ByOffset.get(write.l1Offset() + i));
                }
            }
            case IoOp.CopyFromGpu copy -> {
                for (int i = 0; i < copy.gpuBlockIds().size(); i++) {
                    Content actual = gpuByBlockLane.get(gpuLane(copy.gpuBlockIds().get(i), copy.lane()));
                    put(l1ByOffset, copy.l1Offset() + i * laneBytes, actual);
                    if (!copy.expected().get(i).equals(actual)) {
                        stagingMismatches++;
                        note("staging of request " + copy.requestId() + " expected " + copy.expected().get(i) + " got " + actual);
                    }
                }
            }
            case IoOp.CopyToGpu copy -> {
                // Indexed loops: the ledger sees every copy, and a list iterator per copy is garbage.
                List<IoOp.GpuLoadSegment> segments = copy.segments();
                for (int s = 0; s < segments.size(); s++) {
                    IoOp.GpuLoadSegment segment = segments.get(s);
                    Content actual = l1ByOffset.get(segment.l1Offset());
                    put(gpuByBlockLane, gpuLane(segment.gpuBlockId(), segment.expected().lane()), actual);
                    if (segment.expected().equals(actual)) {
                        loadMatches++;
                    } else {
                        loadMismatches++;
                        note("load of request " + copy.requestId() + " expected " + segment.expected() + " got " + actual);
                    }
                }
            }
            case IoOp.Compute compute -> {
                List<IoOp.ComputeItem> items = compute.items();
                for (int i = 0; i < items.size(); i++) {
                    List<IoOp.GpuBlockWrite> writes = items.get(i).blocksCompleted();
                    for (int w = 0; w < writes.size(); w++) {
                        IoOp.GpuBlockWrite write = writes.get(w);
                        for (int lane = 0; lane < tp; lane++) {
                            gpuByBlockLane.put(gpuLane(write.gpuBlockId(), lane), new Content(write.key(), lane));
                        }
                    }
                }
            }
        }
    }

    /** The key of a GPU block lane: block ids are small and dense, so lanes of one block sit side by side. */
    private long gpuLane(long gpuBlockId, int lane) {
        return gpuBlockId * tp + lane;
    }

    private static void put(OffsetTable<Content> map, long key, Content content) {
        if (content == null) {
            map.remove(key);
        } else {
            map.put(key, content);
        }
    }

    private void note(String example) {
        if (mismatchExamples.size() < 20) {
            mismatchExamples.add(example);
        }
    }

    /**
     * I7 after quiescence: every unit of every visible L2 entry holds the bytes of that entry's
     * key (the last store of the range won). Call only when no write is in flight.
     *
     * @param unitOffsets the store's unit offset of (slot, lane)
     * @return the number of units whose L2 bytes are not their key's (0 when I7 holds)
     */
    public long l2Disagreements(java.util.List<tierlab.model.l2.L2Index.EntryRecord> visible, int tp,
                                java.util.function.BiFunction<Integer, Integer, Long> unitOffsets) {
        long wrong = 0;
        for (tierlab.model.l2.L2Index.EntryRecord entry : visible) {
            for (int lane = 0; lane < tp; lane++) {
                Content actual = l2ByOffset.get(unitOffsets.apply(entry.slot(), lane));
                if (!new Content(entry.key(), lane).equals(actual)) {
                    wrong++;
                    note("L2 unit of " + entry.key() + " lane " + lane + " holds " + actual);
                }
            }
        }
        return wrong;
    }

    /** A process crash: pinned host memory and GPU memory are gone; L2 (the file) survives. */
    public void crash() {
        l1ByOffset.clear();
        gpuByBlockLane.clear();
    }

    /** What an L2 unit holds now (null: never written). */
    public Content l2At(long l2Offset) {
        return l2ByOffset.get(l2Offset);
    }

    /** What an L1 lane cell holds now (null: never written). */
    public Content l1At(long l1Offset) {
        return l1ByOffset.get(l1Offset);
    }

    public long loadMatches() {
        return loadMatches;
    }

    /** Loads that delivered other bytes than the request expected: I6 violations. */
    public long loadMismatches() {
        return loadMismatches;
    }

    /** Staging copies that read GPU blocks holding another request's KV (R10). */
    public long stagingMismatches() {
        return stagingMismatches;
    }

    public long mismatches() {
        return loadMismatches + stagingMismatches;
    }

    public List<String> mismatchExamples() {
        return List.copyOf(mismatchExamples);
    }
}
