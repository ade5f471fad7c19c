package tierlab.sim.fleet;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.fleet.FleetSettings;
import tierlab.model.fleet.InstanceView;
import tierlab.model.fleet.Router;
import tierlab.model.fleet.RouterSettings;
import tierlab.model.fleet.Routers;
import tierlab.model.io.PayloadLedger;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.L2Pool;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.StoredPrefix;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.SeedTree;
import tierlab.sim.SimRuntime;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.GpuModel;
import tierlab.sim.device.StorageModels;
import tierlab.sim.kernel.Simulator;

/**
 * A fleet in the simulator: several serving instances (each a {@link SimRuntime} with its own
 * engine, GPU cache, L1 and store) on one simulator clock, a {@link Router} in front of them, and
 * either one L2 pool that every store serves from (on one storage device, one L2 payload identity)
 * or a pool and device per instance (docs/fleet.md).
 *
 * <p>Deterministic as one runtime is: one event queue, events at one instant in the order they were
 * scheduled, routing at each arrival from the instances' state then, ties to the lowest index.
 * When an instance's action changes another's store through the shared pool (it dropped that
 * store's L1 copies, or released a lease the other's write waits for), the other is resumed by an
 * event at the same instant, in instance order.
 */
public final class FleetRuntime {

    private final Simulator simulator;
    private final List<SimRuntime> instances;
    private final List<DecisionTrace> traces;
    private final Router router;
    private final RouterSettings.View view;
    private final L2Pool sharedPool;
    private final boolean[] resumeScheduled;
    private final long[] routedByInstance;
    private final DecisionTrace routes = new DecisionTrace();
    private final int blockTokens;

    private FleetRuntime(Simulator simulator, List<SimRuntime> instances, List<DecisionTrace> traces,
                         RouterSettings routerSettings, L2Pool sharedPool) {
        this.simulator = simulator;
        this.instances = List.copyOf(instances);
        this.traces = List.copyOf(traces);
        this.router = Routers.create(routerSettings, instances.size());
        this.view = routerSettings.sees();
        this.sharedPool = sharedPool;
        this.resumeScheduled = new boolean[instances.size()];
        this.routedByInstance = new long[instances.size()];
        this.blockTokens = instances.getFirst().store().settings().geometry().blockTokens();
        for (int i = 0; i < instances.size(); i++) {
            int instance = i;
            this.instances.get(i).setAfterPump(() -> afterPump(instance));
        }
    }

    /**
     * A fleet of {@code fleet.instances()} identical instances: each a store of {@code store}'s
     * settings (over one shared pool, or its own) and an engine of {@code scheduler}'s, on
     * {@code profile}'s devices, every random stream drawn from {@code seeds} by instance.
     */
    public static FleetRuntime of(FleetSettings fleet, StoreSettings store, SchedulerSettings scheduler,
                                  DeviceProfile profile, SeedTree seeds) {
        Simulator simulator = new Simulator();
        boolean shared = fleet.pool() == FleetSettings.Pool.SHARED;
        L2Pool pool = shared ? L2Pool.empty(store) : null;
        SimRuntime.SharedHost host = shared ? new SimRuntime.SharedHost(simulator,
                StorageModels.device(profile, seeds::seedOf),
                new PayloadLedger(store.geometry().laneBytes(), store.geometry().tp())) : null;
        List<SimRuntime> runtimes = new ArrayList<>();
        List<DecisionTrace> traces = new ArrayList<>();
        for (int i = 0; i < fleet.instances(); i++) {
            DecisionTrace trace = new DecisionTrace();
            TieredStore instanceStore = shared ? new TieredStore(store, trace, pool) : new TieredStore(store, trace);
            ServingEngine engine = ServingEngines.create(scheduler, instanceStore, trace);
            SeedTree instanceSeeds = new SeedTree(seeds.seedOf("instance-" + i));
            // A private pool is a host of its own (own drive, own L2 bytes) on the fleet's clock.
            SimRuntime.SharedHost instanceHost = shared ? host : new SimRuntime.SharedHost(simulator,
                    StorageModels.device(profile, instanceSeeds::seedOf),
                    new PayloadLedger(store.geometry().laneBytes(), store.geometry().tp()));
            runtimes.add(new SimRuntime(engine, profile, instanceSeeds, GpuModel.opener(profile.gpu().computeModel()),
                    instanceHost));
            traces.add(trace);
        }
        return new FleetRuntime(simulator, runtimes, traces, fleet.router(), pool);
    }

    /** Schedules a request's arrival at the fleet's router at its {@code arrivalNs}. */
    public void submit(RequestSpec spec) {
        simulator.at(spec.arrivalNs(), now -> route(spec, now));
    }

    private void route(RequestSpec spec, long nowNs) {
        List<InstanceView> views = new ArrayList<>(instances.size());
        boolean prefixes = router.readsPrefixes();
        for (int i = 0; i < instances.size(); i++) {
            views.add(viewOf(i, spec, prefixes));
        }
        int chosen = router.route(spec, views, blockTokens);
        if (chosen < 0 || chosen >= instances.size()) {
            throw new IllegalStateException("router chose instance " + chosen + " of " + instances.size());
        }
        routedByInstance[chosen]++;
        routes.record("route", spec.requestId(), chosen);
        instances.get(chosen).submitNow(spec, nowNs);
    }

    /** What the router sees of instance {@code i} for {@code spec}. */
    InstanceView viewOf(int i, RequestSpec spec, boolean prefixes) {
        ServingEngine engine = instances.get(i).scheduler();
        long total = engine.settings().gpuKvBlocks();
        int gpu = prefixes ? engine.gpuCachedPrefixBlocks(spec.chain()) : 0;
        StoredPrefix stored = prefixes && view == RouterSettings.View.ALL_TIERS
                ? engine.store().storedPrefix(spec.chain()) : new StoredPrefix(0, 0);
        return new InstanceView(i, engine.waitingCount() + engine.runningCount(), total - engine.freeGpuBlockCount(),
                total, engine.pendingPrefillTokens(), gpu, stored.l1Blocks(), stored.storedBlocks());
    }

    /** After instance {@code from} moved: every instance the shared pool marked changed is resumed, in index order. */
    private void afterPump(int from) {
        if (sharedPool == null) {
            return;
        }
        for (int i = 0; i < instances.size(); i++) {
            SimRuntime instance = instances.get(i);
            if (sharedPool.takeWoken(instance.store().poolMember()) && !resumeScheduled[i]) {
                resumeScheduled[i] = true;
                int resumed = i;
                simulator.at(simulator.nowNs(), now -> {
                    resumeScheduled[resumed] = false;
                    instance.resume(now);
                });
            }
        }
    }

    /** Checks every instance's invariants (and, through each store, the shared pool's) after every event. */
    public void setCheckInvariants(boolean check) {
        instances.forEach(instance -> instance.setCheckInvariants(check));
    }

    /** Runs to quiescence: every request finished on every instance. */
    public void run() {
        simulator.run();
    }

    /** Every instance's store and engine invariants, and the shared pool's (X1–X3) once. */
    public void checkInvariants() {
        for (SimRuntime instance : instances) {
            instance.scheduler().checkInvariants();
            instance.store().checkInvariants();
        }
        if (sharedPool != null) {
            sharedPool.checkInvariants();
        }
    }

    public Simulator simulator() { return simulator; }
    public List<SimRuntime> instances() { return instances; }
    /** Each instance's decision trace (its store's and engine's), in index order. */
    public List<DecisionTrace> traces() { return traces; }
    /** The router's choices, one {@code route} event per request. */
    public DecisionTrace routes() { return routes; }
    /** The shared pool, or null when each instance has its own. */
    public L2Pool sharedPool() { return sharedPool; }

    /** Requests the router sent to each instance, in index order. */
    public long[] routedByInstance() {
        return routedByInstance.clone();
    }
}
