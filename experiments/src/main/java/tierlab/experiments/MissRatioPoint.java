package tierlab.experiments;

import tierlab.model.policy.ReplayResult;

/**
 * One point of a miss-ratio curve: a policy replayed over the whole trace at one capacity.
 *
 * @param policy         the policy's registered name
 * @param capacityBlocks the cache capacity in blocks
 * @param result         hits and misses of the replay
 */
public record MissRatioPoint(String policy, long capacityBlocks, ReplayResult result) {

    public double hitRatio() {
        return result.hitRatio();
    }

    /** misses / references, or 0 for an empty replay. */
    public double missRatio() {
        return result.references() == 0 ? 0.0 : (double) result.misses() / result.references();
    }
}
