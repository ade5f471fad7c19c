package tierlab.engine.cuda;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The GPU KV blocks in device memory: one {@code laneBytes} region per (GPU block, lane), carved
 * from slabs of {@code cudaMalloc}. Slabs, not one allocation per lane, because cudaMalloc is slow
 * (and may synchronise the device) and the model only learns GPU block ids as it hands them out;
 * slabs are allocated as new ids appear and freed together at close. Not thread-safe: the model
 * thread is its only user.
 */
final class DeviceBlocks implements AutoCloseable {
    /** Regions per slab: 64 lanes of 2.25 MiB (Qwen3-8B, 16 tokens) make 144 MiB slabs. */
    static final int LANES_PER_SLAB = 64;

    private final CudaApi api;
    private final long laneBytes;
    private final int tp;
    private final Map<Long, Long> addressByLane = new HashMap<>();
    private final List<Long> slabs = new ArrayList<>();
    private long nextInSlab = LANES_PER_SLAB;

    DeviceBlocks(CudaApi api, long laneBytes, int tp) {
        this.api = api;
        this.laneBytes = laneBytes;
        this.tp = tp;
    }

    /**
     * The device address of (block, lane); allocates a slab when needed. Synchronized: the model thread
     * (copies) and the live compute stream thread (payloads of computed blocks) both ask.
     */
    synchronized long address(long gpuBlockId, int lane) {
        long key = gpuBlockId * tp + lane;
        Long address = addressByLane.get(key);
        if (address != null) {
            return address;
        }
        if (nextInSlab == LANES_PER_SLAB) {
            slabs.add(api.malloc(laneBytes * LANES_PER_SLAB));
            nextInSlab = 0;
        }
        long allocated = slabs.getLast() + nextInSlab++ * laneBytes;
        addressByLane.put(key, allocated);
        return allocated;
    }

    int tp() {
        return tp;
    }

    synchronized long allocatedBytes() {
        return slabs.size() * laneBytes * LANES_PER_SLAB;
    }

    /** Every region lies inside one slab and no two regions overlap. */
    synchronized void checkInvariants() {
        long regions = addressByLane.size();
        if (regions > (long) slabs.size() * LANES_PER_SLAB) {
            throw new IllegalStateException(regions + " regions in " + slabs.size() + " slabs of " + LANES_PER_SLAB);
        }
        long distinct = addressByLane.values().stream().distinct().count();
        if (distinct != regions) {
            throw new IllegalStateException("two GPU lanes share a device region");
        }
    }

    @Override
    public void close() {
        for (long slab : slabs) {
            api.free(slab);
        }
        slabs.clear();
        addressByLane.clear();
    }
}
