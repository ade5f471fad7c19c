package tierlab.model.fleet;

import tierlab.model.Registry;

/**
 * An experiment's {@code fleet} section: how many serving instances, whether their stores share
 * one L2 pool, and the router in front of them.
 *
 * @param instances how many instances (≥ 1); each has its own GPU cache, L1 and store
 * @param pool      {@link Pool#SHARED}: every store serves from one L2 pool on one storage device;
 *                  {@link Pool#PRIVATE}: each instance has its own L2 pool and device
 * @param router    the router's settings
 */
public record FleetSettings(int instances, Pool pool, RouterSettings router) {

    /** Whether the instances share one L2 pool. */
    public enum Pool { SHARED, PRIVATE }

    /** The names files use for {@link Pool}, in order. */
    public static final Registry<Pool> POOLS = Registry.<Pool>of("pool").add("shared", Pool.SHARED)
            .add("private", Pool.PRIVATE).build();

    public FleetSettings {
        if (instances < 1) {
            throw new IllegalArgumentException("fleet.instances: must be >= 1, was " + instances);
        }
        if (pool == null || router == null) {
            throw new IllegalArgumentException("fleet: pool and router must be set");
        }
    }
}
