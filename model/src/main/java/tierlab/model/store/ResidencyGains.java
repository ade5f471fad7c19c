package tierlab.model.store;

import tierlab.model.l2.L2Index;
import tierlab.model.store.TieredStore.MixedOrL2Witness;

/**
 * The stamps of L1 content gains per unit that {@link L1Space} keeps for the lookup witnesses
 * ({@link MixedOrL2Witness}): a witness that a chain is not wholly in L1 holds while its unit has
 * gained no content since and no L2 index entry was removed, which is asked in constant time.
 */
final class ResidencyGains {

    /**
     * Per unit index, the value of {@link #gains} when the unit last gained L1 content (was published,
     * or had its content set). With {@link L2Index#removals()} it tells whether a {@link MixedOrL2Witness}
     * still holds: see {@link Leases#mixedOrL2Witness}.
     */
    private final long[] gainByUnit;
    private long gains;

    /**
     * Per unit index, how many witnesses a caller has asked to {@link #watch}; a gain on a watched
     * unit bumps {@link #watchedGains}, so a caller holding many witnesses can tell in constant time
     * that none of them can have broken.
     */
    private final int[] watchersByUnit;
    private long watchedGains;
    private final L2Index index;

    ResidencyGains(int unitCount, L2Index index) {
        this.gainByUnit = new long[unitCount];
        this.watchersByUnit = new int[unitCount];
        this.index = index;
    }

    /** The unit (by index) gained L1 content, or may have. */
    void gained(int unitIndex) {
        gainByUnit[unitIndex] = ++gains;
        if (watchersByUnit[unitIndex] > 0) {
            watchedGains++;
        }
    }

    void watch(MixedOrL2Witness witness) {
        watchersByUnit[witness.unitIndex()]++;
    }

    void unwatch(MixedOrL2Witness witness) {
        watchersByUnit[witness.unitIndex()]--;
    }

    /**
     * Gains of L1 content on watched units so far. While this and {@link L2Index#removals()} are
     * unchanged, every watched witness that held still holds.
     */
    long watchedGains() {
        return watchedGains;
    }

    /** Gains of L1 content so far, on any unit. */
    long gains() {
        return gains;
    }

    /** Whether {@code witness} still holds: no removal from the L2 index and no gain on its unit since it was taken. */
    boolean witnessHolds(MixedOrL2Witness witness) {
        return index.removals() == witness.indexRemovalsAt() && gainByUnit[witness.unitIndex()] <= witness.residencyGainsAt();
    }
}
