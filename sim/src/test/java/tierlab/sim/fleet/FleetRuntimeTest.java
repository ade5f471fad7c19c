package tierlab.sim.fleet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.fleet.FleetSettings;
import tierlab.model.fleet.RouterSettings;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.PromptMix;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.SeedTree;
import tierlab.sim.SimRuntime;
import tierlab.sim.device.DeviceProfile;

/**
 * A fleet on one clock: one instance with a private pool decides exactly as a runtime of its own;
 * a shared pool serves one instance what another saved; and over seeded random request streams,
 * every router and both pool settings run to quiescence with every invariant (the pool's X1–X3
 * included) checked after every event, no payload mismatch, and the same choices on a second run.
 */
class FleetRuntimeTest {
    private static final DeviceProfile PROFILE = DeviceProfile.preset("qwen3-8b-h100");
    private static final SchedulerSettings SCHEDULER = SchedulerSettings.defaults(4_096).withConcurrency(4);

    private static StoreSettings store() {
        Geometry geometry = TinyModel.smallGeometry();
        long block = geometry.blockBytes();
        return StoreSettings.defaults(geometry, 48 * block, 96 * block);
    }

    private static FleetRuntime fleet(int instances, FleetSettings.Pool pool, RouterSettings router, long seed) {
        return FleetRuntime.of(new FleetSettings(instances, pool, router), store(), SCHEDULER, PROFILE, new SeedTree(seed));
    }

    private static List<RequestOutcome> finished(FleetRuntime fleet) {
        List<RequestOutcome> outcomes = new ArrayList<>();
        fleet.instances().forEach(instance -> outcomes.addAll(instance.scheduler().finished()));
        return outcomes;
    }

    @Test
    void oneInstanceWithAPrivatePoolDecidesAsARuntimeOfItsOwn() {
        List<RequestSpec> requests = PromptMix.requests(77, 60, 12, 5, 200_000);
        FleetRuntime fleet = fleet(1, FleetSettings.Pool.PRIVATE, RouterSettings.of("round-robin"), 5);
        requests.forEach(fleet::submit);
        fleet.run();

        DecisionTrace trace = new DecisionTrace();
        SimRuntime alone = new SimRuntime(ServingEngines.create(SCHEDULER, new TieredStore(store(), trace), trace), PROFILE,
                new SeedTree(new SeedTree(5).seedOf("instance-0")));
        requests.forEach(alone::submit);
        alone.run();

        assertEquals(trace.hash(), fleet.traces().getFirst().hash());
        assertEquals(trace.eventCount(), fleet.traces().getFirst().eventCount());
        assertEquals(alone.nowNs(), fleet.simulator().nowNs());
        assertEquals(60, fleet.instances().getFirst().scheduler().finishedCount());
    }

    @Test
    void aSharedPoolServesTheSecondInstanceWhatTheFirstSaved() {
        // One prompt of 5 blocks twice, a second apart; round-robin sends them to instances 0 and 1.
        List<BlockKey> chain = BlockChains.ofPrompt(3, 5);
        List<RequestSpec> requests = List.of(new RequestSpec(1, 0, 5 * 16 + 5, 2, chain),
                new RequestSpec(2, 1_000_000_000L, 5 * 16 + 5, 2, chain));
        for (FleetSettings.Pool pool : FleetSettings.Pool.values()) {
            FleetRuntime fleet = fleet(2, pool, RouterSettings.of("round-robin"), 9);
            fleet.setCheckInvariants(true);
            requests.forEach(fleet::submit);
            fleet.run();
            RequestOutcome second = fleet.instances().get(1).scheduler().finished().getFirst();
            assertEquals(2, second.requestId());
            // Shared: all 5 blocks come from L2 (the last prompt token is computed anyway); private: nothing.
            assertEquals(pool == FleetSettings.Pool.SHARED ? 5 * 16 : 0, second.hitTokens(), pool.toString());
            assertEquals(pool == FleetSettings.Pool.SHARED ? 5 * 16 : 0, second.l2Tokens(), pool.toString());
            fleet.checkInvariants();
            for (SimRuntime instance : fleet.instances()) {
                assertEquals(0, instance.ledger().mismatches(), instance.ledger().mismatchExamples().toString());
            }
            // 85 prompt tokens each: instance 1's 80 from L2 are 80 of the fleet's 170 when shared.
            var metrics = FleetMetrics.of(fleet);
            double shared = pool == FleetSettings.Pool.SHARED ? 1 : 0;
            assertEquals(shared * 80.0 / 85, metrics.get("instance1.l2HitRatio"), 1e-12, pool.toString());
            assertEquals(shared * 80.0 / 170, metrics.get("fleet.l2HitRatio"), 1e-12, pool.toString());
            assertEquals(1.0, metrics.get("fleet.loadBalanceMaxOverMean"));
            assertEquals(1.0, metrics.get("instance0.requestsRouted"));
            assertEquals(2.0, metrics.get("fleet.requestsFinished"));
            assertEquals(metrics.get("instance0.l2WriteBytes") + metrics.get("instance1.l2WriteBytes"),
                    metrics.get("fleet.poolWriteBytes"));
            assertTrue(metrics.get("fleet.poolWriteBytes") > 0);
        }
        assertEquals(1.5, FleetMetrics.loadBalance(new long[] {3, 1, 2}), "max 3 over mean 2");
    }

    @Test
    void everyRouterAndPoolRunsRandomStreamsToQuiescenceWithTheInvariantsHeldAtEveryStep() {
        for (long seed = 1; seed <= 3; seed++) {
            List<RequestSpec> requests = PromptMix.requests(seed, 70, 10, 5, 150_000);
            for (String policy : List.of("round-robin", "least-loaded", "prefix-affinity", "kv-cost")) {
                for (FleetSettings.Pool pool : FleetSettings.Pool.values()) {
                    RouterSettings router = RouterSettings.of(policy).seeing(RouterSettings.View.ALL_TIERS);
                    String what = policy + " " + pool + " seed " + seed;
                    FleetRuntime fleet = fleet(3, pool, router, seed);
                    fleet.setCheckInvariants(true);
                    requests.forEach(fleet::submit);
                    fleet.run();
                    fleet.checkInvariants();
                    assertEquals(requests.size(), finished(fleet).size(), what);
                    long routed = 0;
                    for (long count : fleet.routedByInstance()) {
                        routed += count;
                    }
                    assertEquals(requests.size(), routed, what);
                    for (SimRuntime instance : fleet.instances()) {
                        assertTrue(instance.store().leftovers().isEmpty(), what + ": " + instance.store().leftovers());
                        assertEquals(0, instance.ledger().mismatches(), what + ": " + instance.ledger().mismatchExamples());
                    }
                    FleetRuntime again = fleet(3, pool, router, seed);
                    requests.forEach(again::submit);
                    again.run();
                    assertEquals(fleet.routes().hash(), again.routes().hash(), what);
                    assertArrayEquals(fleet.traces().stream().mapToLong(DecisionTrace::hash).toArray(),
                            again.traces().stream().mapToLong(DecisionTrace::hash).toArray(), what);
                }
            }
        }
    }
}
