package tierlab.model.fleet;

/**
 * What a router sees of one instance when a request arrives. The prefix counts are of the arriving
 * request's chain, from its block 0; the store's counts are 0 when the router sees only GPU caches
 * ({@link RouterSettings.View#GPU_ONLY}).
 *
 * @param instance             the instance's index in the fleet
 * @param queuedRequests       requests waiting or running there
 * @param kvBlocksUsed         GPU KV blocks in use (of {@code kvBlocksTotal})
 * @param pendingPrefillTokens prompt tokens of its waiting and running requests not computed yet
 * @param gpuPrefixBlocks      leading blocks of the request its GPU cache holds
 * @param l1PrefixBlocks       leading blocks its store holds in L1
 * @param storedPrefixBlocks   leading blocks its store could serve from L1 or L2
 */
public record InstanceView(int instance, int queuedRequests, long kvBlocksUsed, long kvBlocksTotal,
                           long pendingPrefillTokens, int gpuPrefixBlocks, int l1PrefixBlocks, int storedPrefixBlocks) {

    /** The longest prefix the instance could serve without computing it, on the tiers the router sees. */
    public int cachedPrefixBlocks() {
        return Math.max(gpuPrefixBlocks, storedPrefixBlocks);
    }

    /** The load the settings name: queued requests or KV blocks in use. */
    public double load(RouterSettings.LoadSignal signal) {
        return signal == RouterSettings.LoadSignal.QUEUE ? queuedRequests : kvBlocksUsed;
    }
}
