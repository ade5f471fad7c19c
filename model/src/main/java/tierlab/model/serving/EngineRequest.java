package tierlab.model.serving;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.io.IoOp;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.LookupResult;
import tierlab.model.store.TieredStore;

/** One request's state inside a serving engine ({@link EngineScheduler}, {@link SerialEngine}). */
final class EngineRequest {

    enum Phase { WAITING, PREFETCHING, RUNNING, FINISHING, FINISHED }

    final RequestSpec spec;
    Phase phase = Phase.WAITING;
    /**
     * The spec's id and token counts, copied beside the fields every engine step reads with them
     * ({@link #computedTokens}, {@link #outputDone}): a step walks every running request, and reading
     * them through {@link #spec} costs a second object, usually on another cache line, per request.
     */
    final long requestId;
    final long promptTokens;
    final long outputTokens;
    long computedTokens;
    long outputDone;
    final List<Long> gpuBlocks = new ArrayList<>();
    LookupResult hit;
    boolean prefetched;
    boolean needsLoad;
    boolean loading;
    boolean acquiring;
    boolean saveQueued;
    boolean saveStaged;
    boolean parkedNow;
    long admittedNs = -1;
    long firstTokenNs = -1;
    int deferrals;
    int preemptions;
    HitClass admittedClass = HitClass.MISS;
    long admittedHitTokens;
    /** Prefetches of this request whose L2 read failed (see {@link PrefetchRetryBound}). */
    int failedPrefetches;
    /** Its stored blocks failed to read too often: it is admitted as a miss and computes its whole prompt. */
    boolean recomputeStored;
    /** Why this parked request was still a MIXED or L2 hit at the last pass (null: not known). */
    TieredStore.MixedOrL2Witness parkedWitness;
    /**
     * The GPU blocks the last prefix match found for it, the first {@link #gpuPrefixCount} entries (a
     * prefix-caching pool fills this, then takes them; plain block numbers, as a parked request's
     * match is read again on every admission pass).
     */
    int[] gpuPrefixBlocks = new int[0];
    int gpuPrefixCount;
    /** Its leading blocks whose keys the GPU prefix cache has recorded. */
    int cachedBlocks;
    /**
     * The pool whose cache {@link #gpuPrefixBlocks} was matched against (null: not known), and what that
     * match rests on, so the pool can tell whether a new walk would find the same blocks (see
     * {@code PrefixCachingBlockPool.cachedPrefixTokens}): the pool's count of keys cached by then, and the
     * key-hash bucket of the first key the walk did not find (-1: the walk ended at its cap) with the
     * keys cached in that bucket by then.
     */
    GpuBlockPool gpuPrefixPool;
    long gpuPrefixKeysCached;
    int gpuPrefixStopBucket;
    long gpuPrefixStopBucketKeys;
    /** Prompt tokens served by the GPU prefix cache at its last admission. */
    long gpuCachedTokens;
    /** Of the admitting hit's L2 units, those resident in L1 at the lookup, and all of them (the L1/L2 split). */
    long admittedResidentUnits;
    long admittedUnits;
    /** Store loads and prefetches it waited for, over all its admissions. */
    int loadsWaited;
    /** When the engine stops waiting for its prefetch in progress (the stop policy's deadline). */
    long prefetchDeadlineNs = Long.MAX_VALUE;
    /** Hit tokens of its last failed prefetch: recomputed if it gives up reading L2. */
    long lastFailedHitTokens;
    /** At its last admission: hit tokens recomputed because a prefetch stopped waiting, or a read failed. */
    long prefetchTimeoutTokens;
    long failedReadTokens;

    EngineRequest(RequestSpec spec) {
        this.spec = spec;
        this.requestId = spec.requestId();
        this.promptTokens = spec.promptTokens();
        this.outputTokens = spec.outputTokens();
    }

    /**
     * Refuses a request whose chain names fewer keys than its prompt has full blocks: the engine reads
     * a key for every full block it computes, and a short chain (a trace line whose ids cover less
     * than its input) used to end the run with an ArrayIndexOutOfBoundsException mid-step.
     */
    static void checkChainCoversPrompt(RequestSpec spec, int blockTokens) {
        long fullBlocks = spec.promptTokens() / blockTokens;
        if (spec.chain().size() < fullBlocks) {
            throw new IllegalArgumentException("request " + spec.requestId() + ": its prompt of " + spec.promptTokens()
                    + " tokens fills " + fullBlocks + " blocks of " + blockTokens + " but its chain names only "
                    + spec.chain().size() + " block keys");
        }
    }

    long fullBlocks(int blockTokens) {
        return promptTokens / blockTokens;
    }

    /** The next {@code chunk} prompt tokens as one step item, with the full GPU blocks the chunk completes. */
    IoOp.ComputeItem prefillItem(long chunk, int blockTokens) {
        long fullBlocks = fullBlocks(blockTokens);
        // At most the full blocks this chunk reaches the end of: sized once, never grown.
        long blocksReached = Math.min(fullBlocks, (computedTokens + chunk) / blockTokens) - computedTokens / blockTokens;
        // An array of that size made into a list once: the item's copy of an immutable list is the list itself.
        IoOp.GpuBlockWrite[] completed = new IoOp.GpuBlockWrite[(int) Math.max(0, blocksReached)];
        int count = 0;
        for (long b = computedTokens / blockTokens; b < fullBlocks; b++) {
            if ((b + 1) * blockTokens > computedTokens + chunk) {
                break;
            }
            if ((b + 1) * blockTokens > computedTokens) {
                completed[count++] = new IoOp.GpuBlockWrite(gpuBlocks.get((int) b), spec.chain().get((int) b));
            }
        }
        return new IoOp.ComputeItem(requestId, chunk, computedTokens, List.of(count == completed.length ? completed
                : java.util.Arrays.copyOf(completed, count)));
    }

    /**
     * Prefill is done: queues the save of the request's full blocks (none when offload is off or the
     * prompt fills no block, and then the save counts as staged at once, as it does when the store
     * already holds every block).
     */
    void startSave(TieredStore store, int blockTokens, boolean offload, long nowNs) {
        int fullBlocks = (int) fullBlocks(blockTokens);
        saveQueued = true;
        if (fullBlocks == 0 || !offload) {
            saveStaged = true;
            return;
        }
        TieredStore.SaveOutcome outcome = store.enqueueSave(requestId, spec.chain(), 0, fullBlocks,
                gpuBlocks.subList(0, fullBlocks), nowNs);
        if (outcome.blocksQueued() == 0) {
            saveStaged = true;
        }
    }

    /** Remembers where the KV of an admission comes from: the GPU cache, then the store's hit (or none). */
    void recordAdmission(LookupResult hit) {
        gpuCachedTokens = computedTokens;
        admittedClass = hit == null ? HitClass.MISS : hit.hitClass();
        admittedHitTokens = hit == null ? 0 : hit.hitTokens();
        admittedResidentUnits = hit == null ? 0 : hit.residentUnits();
        admittedUnits = hit == null ? 0 : hit.units().size();
        prefetchTimeoutTokens = 0;
        // A request that gave up reading L2 recomputes the hit its last failed prefetch would have loaded.
        failedReadTokens = recomputeStored && hit == null ? lastFailedHitTokens : 0;
    }

    /** Its admitted hit will not be loaded (a failed read): the tokens are recomputed and counted so. */
    void hitReadFailed() {
        failedReadTokens += admittedHitTokens;
        admittedHitTokens = 0;
    }

    /**
     * What the finished request reports, finishing at {@code finishNs}. The store's hit tokens are split
     * into L1 and L2 in proportion to the hit's units resident in L1 at the lookup (a prefetch promotes
     * the L2 part into L1 first, but those tokens came from L2).
     */
    RequestOutcome outcome(long finishNs) {
        long l1Tokens = admittedUnits == 0 ? 0 : admittedHitTokens * admittedResidentUnits / admittedUnits;
        return new RequestOutcome(requestId, spec.arrivalNs(), admittedNs, firstTokenNs, finishNs,
                promptTokens, outputTokens, admittedClass, admittedHitTokens, deferrals, preemptions,
                prefetched, gpuCachedTokens, l1Tokens, admittedHitTokens - l1Tokens, loadsWaited, prefetchTimeoutTokens,
                failedReadTokens);
    }
}
