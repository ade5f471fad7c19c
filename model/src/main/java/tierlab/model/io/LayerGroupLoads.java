package tierlab.model.io;

import java.util.Arrays;

/**
 * Layer-wise loading in the device ports (setting {@code scheduler.loadLayerGroups} = G > 1; docs/policies.md,
 * "Layer-wise loading"), shared by the simulator's ports and the live ones: the copy port splits each load to the GPU into G copies of one layer group each,
 * queued one after another on the host-to-device copy engine, and records when group i of the loads since
 * the last engine step landed; the compute port then computes the step group by group, group i starting
 * once its KV has landed and group i-1 is computed. A step that needed a load so ends at the end of the
 * chain, at most {@code max(copy chain, compute chain)} plus one group's share of the other, instead of
 * copy + compute.
 *
 * <p>The serving engine still issues the step when its loads have completed (its protocol does not change);
 * the overlap is the device's: the step's first layer groups were computed while the last ones copied,
 * which is what a layer-wise kernel launched right after its copies does. No decision of the model
 * depends on G, only the step's completion time.
 *
 * <p>Times are whatever clock the ports run on (virtual in sim, the live runtime's wall clock in live mode),
 * handed in as values; this class reads no clock. Not safe for concurrent use on its own: a live runtime's
 * copy stream and compute port share it under a lock.
 */
public final class LayerGroupLoads {
    private final int groups;
    /** Per layer group: when that group of every load since the last step had landed (MIN: no load). */
    private final long[] landedNs;
    private boolean anyLoad;

    public LayerGroupLoads(int groups) {
        if (groups < 2) {
            throw new IllegalArgumentException("layer-wise loading needs at least 2 groups, was " + groups);
        }
        this.groups = groups;
        this.landedNs = new long[groups];
        Arrays.fill(landedNs, Long.MIN_VALUE);
    }

    public int groups() {
        return groups;
    }

    /** Bytes of layer group {@code group} of a copy of {@code totalBytes}: an even split, the remainder on the last. */
    public long groupBytes(long totalBytes, int group) {
        long share = totalBytes / groups;
        return group == groups - 1 ? totalBytes - share * (groups - 1) : share;
    }

    /**
     * Where layer group {@code group} of a copy of {@code totalBytes} starts: the groups before it, each
     * {@code totalBytes / G} (with {@link #groupBytes}, the one split the simulator's and the live ports use).
     */
    public long groupOffset(long totalBytes, int group) {
        return totalBytes / groups * group;
    }

    /** Layer group {@code group} of a load landed on the GPU at {@code atNs}. */
    public void landed(int group, long atNs) {
        landedNs[group] = Math.max(landedNs[group], atNs);
        anyLoad = true;
    }

    /**
     * When a step of {@code computeNs} that may start at {@code startNs} ends, and forgets the loads it
     * used. Without a load since the last step: {@code startNs + computeNs}. With loads: group i (of
     * {@code computeNs / G}, the remainder on the last) starts when group i of every load has landed and
     * group i-1 is computed; the last group starts no earlier than {@code startNs} (the step exists only
     * once its loads completed).
     */
    public long stepEndNs(long startNs, long computeNs) {
        if (!anyLoad) {
            return startNs + computeNs;
        }
        long groupNs = computeNs / groups;
        long lastGroupNs = computeNs - groupNs * (groups - 1);
        long chainNs = Long.MIN_VALUE;
        for (int group = 0; group < groups; group++) {
            chainNs = Math.max(chainNs, landedNs[group]) + (group == groups - 1 ? lastGroupNs : groupNs);
        }
        Arrays.fill(landedNs, Long.MIN_VALUE);
        anyLoad = false;
        return Math.max(chainNs, startNs + lastGroupNs);
    }
}
