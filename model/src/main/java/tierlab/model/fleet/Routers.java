package tierlab.model.fleet;

import java.util.List;
import tierlab.model.Registry;
import tierlab.model.request.RequestSpec;

/**
 * The fleet routers by the name an experiment's {@code fleet.router.policy} gives (docs/fleet.md):
 * {@code round-robin}, {@code least-loaded}, {@code prefix-affinity} and {@code kv-cost}, then any
 * {@link RouterProvider}'s.
 */
public final class Routers {

    /** Builds a router for a fleet of {@code instances} instances. */
    public interface Factory {
        Router create(RouterSettings settings, int instances);
    }

    public static final Registry<Factory> ROUTERS = Registry.<Factory>of("router policy")
            .add("round-robin", (settings, instances) -> new RoundRobin())
            .add("least-loaded", (settings, instances) -> new LeastLoaded(settings.load()))
            .add("prefix-affinity", PrefixAffinity::new)
            .add("kv-cost", (settings, instances) -> new KvCost(settings))
            .addProviders(RouterProvider.class)
            .build();

    private Routers() {
    }

    /** The router {@code settings} name, for {@code instances} instances. */
    public static Router create(RouterSettings settings, int instances) {
        return ROUTERS.get("fleet.router.policy", settings.policy()).create(settings, instances);
    }

    /** A router that reads the views' prefix counts, with its settings. */
    abstract static class PrefixReading implements Router {
        final RouterSettings settings;

        PrefixReading(RouterSettings settings) {
            this.settings = settings;
        }

        @Override
        public final boolean readsPrefixes() {
            return true;
        }
    }

    /** Instances in turn, whatever they hold. */
    static final class RoundRobin implements Router {
        private int next;

        @Override
        public int route(RequestSpec request, List<InstanceView> instances, int blockTokens) {
            int chosen = next % instances.size();
            next = chosen + 1;
            return chosen;
        }
    }

    /** The instance with the least load (queued requests or KV blocks in use). */
    static final class LeastLoaded implements Router {
        private final RouterSettings.LoadSignal signal;

        LeastLoaded(RouterSettings.LoadSignal signal) {
            this.signal = signal;
        }

        @Override
        public int route(RequestSpec request, List<InstanceView> instances, int blockTokens) {
            int best = 0;
            for (int i = 1; i < instances.size(); i++) {
                if (instances.get(i).load(signal) < instances.get(best).load(signal)) {
                    best = i;
                }
            }
            return best;
        }
    }

    /**
     * The longest cached prefix of the request among the instances whose load is within the bound
     * (at most {@code loadBound} × the mean load, or the least): a bounded-load affinity, so a hot
     * prefix does not pile every request on one instance. Ties: less load, then the lower index.
     */
    static final class PrefixAffinity extends PrefixReading {
        PrefixAffinity(RouterSettings settings, int instances) {
            super(settings);
        }

        @Override
        public int route(RequestSpec request, List<InstanceView> instances, int blockTokens) {
            RouterSettings.LoadSignal signal = settings.load();
            double sum = 0;
            double min = Double.MAX_VALUE;
            for (InstanceView view : instances) {
                sum += view.load(signal);
                min = Math.min(min, view.load(signal));
            }
            double bound = Math.max(min, settings.loadBound() * sum / instances.size());
            int best = -1;
            for (int i = 0; i < instances.size(); i++) {
                InstanceView view = instances.get(i);
                if (view.load(signal) > bound) {
                    continue;
                }
                if (best < 0 || better(view, instances.get(best), signal)) {
                    best = i;
                }
            }
            return best;
        }

        private static boolean better(InstanceView view, InstanceView best, RouterSettings.LoadSignal signal) {
            if (view.cachedPrefixBlocks() != best.cachedPrefixBlocks()) {
                return view.cachedPrefixBlocks() > best.cachedPrefixBlocks();
            }
            return view.load(signal) < best.load(signal);
        }
    }

    /**
     * A cost in the manner of Dynamo's KV router: {@code overlapWeight × prefill blocks + decode
     * blocks}, the lowest wins (a temperature of 0). Prefill blocks are the instance's pending prefill
     * plus the request's prompt, less the blocks it would not compute there: its GPU prefix, and,
     * when the router sees store tiers, {@code l1Weight} per further block in L1 and {@code l2Weight}
     * per further block in L2. Decode blocks are the instance's GPU KV blocks in use.
     */
    static final class KvCost extends PrefixReading {
        KvCost(RouterSettings settings) {
            super(settings);
        }

        @Override
        public int route(RequestSpec request, List<InstanceView> instances, int blockTokens) {
            int best = 0;
            double bestCost = Double.MAX_VALUE;
            for (int i = 0; i < instances.size(); i++) {
                double cost = cost(request, instances.get(i), blockTokens);
                if (cost < bestCost) {
                    best = i;
                    bestCost = cost;
                }
            }
            return best;
        }

        /** The instance's cost for the request, in blocks. */
        double cost(RequestSpec request, InstanceView view, int blockTokens) {
            double credit = view.gpuPrefixBlocks();
            int l1Beyond = Math.max(0, view.l1PrefixBlocks() - view.gpuPrefixBlocks());
            int l2Beyond = Math.max(0, view.storedPrefixBlocks() - Math.max(view.gpuPrefixBlocks(), view.l1PrefixBlocks()));
            credit += settings.l1Weight() * l1Beyond + settings.l2Weight() * l2Beyond;
            double prefillBlocks = Math.max(0.0,
                    (double) (view.pendingPrefillTokens() + request.promptTokens()) / blockTokens - credit);
            return settings.overlapWeight() * prefillBlocks + view.kvBlocksUsed();
        }
    }
}
