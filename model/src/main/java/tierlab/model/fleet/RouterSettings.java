package tierlab.model.fleet;

import tierlab.model.Registry;

/**
 * A fleet router's settings, as an experiment's {@code fleet.router} section gives them.
 *
 * @param policy        the router's registry name ({@link Routers})
 * @param sees          which caches the router sees: the instances' GPU caches only, or their store tiers too
 * @param load          the load signal of {@code least-loaded}, of {@code prefix-affinity}'s bound
 * @param loadBound     {@code prefix-affinity}: an instance is a candidate only while its load is at most
 *                      this many times the fleet's mean (or it is the least loaded); ≥ 1
 * @param overlapWeight {@code kv-cost}: the weight of prefill blocks against decode blocks
 * @param l1Weight      {@code kv-cost}: credit per block found in L1 beyond the GPU prefix (all-tiers)
 * @param l2Weight      {@code kv-cost}: credit per block found only in L2 (all-tiers)
 */
public record RouterSettings(String policy, View sees, LoadSignal load, double loadBound, double overlapWeight,
                             double l1Weight, double l2Weight) {

    /** Which caches the router sees. */
    public enum View { GPU_ONLY, ALL_TIERS }

    /** What a router counts as an instance's load. */
    public enum LoadSignal { QUEUE, KV }

    /** The names files use for {@link View}, in order. */
    public static final Registry<View> VIEWS = Registry.<View>of("router view")
            .add("gpu-only", View.GPU_ONLY).add("all-tiers", View.ALL_TIERS).build();

    /** The names files use for {@link LoadSignal}, in order. */
    public static final Registry<LoadSignal> LOADS = Registry.<LoadSignal>of("load signal")
            .add("queue", LoadSignal.QUEUE).add("kv", LoadSignal.KV).build();

    public RouterSettings {
        Routers.ROUTERS.get("fleet.router.policy", policy);
        if (sees == null || load == null) {
            throw new IllegalArgumentException("fleet.router: sees and load must be set");
        }
        if (!(loadBound >= 1.0) || Double.isInfinite(loadBound)) {
            throw new IllegalArgumentException("fleet.router.loadBound: must be a number >= 1, was " + loadBound);
        }
        if (!(overlapWeight >= 0) || !(l1Weight >= 0) || !(l2Weight >= 0)) {
            throw new IllegalArgumentException("fleet.router: overlapWeight, l1Weight and l2Weight must be >= 0, were "
                    + overlapWeight + ", " + l1Weight + ", " + l2Weight);
        }
    }

    /**
     * {@code policy} with the defaults: sees GPU caches only, queue load, bound 1.25, and
     * {@code kv-cost}'s weights 1 (overlap), 1 (L1) and 0.5 (L2).
     */
    public static RouterSettings of(String policy) {
        return new RouterSettings(policy, View.GPU_ONLY, LoadSignal.QUEUE, 1.25, 1.0, 1.0, 0.5);
    }

    public RouterSettings seeing(View view) {
        return new RouterSettings(policy, view, load, loadBound, overlapWeight, l1Weight, l2Weight);
    }

    public RouterSettings withLoad(LoadSignal signal) {
        return new RouterSettings(policy, sees, signal, loadBound, overlapWeight, l1Weight, l2Weight);
    }

    public RouterSettings withLoadBound(double bound) {
        return new RouterSettings(policy, sees, load, bound, overlapWeight, l1Weight, l2Weight);
    }

    public RouterSettings withWeights(double overlap, double l1, double l2) {
        return new RouterSettings(policy, sees, load, loadBound, overlap, l1, l2);
    }
}
