package tierlab.model.io;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tierlab.model.io.IoOp.Content;

/**
 * Follows payload identity through every copy without moving bytes: which block lane's KV sits
 * in each L1 lane-sized cell, each L2 unit and each GPU block lane. Applying the model's
 * operations at their completion, in the order a backend completes them, makes every stale or
 * torn read visible as a mismatch (I6), exactly as real payload verification does in hybrid and
 * live mode, but at simulation speed.
 *
 * <p>Contents are looked up by offset only; no map is iterated to decide anything. The offset
 * maps are keyed by {@link #cell}, a bijective mix of the offset: L2 units are multiples of the
 * lane size (a multiple of a large power of two), so boxed offsets would all land in a few hash
 * buckets, which then degrade to trees.
 */
public final class PayloadLedger {

    private record GpuLane(long gpuBlockId, int lane) {}

    private final long laneBytes;
    private final int tp;
    private final Map<Long, Content> l1ByOffset = new HashMap<>();
    private final Map<Long, Content> l2ByOffset = new HashMap<>();
    private final Map<GpuLane, Content> gpuByBlockLane = new HashMap<>();
    private long loadMatches;
    private long loadMismatches;
    private long stagingMismatches;
    private final List<String> mismatchExamples = new ArrayList<>();

    public PayloadLedger(long laneBytes, int tp) {
        this.laneBytes = laneBytes;
        this.tp = tp;
    }

    /** Applies a completed operation; a failed one moves nothing. */
    public void apply(IoOp op, boolean succeeded) {
        if (!succeeded) {
            return;
        }
        switch (op) {
            case IoOp.L2Read read -> {
                for (long i = 0; i < read.lengthBytes(); i += laneBytes) {
                    put(l1ByOffset, cell(read.l1Offset() + i), l2ByOffset.get(cell(read.l2Offset() + i)));
                }
            }
            case IoOp.L2Write write -> {
                for (long i = 0; i < write.lengthBytes(); i += laneBytes) {
                    put(l2ByOffset, cell(write.l2Offset() + i), l1ByOffset.get(cell(write.l1Offset() + i)));
                }
            }
            case IoOp.CopyFromGpu copy -> {
                for (int i = 0; i < copy.gpuBlockIds().size(); i++) {
                    Content actual = gpuByBlockLane.get(new GpuLane(copy.gpuBlockIds().get(i), copy.lane()));
                    put(l1ByOffset, cell(copy.l1Offset() + i * laneBytes), actual);
                    if (!copy.expected().get(i).equals(actual)) {
                        stagingMismatches++;
                        note("staging of request " + copy.requestId() + " expected " + copy.expected().get(i) + " got " + actual);
                    }
                }
            }
            case IoOp.CopyToGpu copy -> {
                for (IoOp.GpuLoadSegment segment : copy.segments()) {
                    Content actual = l1ByOffset.get(cell(segment.l1Offset()));
                    gpuByBlockLane.put(new GpuLane(segment.gpuBlockId(), segment.expected().lane()), actual);
                    if (segment.expected().equals(actual)) {
                        loadMatches++;
                    } else {
                        loadMismatches++;
                        note("load of request " + copy.requestId() + " expected " + segment.expected() + " got " + actual);
                    }
                }
            }
            case IoOp.Compute compute -> {
                for (IoOp.ComputeItem item : compute.items()) {
                    for (IoOp.GpuBlockWrite write : item.blocksCompleted()) {
                        for (int lane = 0; lane < tp; lane++) {
                            gpuByBlockLane.put(new GpuLane(write.gpuBlockId(), lane), new Content(write.key(), lane));
                        }
                    }
                }
            }
        }
    }

    /**
     * The map key of a byte offset: MurmurHash3's 64-bit finaliser, a bijection (xor-shifts and
     * multiplications by odd constants are invertible), so distinct offsets stay distinct keys while
     * the high bits that tell lane-aligned offsets apart reach the low bits the hash table indexes by.
     */
    static long cell(long offset) {
        long x = offset;
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        x ^= x >>> 33;
        return x;
    }

    private static <K> void put(Map<K, Content> map, K key, Content content) {
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
                Content actual = l2ByOffset.get(cell(unitOffsets.apply(entry.slot(), lane)));
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
        return l2ByOffset.get(cell(l2Offset));
    }

    /** What an L1 lane cell holds now (null: never written). */
    public Content l1At(long l1Offset) {
        return l1ByOffset.get(cell(l1Offset));
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
