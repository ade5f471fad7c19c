package tierlab.experiments;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import tierlab.model.policy.CacheReplay;
import tierlab.model.policy.Policies;
import tierlab.model.policy.PolicyCapability;
import tierlab.model.policy.PolicyChoice;
import tierlab.model.policy.PolicyOptions;
import tierlab.model.policy.ReplacementPolicy;
import tierlab.model.policy.ReplayResult;
import tierlab.workload.MooncakeTrace;

/**
 * Replays a trace through every policy at every capacity with {@link CacheReplay}'s
 * request-grouped overload (so prefix-aware policies see each request's block positions).
 */
public final class MissRatioSweep {

    private MissRatioSweep() {
    }

    /**
     * Runs {@code policies} x {@code capacities} replays of the trace. Each replay gets a fresh
     * policy with the model's default options for its capacity; {@code belady} also gets the
     * flattened reference stream, which is exactly the order the replay feeds it.
     */
    public static MissRatioCurves run(MooncakeTrace trace, List<String> policies, List<Long> capacities) {
        return run(trace.blockRequests(), policies, capacities);
    }

    /**
     * The same over any block-id requests (one array of block ids per request, in arrival order).
     * Each policy is a name or a {@link PolicyChoice} text with knobs ({@code 2q:kin=0.3}); the
     * curves name it by that choice's label.
     */
    public static MissRatioCurves run(List<long[]> requests, List<String> policies, List<Long> capacities) {
        long[] flat = requests.stream().flatMapToLong(java.util.Arrays::stream).toArray();
        List<MissRatioPoint> points = new ArrayList<>(policies.size() * capacities.size());
        List<String> labels = new ArrayList<>(policies.size());
        for (String policyText : policies) {
            PolicyChoice choice = PolicyChoice.parse(policyText);
            labels.add(choice.label());
            for (long capacityBlocks : capacities) {
                PolicyOptions options = choice.options(capacityBlocks);
                if (choice.has(PolicyCapability.NEEDS_FUTURE_REFERENCES)) {
                    options = options.withFutureReferences(flat);
                }
                ReplacementPolicy policy = Policies.create(choice.name(), options);
                ReplayResult result = CacheReplay.run(policy, capacityBlocks, requests);
                points.add(new MissRatioPoint(choice.label(), capacityBlocks, result));
            }
        }
        return new MissRatioCurves(flat.length, distinct(flat), labels, capacities, points);
    }

    /** Number of distinct values (sorting a copy: no hash set of a hundred thousand boxed longs). */
    static long distinct(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        long distinct = 0;
        for (int index = 0; index < sorted.length; index++) {
            if (index == 0 || sorted[index] != sorted[index - 1]) {
                distinct++;
            }
        }
        return distinct;
    }
}
