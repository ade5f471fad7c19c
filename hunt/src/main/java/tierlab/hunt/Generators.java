package tierlab.hunt;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import org.quicktheories.generators.Generate;
import tierlab.model.KnownBug;
import tierlab.model.policy.Policies;

/**
 * QuickTheories generators of whole schedules. Every choice is one bounded draw whose shrink point
 * is the simplest value (fewest steps, smallest indices, successful completions, the first step
 * kind), so QuickTheories' shrinking walks a failing schedule towards a short, plain one.
 */
public final class Generators {
    private Generators() {}

    /**
     * How many of the registry's online policies the hunt's seeds were pinned with (lru, prefix-lru,
     * bip, arc, s3-fifo, sieve: the first six, as the registry only appends). A schedule draws its
     * policy with one bounded draw over the list it is given; a longer list changes that draw's range
     * and so the policy of most seeds' schedules (and the ablation table's "schedules until
     * detection"), so the default list stays this prefix and the whole registry is asked for by name.
     */
    static final int PINNED_POLICY_COUNT = 6;

    /** The default policy list: the registry's first {@link #PINNED_POLICY_COUNT} online policies. */
    public static List<String> pinnedPolicies() {
        return Policies.online().subList(0, PINNED_POLICY_COUNT);
    }

    /**
     * The policy list a hunt names: {@code pinned} (the default above), {@code all} (every online
     * policy of the registry, new ones included) or comma-separated registry names. A name the
     * registry does not know, or one a running store cannot use, is refused naming the known ones.
     */
    public static List<String> policies(String spec) {
        String text = spec == null ? "pinned" : spec.strip();
        if (text.equals("pinned")) {
            return pinnedPolicies();
        }
        if (text.equals("all")) {
            return Policies.online();
        }
        List<String> names = new ArrayList<>();
        for (String name : text.split(",")) {
            String policy = name.strip();
            if (!Policies.online().contains(policy)) {
                throw new IllegalArgumentException("--policies: '" + policy + "' is not an online policy of the registry"
                        + " (pinned, all, or names among: " + String.join(", ", Policies.online()) + ")");
            }
            if (!names.contains(policy)) {
                names.add(policy);
            }
        }
        return List.copyOf(names);
    }

    private static int draw(RandomnessSource in, int from, int to) {
        return Generate.range(from, to).generate(in);
    }

    private static int draw(RandomnessSource in, int[] range) {
        return draw(in, range[0], range[1]);
    }

    /** Schedules of a profile, run with the given ablation switches, over the pinned policies. */
    public static Gen<Schedule> schedules(Profile profile, Set<KnownBug> knownBugs) {
        return schedules(profile, knownBugs, pinnedPolicies());
    }

    /** Schedules of a profile whose store policy is drawn from {@code policies} (registry names). */
    public static Gen<Schedule> schedules(Profile profile, Set<KnownBug> knownBugs, List<String> policies) {
        if (policies.isEmpty() || !Policies.online().containsAll(policies)) {
            throw new IllegalArgumentException("hunted policies must be online policies of the registry, got " + policies);
        }
        List<String> drawn = List.copyOf(policies);
        return in -> {
            HuntConfig config = config(in, profile, knownBugs, drawn);
            int[] weights = profile.weights().clone();
            if (profile.swarm()) {
                // Swarm testing: each kind's weight is redrawn, and zero leaves it out of this schedule.
                for (int k = 1; k < weights.length; k++) {
                    weights[k] = draw(in, 0, 5);
                }
                weights[0] = 1 + draw(in, 0, 9);
            } else {
                for (int k = 0; k < weights.length; k++) {
                    weights[k] = weights[k] == 0 ? 0 : weights[k] + draw(in, 0, 2);
                }
            }
            int failPercent = profile.failPercent() == 0 ? 0 : draw(in, 0, profile.failPercent());
            int length = draw(in, profile.minSteps(), profile.maxSteps());
            List<Step> steps = new ArrayList<>(length);
            for (int i = 0; i < length; i++) {
                steps.add(step(in, config, weights, failPercent));
            }
            return new Schedule(config, steps);
        };
    }

    static HuntConfig config(RandomnessSource in, Profile p, Set<KnownBug> knownBugs, List<String> policies) {
        int tp = draw(in, p.tp());
        int l1Blocks = Math.max(tp, draw(in, p.l1Blocks()) * tp);
        int l2Slots = draw(in, p.l2Slots());
        // Few chains with short prompts collide on keys; many chains make the ring evict. Swarm runs
        // pick one of the two key spaces per schedule, so both are common.
        int chainCount = p.swarm() && draw(in, 0, 1) == 1
                ? draw(in, Math.max(p.chainCount()[0], p.chainCount()[1] / 2), p.chainCount()[1])
                : p.swarm() ? draw(in, p.chainCount()[0], Math.max(p.chainCount()[0], Math.min(3, p.chainCount()[1])))
                : draw(in, p.chainCount());
        int chainBlocks = draw(in, p.chainBlocks());
        int sharedPrefix = draw(in, 0, chainBlocks - 1);
        String policy = policies.get(draw(in, 0, policies.size() - 1));
        boolean asHeadroom = draw(in, 0, 1) == 0;
        double headroomFraction = new double[] {0.05, 0, 0.2}[draw(in, 0, 2)];
        int stagingSlots = 1 + draw(in, 0, 2);
        boolean contiguousStaging = draw(in, 0, 1) == 0;
        boolean batchL2Reads = draw(in, 0, 1) == 0;
        int ringCount = 1 + draw(in, 0, 3);
        int readers = draw(in, p.readers());
        int prefetch = draw(in, p.prefetchMaxRequests());
        int maxNumSeqs = 2 + draw(in, 0, 4);
        // A request needs at most chainBlocks + 2 GPU blocks (15 extra prompt tokens, 4 output tokens).
        long perRequest = chainBlocks + 2;
        long gpuKvBlocks = p.ampleGpuBlocks() ? 2L * maxNumSeqs * perRequest + draw(in, 0, 3)
                : perRequest + draw(in, 0, 3 * chainBlocks);
        return new HuntConfig(p.level(), tp, l1Blocks, l2Slots, policy, asHeadroom, headroomFraction, stagingSlots,
                contiguousStaging, batchL2Reads, ringCount, chainCount, chainBlocks, sharedPrefix, readers, prefetch,
                maxNumSeqs, gpuKvBlocks, knownBugs, p.engine(), p.l2WritePolicy(), p.l2Admission(), p.prefetchStop(),
                p.saveTiming());
    }

    private static Step step(RandomnessSource in, HuntConfig config, int[] weights, int failPercent) {
        int total = 0;
        for (int w : weights) {
            total += w;
        }
        int roll = draw(in, 0, total - 1);
        int kind = 0;
        while (roll >= weights[kind]) {
            roll -= weights[kind];
            kind++;
        }
        if (config.level() == HuntConfig.Level.ENGINE) {
            return switch (kind) {
                case 0 -> complete(in, failPercent);
                case 1 -> new Step.Arrive(draw(in, 0, config.chainCount() - 1), 1 + draw(in, 0, config.chainBlocks() - 1),
                        draw(in, 0, 15), draw(in, 0, 3));
                default -> new Step.Preempt(draw(in, 0, 7));
            };
        }
        int reader = draw(in, 0, config.readers() - 1);
        return switch (kind) {
            case 0 -> complete(in, failPercent);
            case 1 -> new Step.Lookup(reader, draw(in, 0, config.chainCount() - 1), 1 + draw(in, 0, config.chainBlocks() - 1),
                    draw(in, 0, 15));
            case 2 -> new Step.Acquire(reader);
            case 3 -> new Step.Load(reader);
            case 4 -> new Step.Release(reader);
            case 5 -> new Step.Save(draw(in, 0, config.chainCount() - 1), 1 + draw(in, 0, config.chainBlocks() - 1));
            default -> new Step.Preempt(draw(in, 0, 15));
        };
    }

    private static Step complete(RandomnessSource in, int failPercent) {
        int pick = draw(in, 0, 15);
        // Shrinks towards 0, i.e. towards a successful completion.
        boolean fails = draw(in, 0, 99) >= 100 - failPercent;
        return new Step.Complete(pick, !fails);
    }
}
