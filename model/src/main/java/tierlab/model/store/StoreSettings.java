package tierlab.model.store;

import java.util.EnumSet;
import java.util.Set;
import tierlab.model.KnownBug;
import tierlab.model.Settings;
import tierlab.model.geometry.Geometry;

/**
 * Every knob of the tiered store, with the reference system's defaults (docs/tiered-store.md numbers
 * in brackets). Validation happens here so a bad value fails with a message naming the setting.
 *
 * @param l1CapacityBytes        pinned host pool size; a multiple of 4 KiB
 * @param l2CapacityBytes        L2 file size; holds {@code l2CapacityBytes / blockBytes} slots
 * @param policy                 L1 replacement policy name ({@code lru}, {@code bip}, ...)
 * @param mruInterval            for {@code bip}: one insertion in this many goes to the most-recent end [32]
 * @param promotionsAsHeadroom   promotions become headroom entries, evicted first and allowed to fill L1 [true]
 * @param headroomFraction       save-admission headroom as a fraction of L1 [0.05]
 * @param ringCount              most L2 reads grouped into one submission batch [8]
 * @param batchL2Reads           group L2 reads into batches (false: one submission per read)
 * @param writeBatchMaxBytes     largest contiguous L2 write of a grouped store [64 MiB]
 * @param stagingSlots           concurrent GPU → L1 staging copies (FIFO semaphore)
 * @param contiguousStaging      stage a grouped store's adjacent slots in one L1 span (false: per slot)
 * @param knownBugs              races to re-introduce (ablation); empty by default
 * @param futureReferences       for {@code belady}: the unit reference stream of a previous run, else null
 */
public record StoreSettings(Geometry geometry, long l1CapacityBytes, long l2CapacityBytes, String policy,
                            int mruInterval, boolean promotionsAsHeadroom, double headroomFraction, int ringCount,
                            boolean batchL2Reads, long writeBatchMaxBytes, int stagingSlots, boolean contiguousStaging,
                            Set<KnownBug> knownBugs, long[] futureReferences) {

    public static final long MIB = 1L << 20;
    public static final long GIB = 1L << 30;

    public StoreSettings {
        if (geometry == null) {
            throw new IllegalArgumentException("geometry must be set");
        }
        Settings.pageAligned("l1CapacityBytes", l1CapacityBytes);
        Settings.positive("l2CapacityBytes", l2CapacityBytes);
        if (l2CapacityBytes < geometry.blockBytes()) {
            throw new IllegalArgumentException("l2CapacityBytes must hold at least one block of "
                    + geometry.blockBytes() + " bytes, was " + l2CapacityBytes);
        }
        if (l1CapacityBytes < geometry.laneBytes()) {
            throw new IllegalArgumentException("l1CapacityBytes must hold at least one block lane of "
                    + geometry.laneBytes() + " bytes, was " + l1CapacityBytes);
        }
        if (policy == null || policy.isBlank()) {
            throw new IllegalArgumentException("policy must be set");
        }
        if (!tierlab.model.policy.Policies.names().contains(policy)) {
            throw new IllegalArgumentException("policy: unknown policy '" + policy + "' (known: "
                    + String.join(", ", tierlab.model.policy.Policies.names()) + ")");
        }
        if (policy.equals("belady") && futureReferences == null) {
            throw new IllegalArgumentException("policy 'belady' needs futureReferences (the future reference stream)");
        }
        Settings.positive("mruInterval", mruInterval);
        if (!(headroomFraction >= 0 && headroomFraction < 1)) {
            throw new IllegalArgumentException("headroomFraction must be in [0, 1), was " + headroomFraction);
        }
        Settings.positive("ringCount", ringCount);
        Settings.pageAligned("writeBatchMaxBytes", writeBatchMaxBytes);
        Settings.positive("stagingSlots", stagingSlots);
        // An EnumSet: has() is asked on hot paths (inside eviction scans), and a bit test is cheap.
        knownBugs = java.util.Collections.unmodifiableSet(knownBugs == null || knownBugs.isEmpty()
                ? EnumSet.noneOf(KnownBug.class) : EnumSet.copyOf(knownBugs));
    }

    /** The reference defaults for a geometry and the two capacities. */
    public static StoreSettings defaults(Geometry geometry, long l1CapacityBytes, long l2CapacityBytes) {
        return new StoreSettings(geometry, l1CapacityBytes, l2CapacityBytes, "lru", 32, true, 0.05, 8, true,
                64 * MIB, 4, true, Set.of(), null);
    }

    public long slotCount() {
        return l2CapacityBytes / geometry.blockBytes();
    }

    /** headroom = min(L1, roundup_4KiB(max(4096, ceil(L1 × fraction)))) */
    public long headroomBytes() {
        long fractionBytes = (long) Math.ceil(l1CapacityBytes * headroomFraction);
        return Math.min(l1CapacityBytes, Settings.roundUpToPage(Math.max(Settings.PAGE_BYTES, fractionBytes)));
    }

    /** high_water = L1 − headroom: save admission trims L1 down to here. */
    public long highWaterBytes() {
        return l1CapacityBytes - headroomBytes();
    }

    public boolean has(KnownBug bug) {
        return knownBugs.contains(bug);
    }

    public StoreSettings withPolicy(String newPolicy) {
        return new StoreSettings(geometry, l1CapacityBytes, l2CapacityBytes, newPolicy, mruInterval, promotionsAsHeadroom,
                headroomFraction, ringCount, batchL2Reads, writeBatchMaxBytes, stagingSlots, contiguousStaging, knownBugs, futureReferences);
    }

    public StoreSettings withPromotionsAsHeadroom(boolean asHeadroom) {
        return new StoreSettings(geometry, l1CapacityBytes, l2CapacityBytes, policy, mruInterval, asHeadroom,
                headroomFraction, ringCount, batchL2Reads, writeBatchMaxBytes, stagingSlots, contiguousStaging, knownBugs, futureReferences);
    }

    public StoreSettings withKnownBugs(Set<KnownBug> bugs) {
        return new StoreSettings(geometry, l1CapacityBytes, l2CapacityBytes, policy, mruInterval, promotionsAsHeadroom,
                headroomFraction, ringCount, batchL2Reads, writeBatchMaxBytes, stagingSlots, contiguousStaging, bugs, futureReferences);
    }

    public StoreSettings withStaging(int slots, boolean contiguous) {
        return new StoreSettings(geometry, l1CapacityBytes, l2CapacityBytes, policy, mruInterval, promotionsAsHeadroom,
                headroomFraction, ringCount, batchL2Reads, writeBatchMaxBytes, slots, contiguous, knownBugs, futureReferences);
    }

    public StoreSettings withReadBatching(int rings, boolean batched) {
        return new StoreSettings(geometry, l1CapacityBytes, l2CapacityBytes, policy, mruInterval, promotionsAsHeadroom,
                headroomFraction, rings, batched, writeBatchMaxBytes, stagingSlots, contiguousStaging, knownBugs, futureReferences);
    }

    public StoreSettings withHeadroomFraction(double fraction) {
        return new StoreSettings(geometry, l1CapacityBytes, l2CapacityBytes, policy, mruInterval, promotionsAsHeadroom,
                fraction, ringCount, batchL2Reads, writeBatchMaxBytes, stagingSlots, contiguousStaging, knownBugs, futureReferences);
    }
}
