package tierlab.model.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.fleet.RouterSettings.LoadSignal;
import tierlab.model.fleet.RouterSettings.View;
import tierlab.model.request.RequestSpec;

/**
 * Each router over a few instance views whose choice is worked out by hand (blocks of 16 tokens, a
 * request of 160 prompt tokens: 10 blocks).
 */
class RoutersTest {
    private static final int BLOCK_TOKENS = 16;
    private static final RequestSpec REQUEST = new RequestSpec(7, 0, 160, 8, List.of());

    /** A view with the given load and GPU prefix, nothing pending, nothing in the store. */
    private static InstanceView view(int instance, int queued, long kvUsed, int gpuPrefix) {
        return new InstanceView(instance, queued, kvUsed, 100, 0, gpuPrefix, 0, 0);
    }

    private static int route(RouterSettings settings, List<InstanceView> views) {
        return Routers.create(settings, views.size()).route(REQUEST, views, BLOCK_TOKENS);
    }

    @Test
    void theRegistryListsTheBuiltInRoutersInOrderAndNamesTheFieldOfAnUnknownOne() {
        assertEquals(List.of("round-robin", "least-loaded", "prefix-affinity", "kv-cost"), Routers.ROUTERS.names());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> RouterSettings.of("random"));
        assertEquals("fleet.router.policy: unknown router policy 'random' (known: round-robin, least-loaded,"
                + " prefix-affinity, kv-cost)", unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RouterSettings.of("prefix-affinity").withLoadBound(0.9));
    }

    @Test
    void roundRobinTakesTheInstancesInTurnWhateverTheyHold() {
        Router router = Routers.create(RouterSettings.of("round-robin"), 3);
        List<InstanceView> views = List.of(view(0, 9, 90, 10), view(1, 0, 0, 0), view(2, 0, 0, 0));
        List<Integer> chosen = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            chosen.add(router.route(REQUEST, views, BLOCK_TOKENS));
        }
        assertEquals(List.of(0, 1, 2, 0, 1), chosen);
    }

    @Test
    void leastLoadedCountsQueuedRequestsOrKvBlocksAsSetAndBreaksTiesLow() {
        List<InstanceView> views = List.of(view(0, 3, 10, 0), view(1, 1, 40, 0), view(2, 1, 5, 0));
        // Queues 3, 1, 1: instances 1 and 2 tie, the lower index wins.
        assertEquals(1, route(RouterSettings.of("least-loaded"), views));
        // KV blocks 10, 40, 5: instance 2.
        assertEquals(2, route(RouterSettings.of("least-loaded").withLoad(LoadSignal.KV), views));
    }

    @Test
    void prefixAffinityTakesTheLongestPrefixWithinTheLoadBound() {
        // Queues 2, 6, 1: mean 3, bound 1.25 × 3 = 3.75 leaves instance 1 (6) out despite its 9 blocks.
        List<InstanceView> views = List.of(view(0, 2, 0, 4), view(1, 6, 0, 9), view(2, 1, 0, 2));
        assertEquals(0, route(RouterSettings.of("prefix-affinity"), views));
        // Bound 2 × 3 = 6: instance 1 is a candidate, and its prefix is the longest.
        assertEquals(1, route(RouterSettings.of("prefix-affinity").withLoadBound(2.0), views));
        // Equal prefixes of 4 on instances 0 and 2: the less loaded (2, queue 1) wins.
        List<InstanceView> tied = List.of(view(0, 2, 0, 4), view(1, 6, 0, 9), view(2, 1, 0, 4));
        assertEquals(2, route(RouterSettings.of("prefix-affinity"), tied));
    }

    @Test
    void prefixAffinitySeesStoreTiersWhenItsViewsCarryThem() {
        // Instance 2 holds 2 blocks on GPU but 7 in its store: seen, its 7 beat instance 0's 4.
        List<InstanceView> views = List.of(view(0, 2, 0, 4), view(1, 6, 0, 9),
                new InstanceView(2, 1, 0, 100, 0, 2, 3, 7));
        assertEquals(2, route(RouterSettings.of("prefix-affinity").seeing(View.ALL_TIERS), views));
    }

    @Test
    void kvCostIsOverlapWeightTimesPrefillBlocksPlusDecodeBlocks() {
        // 0: pending 32 tokens (2 blocks) + 10 − GPU 4 = 8 prefill blocks, + 20 decode = 28.
        // 1: 0 + 10 − 0 = 10, + 25 = 35 (its L1 6 and store 10 blocks count only when seen).
        // 2: 10 + 10 − 8 = 12, + 20 = 32.
        List<InstanceView> views = List.of(new InstanceView(0, 1, 20, 100, 32, 4, 0, 0),
                new InstanceView(1, 1, 25, 100, 0, 0, 6, 10), new InstanceView(2, 1, 20, 100, 160, 8, 0, 0));
        RouterSettings gpuOnly = RouterSettings.of("kv-cost");
        Routers.KvCost cost = new Routers.KvCost(gpuOnly);
        assertEquals(28.0, cost.cost(REQUEST, views.get(0), BLOCK_TOKENS));
        assertEquals(32.0, cost.cost(REQUEST, views.get(2), BLOCK_TOKENS));
        // The fleet builds gpu-only views with the store's counts at 0: instance 1 then costs 35.
        List<InstanceView> gpuViews = List.of(views.get(0), new InstanceView(1, 1, 25, 100, 0, 0, 0, 0), views.get(2));
        assertEquals(0, route(gpuOnly, gpuViews));
        // Seen, instance 1's credit is 1 × 6 (L1) + 0.5 × 4 (L2 beyond) = 8: 10 − 8 = 2, + 25 = 27, the lowest.
        assertEquals(27.0, new Routers.KvCost(gpuOnly.seeing(View.ALL_TIERS)).cost(REQUEST, views.get(1), BLOCK_TOKENS));
        assertEquals(1, route(gpuOnly.seeing(View.ALL_TIERS), views));
        // Weight 0: decode blocks alone, 20 / 25 / 20, the tie goes to instance 0.
        assertEquals(0, route(gpuOnly.withWeights(0, 1, 0.5), views));
    }
}
