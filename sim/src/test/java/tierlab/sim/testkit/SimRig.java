package tierlab.sim.testkit;

import java.util.List;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.sim.SimRuntime;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.fault.FaultInjector;
import tierlab.sim.fault.FaultSettings;
import tierlab.model.util.SeedTree;

/**
 * The simulator as most tests set it up: a fresh store and serving engine (of the kind the
 * scheduler settings name) sharing one decision trace, on the {@value #DEVICE_PRESET} device
 * preset, every random stream drawn from one seed. Tests keep the trace for its hash and the seed
 * tree for their own named streams (workload, arrivals), which depend only on the seed and the
 * name, so drawing them here or in the test is the same.
 *
 * @param runtime the simulator, before any request was submitted
 * @param trace   the decision trace of the store and the engine
 * @param seeds   the seed tree the runtime draws from
 */
public record SimRig(SimRuntime runtime, DecisionTrace trace, SeedTree seeds) {
    /** The device preset of every rig: Qwen3-8B on an H100 with its NVMe. */
    public static final String DEVICE_PRESET = "qwen3-8b-h100";

    /** A rig over {@code store} and {@code scheduler} settings, seeded with {@code seed}. */
    public static SimRig of(StoreSettings store, SchedulerSettings scheduler, long seed) {
        DecisionTrace trace = new DecisionTrace();
        ServingEngine engine = ServingEngines.create(scheduler, new TieredStore(store, trace), trace);
        SeedTree seeds = new SeedTree(seed);
        return new SimRig(new SimRuntime(engine, DeviceProfile.preset(DEVICE_PRESET), seeds), trace, seeds);
    }

    /**
     * Delays every completion by a seeded draw below {@code windowNs} and faults nothing else, so
     * completions issued close together arrive in any order (the adversarial order of the race tests).
     */
    public void reorderCompletions(long windowNs) {
        runtime.setCompletionFilter(new FaultInjector(new FaultSettings(0, 0, 0, 0, 0, windowNs, 0, 0, List.of()),
                seeds.random("order")));
    }
}
