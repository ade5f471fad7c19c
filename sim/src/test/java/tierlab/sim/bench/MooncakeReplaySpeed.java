package tierlab.sim.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.fleet.FleetSettings;
import tierlab.model.fleet.RouterSettings;
import tierlab.sim.SimRuntime;
import tierlab.sim.fleet.FleetMetrics;
import tierlab.sim.fleet.FleetRuntime;
import tierlab.sim.device.DeviceProfile;
import tierlab.model.util.SeedTree;
import tierlab.metrics.Percentiles;
import tierlab.workload.MooncakeWorkload;

/**
 * Replay speed of the Mooncake trace in data/ in sim mode: simulated time / wall time, the issue's
 * acceptance figure (at least 10,000×). Not a test (timing has no place in unit tests): a plain main
 * that runs the same replay as {@code MooncakeReplayTest} several times in one JVM, discards the
 * warm-up runs, and prints each run's ratio, the median, the engine steps and events per simulated
 * second, and the decision-trace hash (which must not change when the replay is made faster), for
 * every serving engine of the registry ({@link ServingEngines}), the default first; the median
 * lines of all engines come last.
 * Beside wall time it reports the replaying thread's CPU time: on a shared build machine other
 * processes take the cores, and CPU time is then the fairer measure of the simulator's own cost. Each
 * median line ends with the host's load average (1 minute) as the engine's runs began and ended, so a
 * reader can tell whether the wall figure measured tierlab or the other processes.
 *
 * <pre>
 *   java -cp ... tierlab.sim.bench.MooncakeReplaySpeed [timeScale=1] [warmups=2] [runs=3] [trace path]
 * </pre>
 */
public final class MooncakeReplaySpeed {

    private MooncakeReplaySpeed() {}

    public static void main(String[] args) {
        double timeScale = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
        int warmups = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path tracePath = Path.of(args.length > 3 ? args[3] : "data/mooncake_synthetic_trace.jsonl");
        if (!Files.exists(tracePath)) {
            System.err.println("no trace at " + tracePath.toAbsolutePath());
            System.exit(2);
        }
        Geometry geometry = new Geometry(ModelShape.QWEN3_8B, 512, 1);
        List<RequestSpec> requests = MooncakeWorkload.load(tracePath, geometry, new MooncakeWorkload.Options(0, timeScale));
        // Every registered serving engine, the default first: a new engine is measured without an edit here.
        List<String> engines = new ArrayList<>();
        engines.add(SchedulerSettings.DEFAULT_ENGINE);
        ServingEngines.names().stream().filter(name -> !name.equals(SchedulerSettings.DEFAULT_ENGINE)).forEach(engines::add);
        List<String> medians = new ArrayList<>();
        for (String engine : engines) {
            medians.add(measure(engine, geometry, requests, timeScale, warmups, runs));
        }
        medians.forEach(System.out::println);
        System.out.println(measureFleet(geometry, requests, timeScale));
    }

    /** Instances of the fleet line: the trace spread over 16 engines, one shared L2 pool. */
    private static final int FLEET_INSTANCES = 16;

    /**
     * One replay of the trace by a fleet of {@value #FLEET_INSTANCES} default engines behind the
     * prefix-affinity router (store tiers seen) over one shared pool; the line starts with "fleet" so
     * the per-engine lines keep their form.
     */
    private static String measureFleet(Geometry geometry, List<RequestSpec> requests, double timeScale) {
        FleetRuntime fleet = FleetRuntime.of(new FleetSettings(FLEET_INSTANCES, FleetSettings.Pool.SHARED,
                        RouterSettings.of("prefix-affinity").seeing(RouterSettings.View.ALL_TIERS)),
                StoreSettings.defaults(geometry, 64L << 30, 4096L << 30),
                SchedulerSettings.builder(12_000).maxNumSeqs(64).maxBatchedTokens(16_384).build(),
                DeviceProfile.preset("qwen3-8b-h100"), new SeedTree(1));
        requests.forEach(fleet::submit);
        long wallStart = System.nanoTime();
        fleet.run();
        long wallNs = System.nanoTime() - wallStart;
        return String.format(Locale.ROOT, "fleet of %d instances (shared pool, prefix-affinity seeing all tiers) x%.1f:"
                        + " simulated %.1f s in %.3f s wall = %.0fx real time; %d events, load balance %.2f max/mean,"
                        + " route hash %016x", FLEET_INSTANCES, timeScale, fleet.simulator().nowNs() / 1e9, wallNs / 1e9,
                fleet.simulator().nowNs() / (double) wallNs, fleet.simulator().eventsFired(),
                FleetMetrics.of(fleet).get("fleet.loadBalanceMaxOverMean"), fleet.routes().hash());
    }

    /** Warm-up and timed replays with one engine; prints each run and returns the engine's median line. */
    private static String measure(String engine, Geometry geometry, List<RequestSpec> requests, double timeScale, int warmups,
                                  int runs) {
        List<Double> ratios = new ArrayList<>();
        List<Double> cpuRatios = new ArrayList<>();
        double loadAtStart = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        for (int i = 0; i < warmups + runs; i++) {
            DecisionTrace trace = new DecisionTrace();
            TieredStore store = new TieredStore(StoreSettings.defaults(geometry, 512L << 30, 4096L << 30), trace);
            ServingEngine scheduler = ServingEngines.create(SchedulerSettings.builder(12_000).maxNumSeqs(64)
                    .maxBatchedTokens(16_384).engine(engine).build(),
                    store, trace);
            SimRuntime runtime = new SimRuntime(scheduler, DeviceProfile.preset("qwen3-8b-h100"), new SeedTree(1));
            requests.forEach(runtime::submit);
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long cpuStart = threads.getCurrentThreadCpuTime();
            long wallStart = System.nanoTime();
            runtime.run();
            long wallNs = System.nanoTime() - wallStart;
            long cpuNs = threads.getCurrentThreadCpuTime() - cpuStart;
            double simSeconds = runtime.simulator().nowNs() / 1e9;
            double ratio = runtime.simulator().nowNs() / (double) wallNs;
            boolean warm = i >= warmups;
            if (warm) {
                ratios.add(ratio);
                cpuRatios.add(runtime.simulator().nowNs() / (double) cpuNs);
            }
            System.out.printf(Locale.ROOT, "%s %s x%.1f: simulated %.1f s in %.3f s wall = %.0fx (%.3f s CPU = %.0fx); %d steps (%.1f per simulated s), "
                            + "%d events (%.1f per simulated s, %.2f us wall each), %d decisions, trace hash %016x%n",
                    warm ? "run   " : "warmup", engine, timeScale, simSeconds, wallNs / 1e9, ratio, cpuNs / 1e9,
                    runtime.simulator().nowNs() / (double) cpuNs, runtime.computeSteps(),
                    runtime.computeSteps() / simSeconds, runtime.simulator().eventsFired(),
                    runtime.simulator().eventsFired() / simSeconds, wallNs / 1e3 / runtime.simulator().eventsFired(),
                    trace.eventCount(), trace.hash());
        }
        double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double[] cpuSorted = cpuRatios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double loadAtEnd = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return String.format(Locale.ROOT, "median of %d warm runs (%s%s): %.0fx wall (all: %s), %.0fx CPU (all: %s); "
                        + "load average %.2f at start, %.2f at end on %d cores", sorted.length,
                engine, engine.equals(SchedulerSettings.DEFAULT_ENGINE) ? ", the default engine" : "",
                Percentiles.upperMedian(sorted), Arrays.toString(Arrays.stream(sorted).mapToLong(Math::round).toArray()),
                Percentiles.upperMedian(cpuSorted), Arrays.toString(Arrays.stream(cpuSorted).mapToLong(Math::round).toArray()),
                loadAtStart, loadAtEnd, Runtime.getRuntime().availableProcessors());
    }
}
