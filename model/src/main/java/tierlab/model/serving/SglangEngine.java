package tierlab.model.serving;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.store.LookupResult;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;

/**
 * A model of SGLang's scheduler with its radix cache and HiCache (docs/engines.md, "sglang", names the
 * release and files): GPU KV lives in a {@link RadixCache} that running requests lock and that evicts
 * unlocked leaves least recently used first; tierlab's L1 is HiCache's host tier and L2 its storage
 * tier, both behind the {@link TieredStore}.
 *
 * <ul>
 *   <li>Admission walks the waiting queue in {@link WaitingOrder} (longest GPU prefix match first, as
 *       SGLang's {@code lpm}, which falls back to the queue's order above {@value #LPM_MAX_QUEUE} waiting
 *       requests; or first come first served) under {@code maxNumSeqs} and the GPU pages, evicting
 *       unlocked leaves for the pages a request lacks.</li>
 *   <li>Beyond its GPU prefix, a request's host (L1) hit is loaded back before its prefill; a storage
 *       (L2 or mixed) hit is prefetched, and {@link SchedulerSettings#prefetchStop()} decides how long the
 *       request waits for it ({@link SglangPrefetches}): at the deadline the prefetch stops, what reached
 *       L1 is loaded and the rest is recomputed (counted in {@link #prefetchTimeoutTokens()}).</li>
 *   <li>Engine steps ({@link StepEngine}): decode first, then prefill chunks under {@code maxBatchedTokens}; every full page a
 *       step completes is inserted into the tree at once ({@code cache_unfinished_req}); when decode
 *       finds no page, running requests are retracted (recomputed later) in SGLang's order.</li>
 *   <li>{@link SchedulerSettings#hostWritePolicy()}: a page is saved to the store when computed
 *       (write-through), after N GPU hits (write-after-hits:N) or when evicted (write-back). A page
 *       being saved is locked until its staging copy lands, so no save reads a reused block.</li>
 * </ul>
 *
 * <p>Deterministic: time is a parameter, queues are ordered, and hash maps are only looked up.
 */
public final class SglangEngine extends StepEngine {

    /** Above this many waiting requests {@code lpm} keeps the queue's order (SGLang's schedule_policy.py). */
    static final int LPM_MAX_QUEUE = 128;

    private enum Admission { ADMITTED, NO_ROOM }

    private final RadixCache radix = new RadixCache();
    private final HiCacheWrites writes;
    private final SglangPrefetches prefetches;
    /** The tree's mutations and the queue's appends when it was last sorted. */
    private long sortedAtMutations = -1;
    private long sortedAtAppends = -1;
    private long retractions;

    public SglangEngine(SchedulerSettings settings, TieredStore store, DecisionTrace trace) {
        super(settings, store, trace, new GpuBlockPool(settings.gpuKvBlocks()), true);
        this.writes = new HiCacheWrites(settings, store, trace, radix, gpuBlocks);
        this.prefetches = new SglangPrefetches(this);
    }

    @Override
    public String kind() {
        return ServingEngines.SGLANG;
    }

    /** Prefetches whose deadline has come stop at every event the engine sees. */
    @Override
    void afterCompletion(long nowNs) {
        prefetches.stopExpired(nowNs);
    }

    @Override
    public void tick(long nowNs) {
        handleStoreEvents(nowNs);
        prefetches.stopExpired(nowNs);
        if (stepPhase == StepPhase.IDLE) {
            if (admissionDirty) {
                admissionDirty = false;
                admit(nowNs);
            }
            // A best-effort prefetch begun by this pass stops before the step it would delay.
            prefetches.stopExpired(nowNs);
            startStep(nowNs);
        }
        handleStoreEvents(nowNs);
    }

    // ------------------------------------------------------------------------------------------
    // Store events
    // ------------------------------------------------------------------------------------------

    @Override
    void onSaveStaged(long requestId, boolean cancelled, long nowNs) {
        writes.staged(requestId);
    }

    @Override
    void onAcquireDone(EngineRequest request, boolean succeeded, long nowNs) {
        prefetches.onAcquireDone(request, succeeded, nowNs);
    }

    @Override
    void loadLanded(EngineRequest request, boolean succeeded, long nowNs) {
        if (succeeded) {
            // The loaded pages join the tree: HiCache's load-back lands in the radix cache.
            cachePages(request, nowNs);
        } else {
            request.admittedHitTokens = 0;
        }
        // The KV is on the GPU (or will be computed): the host copies need no lease any more.
        store.releaseLease(request.spec.requestId(), nowNs);
    }

    // ------------------------------------------------------------------------------------------
    // Admission
    // ------------------------------------------------------------------------------------------

    private void admit(long nowNs) {
        if (settings.waitingOrder() == WaitingOrder.LPM && waiting.size() > 1 && waiting.size() <= LPM_MAX_QUEUE
                && (radix.mutations() != sortedAtMutations || waitingAppends != sortedAtAppends)) {
            // Admission only removes requests, so a queue sorted under the same tree and arrivals is still sorted.
            sortLongestPrefixFirst();
            sortedAtMutations = radix.mutations();
            sortedAtAppends = waitingAppends;
        }
        for (Iterator<EngineRequest> queue = waiting.iterator(); queue.hasNext(); ) {
            if (running.size() + prefetches.active() >= settings.maxNumSeqs()) {
                return;
            }
            EngineRequest request = queue.next();
            if (admitOne(request, nowNs) == Admission.NO_ROOM) {
                return;
            }
            queue.remove();
        }
    }

    /** SGLang's {@code lpm}: a stable sort of the queue by the GPU prefix each request would match now. */
    private void sortLongestPrefixFirst() {
        List<EngineRequest> queue = new ArrayList<>(waiting);
        long[] matched = new long[queue.size()];
        List<Integer> order = new ArrayList<>(queue.size());
        for (int i = 0; i < queue.size(); i++) {
            matched[i] = radix.matchPages(queue.get(i).spec.chain(), maxMatchPages(queue.get(i)));
            order.add(i);
        }
        order.sort(Comparator.comparingLong((Integer i) -> -matched[i]));
        waiting.clear();
        for (int i : order) {
            waiting.addLast(queue.get(i));
        }
    }

    /** Full pages of the prompt a match may cover: never the whole prompt, whose last token is always computed. */
    private int maxMatchPages(EngineRequest request) {
        long promptTokens = request.spec.promptTokens();
        return (int) Math.min(promptTokens / blockTokens, Math.max(0, promptTokens - 1) / blockTokens);
    }

    private Admission admitOne(EngineRequest request, long nowNs) {
        List<BlockKey> chain = request.spec.chain();
        int matched = radix.matchPages(chain, maxMatchPages(request));
        RadixCache.Node last = matched == 0 ? null : radix.node(chain.get(matched - 1));
        int needBlocks = (int) (Math.ceilDiv(request.spec.promptTokens(), blockTokens) - matched);
        // SGLang's PrefillAdder: the pages free plus those eviction can give back (every unlocked page).
        radix.lock(last);
        if (gpuBlocks.freeCount() + radix.unlockedCount() < needBlocks) {
            radix.unlock(last);
            return Admission.NO_ROOM;
        }
        for (int p = 0; p < matched; p++) {
            request.gpuBlocks.add(radix.node(chain.get(p)).gpuBlock);
        }
        if (!allocate(request.gpuBlocks, needBlocks, request.spec.requestId(), nowNs)) {
            // Pages written back on eviction come free only when their copies land.
            request.gpuBlocks.clear();
            radix.unlock(last);
            return Admission.NO_ROOM;
        }
        request.cachedBlocks = matched;
        request.computedTokens = (long) matched * blockTokens;
        radix.touch(chain, matched, nowNs);
        writes.countHits(request, matched, nowNs);
        if (!settings.offload() || request.recomputeStored) {
            startRunning(request, null, nowNs);
            return Admission.ADMITTED;
        }
        LookupResult hit = store.lookup(request.spec.requestId(), chain, request.computedTokens,
                request.spec.promptTokens(), nowNs);
        switch (hit.hitClass()) {
            case MISS -> startRunning(request, null, nowNs);
            case L1 -> {
                if (hit.leaseStatus() == LookupResult.LeaseStatus.LEASED) {
                    startRunning(request, hit, nowNs);
                } else {
                    // The store cannot lease it now: SGLang computes what it cannot load.
                    store.releaseLease(request.spec.requestId(), nowNs);
                    startRunning(request, null, nowNs);
                }
            }
            case MIXED, L2 -> prefetches.start(request, hit, nowNs);
        }
        return Admission.ADMITTED;
    }

    void startRunning(EngineRequest request, LookupResult hit, long nowNs) {
        request.phase = EngineRequest.Phase.RUNNING;
        request.hit = hit;
        if (request.admittedNs < 0) {
            request.admittedNs = nowNs;
        }
        request.recordAdmission(hit);
        request.needsLoad = hit != null && hit.isHit();
        running.add(request);
        trace.record("admit", request.spec.requestId(), request.admittedClass.ordinal(), request.admittedHitTokens);
    }

    // ------------------------------------------------------------------------------------------
    // GPU pages
    // ------------------------------------------------------------------------------------------

    /**
     * Adds {@code count} free blocks to {@code into}, evicting unlocked leaves first when too few are free;
     * false (having evicted what it could) when even that is not enough. Saves that eviction starts
     * (write-back) are enqueued under {@code saveId}, the request the pages are for.
     */
    private boolean allocate(List<Long> into, int count, long saveId, long nowNs) {
        while (gpuBlocks.freeCount() < count && radix.hasEvictable()) {
            RadixCache.Node victim = radix.evictLeastRecentlyUsedLeaf();
            trace.record("gpu-evict", victim.gpuBlock, victim.depth);
            // Written back on eviction, the block is reused once its staging copy has read it.
            if (!writes.writeBackOnEviction(victim, saveId, nowNs)) {
                gpuBlocks.release(List.of(victim.gpuBlock));
            }
        }
        if (gpuBlocks.freeCount() < count) {
            return false;
        }
        gpuBlocks.fillTo(into, into.size() + count);
        return true;
    }

    /**
     * The request's KV now covers {@code computedTokens}: its full pages beyond those in the tree join it
     * (a page another request cached meanwhile is taken from the tree, the request's copy freed), the
     * request's lock moves to its deepest page, and write-through saves the pages it added.
     */
    private void cachePages(EngineRequest request, long nowNs) {
        List<BlockKey> chain = request.spec.chain();
        int fullPages = (int) Math.min(request.computedTokens / blockTokens, request.fullBlocks(blockTokens));
        int from = request.cachedBlocks;
        if (fullPages <= from) {
            return;
        }
        RadixCache.Node oldLock = from == 0 ? null : radix.node(chain.get(from - 1));
        RadixCache.Node parent = oldLock;
        int firstNew = -1;
        for (int p = from; p < fullPages; p++) {
            RadixCache.Node node = radix.node(chain.get(p));
            long own = request.gpuBlocks.get(p);
            if (node == null) {
                node = radix.insert(chain, p + 1, parent, own, nowNs);
                firstNew = firstNew < 0 ? p : firstNew;
            } else {
                gpuBlocks.release(List.of(own));
                request.gpuBlocks.set(p, node.gpuBlock);
                writes.computed(request, firstNew, p, nowNs);
                firstNew = -1;
            }
            parent = node;
        }
        radix.lock(parent);
        radix.unlock(oldLock);
        request.cachedBlocks = fullPages;
        radix.touch(chain, fullPages, nowNs);
        writes.computed(request, firstNew, fullPages, nowNs);
    }

    // ------------------------------------------------------------------------------------------
    // The engine step
    // ------------------------------------------------------------------------------------------

    /** Load-back: the hit's host copies go to the request's own pages beyond its GPU prefix. */
    @Override
    void startStepLoad(EngineRequest request, long nowNs) {
        startLoad(request, nowNs);
    }

    /**
     * A decoding request needs one more page: free or evicted, else running requests are retracted in
     * SGLang's order ({@code retract_decode}: fewest output tokens first, then the longest prompt; here
     * the newest on a tie) until one is free. False when the request itself was retracted or nothing can
     * be, or when the request would retract itself while saves in flight will give pages back.
     */
    @Override
    boolean grow(EngineRequest request, long nowNs) {
        while (!allocate(request.gpuBlocks, 1, request.spec.requestId(), nowNs)) {
            EngineRequest victim = null;
            for (EngineRequest candidate : running) {
                if (candidate.phase == EngineRequest.Phase.RUNNING && !candidate.loading
                        && (victim == null || retractsBefore(candidate, victim))) {
                    victim = candidate;
                }
            }
            if (victim == null) {
                return false;
            }
            if (victim == request && writes.savesInFlight()) {
                // Pages come free when saves in flight are staged (blocks written back on eviction, pages
                // locked by their copies). Retracting itself now would throw its prefill away for nothing,
                // and two requests can then evict and retract each other forever (hunt finding F3, replay
                // hunt/src/test/resources/replays/fixed/F3-sglang-retract-livelock.json): it skips this
                // step's decode and grows once a copy has landed.
                trace.record("grow-wait-staging", request.spec.requestId());
                return false;
            }
            retract(victim, nowNs);
            if (victim == request) {
                return false;
            }
        }
        return true;
    }

    /** SGLang's retract order: whether {@code a} is retracted before {@code b}. */
    static boolean retractsBefore(EngineRequest a, EngineRequest b) {
        if (a.outputDone != b.outputDone) {
            return a.outputDone < b.outputDone;
        }
        if (a.spec.promptTokens() != b.spec.promptTokens()) {
            return a.spec.promptTokens() > b.spec.promptTokens();
        }
        return a.spec.requestId() > b.spec.requestId();
    }

    /**
     * Retraction: the request gives back its pages and its lease and waits at the back of the queue (as
     * SGLang re-queues retracted requests); its full pages stay in the tree, unlocked, for whoever comes next.
     */
    private void retract(EngineRequest request, long nowNs) {
        resetForRecompute(request, nowNs);
        retractions++;
        releasePages(request);
        clearProgress(request);
        appendWaiting(request);
        trace.record("retract", request.spec.requestId());
    }

    /** Unlocks the request's tree pages and frees the blocks it holds alone (the partial page, decode pages). */
    private void releasePages(EngineRequest request) {
        if (request.cachedBlocks > 0) {
            radix.unlock(radix.node(request.spec.chain().get(request.cachedBlocks - 1)));
        }
        gpuBlocks.release(request.gpuBlocks.subList(request.cachedBlocks, request.gpuBlocks.size()));
        request.gpuBlocks.clear();
        request.cachedBlocks = 0;
    }

    @Override
    public boolean preempt(long requestId, long nowNs) {
        EngineRequest request = requests.get(requestId);
        if (request == null || request.phase != EngineRequest.Phase.RUNNING || request.loading) {
            return false;
        }
        retract(request, nowNs);
        return true;
    }

    /** Every full page the step completed joins the tree at once ({@code cache_unfinished_req}). */
    @Override
    void prefillComputed(EngineRequest request, long nowNs) {
        cachePages(request, nowNs);
    }

    /** Done decoding: the request leaves; its pages stay in the tree (saves in flight keep theirs locked). */
    @Override
    void releaseFinishedBlocks(EngineRequest request) {
        releasePages(request);
    }

    // ------------------------------------------------------------------------------------------
    // Queries and invariants
    // ------------------------------------------------------------------------------------------

    @Override public int activePrefetches() { return prefetches.active(); }
    /** Blocks a request could take now: free, or cached in an unlocked page that eviction gives back. */
    @Override public long freeGpuBlockCount() { return gpuBlocks.freeCount() + radix.unlockedCount(); }
    @Override public long prefetchCalls() { return prefetches.calls(); }
    @Override public long deferrals() { return 0; }
    @Override public long preemptions() { return retractions; }
    @Override public long computedPromptTokens() { return computedPromptTokens; }
    @Override public long gpuBlocksEvicted() { return radix.evictions(); }
    @Override public long prefetchTimeoutTokens() { return prefetches.timeoutTokens(); }

    /** Pages in the radix tree now (for tests). */
    int cachedPages() {
        return radix.size();
    }

    /** The radix tree (for tests in this package). */
    @Override
    public int gpuCachedPrefixBlocks(List<BlockKey> chain) {
        return radix.matchPages(chain, chain.size());
    }

    RadixCache radix() {
        return radix;
    }

    /**
     * S1: every GPU block is free, in the tree, held by one request alone or held for a write-back copy,
     * and no block is in two places; S2 (a page is used only under its own key): each request's leading
     * pages are the tree's pages of its chain's keys, their blocks the request's; S3: the tree's lock
     * counts are exactly the requests' and saves' locks (so a locked page is never evicted), with the
     * tree's own rules; S4: phases and queues agree, within maxNumSeqs. Then the store's invariants.
     */
    @Override
    public void checkInvariants() {
        List<RadixCache.Node> lockHolders = new ArrayList<>();
        BitSet used = new BitSet();
        long ownBlocks = 0;
        for (RadixCache.Node node : radix.nodesByCreation()) {
            claimBlock(used, node.gpuBlock, "page " + node.key);
        }
        for (EngineRequest request : requests.inIdOrder()) {
            checkRequest(request, used, lockHolders);
            ownBlocks += request.gpuBlocks.size() - request.cachedBlocks;
        }
        writes.addLockHolders(lockHolders);
        radix.checkInvariants(lockHolders);
        gpuBlocks.checkInvariants(ownBlocks + radix.size());
        writes.checkInvariants();
        int prefetchingCount = 0;
        for (EngineRequest request : requests.inIdOrder()) {
            prefetchingCount += request.phase == EngineRequest.Phase.PREFETCHING ? 1 : 0;
        }
        if (prefetchingCount != prefetches.active() || running.size() + prefetches.active() > settings.maxNumSeqs()) {
            throw new IllegalStateException("S4: " + running.size() + " running and " + prefetches.active() + " prefetching ("
                    + prefetchingCount + " in that phase), maxNumSeqs " + settings.maxNumSeqs());
        }
        checkStepInvariants("S4: ");
        store.checkInvariants();
    }

    private void checkRequest(EngineRequest request, BitSet used, List<RadixCache.Node> lockHolders) {
        boolean holds = request.phase == EngineRequest.Phase.RUNNING || request.phase == EngineRequest.Phase.PREFETCHING;
        if (!holds && !request.gpuBlocks.isEmpty()) {
            throw new IllegalStateException("S1: request " + request.spec.requestId() + " holds GPU blocks but is "
                    + request.phase);
        }
        if (holds && (request.phase == EngineRequest.Phase.RUNNING) != running.contains(request)) {
            throw new IllegalStateException("S4: request " + request.spec.requestId() + " is " + request.phase
                    + " but the running list says otherwise");
        }
        for (int p = 0; p < request.cachedBlocks; p++) {
            RadixCache.Node node = radix.node(request.spec.chain().get(p));
            if (node == null || node.gpuBlock != request.gpuBlocks.get(p)) {
                throw new IllegalStateException("S2: request " + request.spec.requestId() + " uses block "
                        + request.gpuBlocks.get(p) + " for page " + p + " but the tree holds its key in "
                        + (node == null ? "no block" : "block " + node.gpuBlock));
            }
        }
        for (int p = request.cachedBlocks; p < request.gpuBlocks.size(); p++) {
            claimBlock(used, request.gpuBlocks.get(p), "request " + request.spec.requestId());
        }
        if (request.cachedBlocks > 0) {
            lockHolders.add(radix.node(request.spec.chain().get(request.cachedBlocks - 1)));
        }
    }

    private static void claimBlock(BitSet used, long block, String holder) {
        if (used.get((int) block)) {
            throw new IllegalStateException("S1: GPU block " + block + " of " + holder + " is held twice");
        }
        used.set((int) block);
    }
}
