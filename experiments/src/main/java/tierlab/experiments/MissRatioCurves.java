package tierlab.experiments;

import java.util.List;
import java.util.NoSuchElementException;
import tierlab.model.policy.PolicyChoice;
import tierlab.model.policy.PolicyCapability;

/**
 * The block-level miss-ratio curves of one trace: every policy at every capacity, plus the
 * infinite cache (a block hits if it was referenced before) as the bound no capacity can beat.
 *
 * @param references     block references in the trace
 * @param distinctBlocks distinct block ids in the trace (the infinite cache's misses)
 * @param policies       policy names in sweep order
 * @param capacities     capacities in blocks, ascending
 * @param points         one point per policy and capacity, policy-major in the order above
 */
public record MissRatioCurves(long references, long distinctBlocks, List<String> policies,
                              List<Long> capacities, List<MissRatioPoint> points) {

    public MissRatioCurves {
        policies = List.copyOf(policies);
        capacities = List.copyOf(capacities);
        points = List.copyOf(points);
        if (points.size() != policies.size() * capacities.size()) {
            throw new IllegalArgumentException("expected " + policies.size() * capacities.size()
                    + " points (policies x capacities), got " + points.size());
        }
    }

    public long infiniteHits() {
        return references - distinctBlocks;
    }

    public double infiniteHitRatio() {
        return references == 0 ? 0.0 : (double) infiniteHits() / references;
    }

    public double infiniteMissRatio() {
        return references == 0 ? 0.0 : (double) distinctBlocks / references;
    }

    /** The point of {@code policy} at {@code capacityBlocks}. */
    public MissRatioPoint point(String policy, long capacityBlocks) {
        int policyIndex = policies.indexOf(policy);
        int capacityIndex = capacities.indexOf(capacityBlocks);
        if (policyIndex < 0 || capacityIndex < 0) {
            throw new NoSuchElementException("no point for policy " + policy + " at " + capacityBlocks + " blocks");
        }
        return points.get(policyIndex * capacities.size() + capacityIndex);
    }

    /** The offline bound among the curves (the first policy that reads the future), or null if none. */
    public String offlineBound() {
        return policies.stream().filter(label -> needsFuture(label))
                .findFirst().orElse(null);
    }

    /** The policies that can run in a real store: every policy but the offline optimum. */
    public List<String> onlinePolicies() {
        return policies.stream().filter(label -> !needsFuture(label)).toList();
    }

    /** Whether the policy a label names (a name, or a name with knobs) reads the future; false for an unknown one. */
    static boolean needsFuture(String label) {
        try {
            return PolicyChoice.parse(label).has(PolicyCapability.NEEDS_FUTURE_REFERENCES);
        } catch (IllegalArgumentException notAPolicy) {
            return false;
        }
    }
}
