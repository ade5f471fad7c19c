package tierlab.model.serving;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.store.LookupResult;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.StoreEvent;
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
 *       request waits for it: at the deadline the prefetch stops, what reached L1 is loaded and the rest
 *       is recomputed (counted in {@link #prefetchTimeoutTokens()}).</li>
 *   <li>Engine steps: decode first, then prefill chunks under {@code maxBatchedTokens}; every full page a
 *       step completes is inserted into the tree at once ({@code cache_unfinished_req}); when decode
 *       finds no page, running requests are retracted (recomputed later) in SGLang's order.</li>
 *   <li>{@link SchedulerSettings#hostWritePolicy()}: a page is saved to the store when computed
 *       (write-through), after N GPU hits (write-after-hits:N) or when evicted (write-back). A page
 *       being saved is locked until its staging copy lands, so no save reads a reused block.</li>
 * </ul>
 *
 * <p>Deterministic: time is a parameter, queues are ordered, and hash maps are only looked up.
 */
public final class SglangEngine implements ServingEngine {

    /** Above this many waiting requests {@code lpm} keeps the queue's order (SGLang's schedule_policy.py). */
    static final int LPM_MAX_QUEUE = 128;

    private enum StepPhase { IDLE, LOADING, COMPUTING }

    private enum Admission { ADMITTED, NO_ROOM }

    /** A storage prefetch in flight: the request waits for it until {@code deadlineNs}. */
    private record Prefetch(EngineRequest request, long deadlineNs, long hitTokens, int hitBlocks) {}

    private final SchedulerSettings settings;
    private final TieredStore store;
    private final DecisionTrace trace;
    private final int blockTokens;
    private final GpuBlockPool pool;
    private final RadixCache radix = new RadixCache();
    private final HiCacheWrites writes;
    private final EngineRequests requests = new EngineRequests();
    private final ArrayDeque<EngineRequest> waiting = new ArrayDeque<>();
    private final List<EngineRequest> running = new ArrayList<>();
    private final List<Prefetch> prefetching = new ArrayList<>();
    private final List<IoOp> ownOps = new ArrayList<>();
    private final List<EngineRequest> stepLoads = new ArrayList<>();

    private StepPhase stepPhase = StepPhase.IDLE;
    /** Requests appended to the waiting queue so far, and the tree's mutations and appends when it was last sorted. */
    private long waitingAppends;
    private long sortedAtMutations = -1;
    private long sortedAtAppends = -1;
    private boolean admissionDirty = true;
    private long computeTicket = -1;
    private IoOp.Compute currentCompute;
    private final EngineRequests.StepBuffers stepBuffers = new EngineRequests.StepBuffers();
    private long stepIndex;
    private long computedPromptTokens;
    private long prefetchCalls;
    private long retractions;
    private long prefetchTimeoutTokens;

    public SglangEngine(SchedulerSettings settings, TieredStore store, DecisionTrace trace) {
        this.settings = settings;
        this.store = store;
        this.trace = trace;
        this.blockTokens = store.settings().geometry().blockTokens();
        this.pool = new GpuBlockPool(settings.gpuKvBlocks());
        this.writes = new HiCacheWrites(settings, store, trace, radix, pool);
    }

    @Override
    public String kind() {
        return ServingEngines.SGLANG;
    }

    @Override
    public void submit(RequestSpec spec, long nowNs) {
        waiting.addLast(requests.add(spec, blockTokens, settings.gpuKvBlocks()));
        waitingAppends++;
        admissionDirty = true;
        trace.record("arrive", spec.requestId(), spec.promptTokens(), spec.outputTokens());
    }

    @Override
    public void onCompletion(IoCompletion completion, long nowNs) {
        if (completion.ticket() == computeTicket) {
            finishCompute(nowNs);
        } else {
            store.onCompletion(completion, nowNs);
        }
        stopExpiredPrefetches(nowNs);
        handleStoreEvents(nowNs);
    }

    @Override
    public void tick(long nowNs) {
        handleStoreEvents(nowNs);
        stopExpiredPrefetches(nowNs);
        if (stepPhase == StepPhase.IDLE) {
            if (admissionDirty) {
                admissionDirty = false;
                admit(nowNs);
            }
            // A best-effort prefetch begun by this pass stops before the step it would delay.
            stopExpiredPrefetches(nowNs);
            startStep(nowNs);
        }
        handleStoreEvents(nowNs);
    }

    @Override
    public List<IoOp> drainOps() {
        return EngineRequests.drain(store.drainOps(), ownOps);
    }

    // ------------------------------------------------------------------------------------------
    // Store events
    // ------------------------------------------------------------------------------------------

    private void handleStoreEvents(long nowNs) {
        List<StoreEvent> events = store.drainEvents();
        for (int i = 0; i < events.size(); i++) {
            StoreEvent event = events.get(i);
            admissionDirty = true;
            EngineRequest request = requests.get(event.requestId());
            switch (event) {
                case StoreEvent.AcquireDone done -> onPrefetchDone(request, done.succeeded(), nowNs);
                case StoreEvent.LoadDone done -> onLoadDone(request, done.succeeded(), nowNs);
                case StoreEvent.SaveStaged staged -> writes.staged(event.requestId());
            }
        }
    }

    private void onPrefetchDone(EngineRequest request, boolean succeeded, long nowNs) {
        if (request == null || !request.acquiring || request.phase != EngineRequest.Phase.PREFETCHING) {
            return;
        }
        request.acquiring = false;
        prefetching.removeIf(p -> p.request() == request);
        trace.record("prefetch-done", request.spec.requestId(), succeeded ? 1 : 0);
        if (succeeded) {
            request.prefetched = true;
            startRunning(request, request.hit, nowNs);
        } else {
            // The storage read failed: what it was to bring is computed instead.
            store.releaseLease(request.spec.requestId(), nowNs);
            startRunning(request, null, nowNs);
        }
    }

    private void onLoadDone(EngineRequest request, boolean succeeded, long nowNs) {
        if (request == null || !request.loading) {
            return;
        }
        request.loading = false;
        request.needsLoad = false;
        if (succeeded) {
            request.computedTokens = request.hit.computedTokens() + request.hit.hitTokens();
            // The loaded pages join the tree: HiCache's load-back lands in the radix cache.
            cachePages(request, nowNs);
        } else {
            request.admittedHitTokens = 0;
        }
        // The KV is on the GPU (or will be computed): the host copies need no lease any more.
        store.releaseLease(request.spec.requestId(), nowNs);
        trace.record("loaded", request.spec.requestId(), succeeded ? 1 : 0, request.computedTokens);
        stepLoads.remove(request);
        maybeCompute(nowNs);
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
            if (running.size() + prefetching.size() >= settings.maxNumSeqs()) {
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
        if (pool.freeCount() + radix.unlockedCount() < needBlocks) {
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
            case MIXED, L2 -> startPrefetch(request, hit, nowNs);
        }
        return Admission.ADMITTED;
    }

    /** The storage part of a hit is brought to L1 under the request's lease; the request waits per the stop policy. */
    private void startPrefetch(EngineRequest request, LookupResult hit, long nowNs) {
        prefetchCalls++;
        TieredStore.AcquireOutcome outcome = store.acquire(request.spec.requestId(), hit, nowNs);
        trace.record("prefetch", request.spec.requestId(), outcome.ordinal());
        switch (outcome) {
            case READY -> startRunning(request, hit, nowNs);
            case PROMOTING -> {
                request.phase = EngineRequest.Phase.PREFETCHING;
                request.hit = hit;
                request.acquiring = true;
                request.loadsWaited++;
                if (request.admittedNs < 0) {
                    request.admittedNs = nowNs;
                }
                long deadlineNs = settings.prefetchStop().deadlineNs(nowNs, request.spec.promptTokens());
                prefetching.add(new Prefetch(request, deadlineNs, hit.hitTokens(), hit.hitBlocks()));
            }
            case ADMISSION_WAIT, NOTHING_TO_ACQUIRE -> {
                store.releaseLease(request.spec.requestId(), nowNs);
                startRunning(request, null, nowNs);
            }
        }
    }

    /**
     * Prefetches whose deadline has come stop (checked at every event the engine sees): the lease goes,
     * the longest leading part of the hit that has reached L1 is loaded, and the rest is recomputed.
     */
    private void stopExpiredPrefetches(long nowNs) {
        for (int i = 0; i < prefetching.size(); ) {
            Prefetch prefetch = prefetching.get(i);
            if (prefetch.deadlineNs() > nowNs) {
                i++;
                continue;
            }
            prefetching.remove(i);
            EngineRequest request = prefetch.request();
            request.acquiring = false;
            admissionDirty = true;
            store.releaseLease(request.spec.requestId(), nowNs);
            LookupResult arrived = arrivedPrefix(request, prefetch.hitBlocks(), nowNs);
            long recomputed = Math.max(0, prefetch.hitTokens() - (arrived == null ? 0 : arrived.hitTokens()));
            prefetchTimeoutTokens += recomputed;
            trace.record("prefetch-stop", request.spec.requestId(), recomputed);
            LookupResult prefetched = request.hit;
            startRunning(request, arrived, nowNs);
            // Per request, at the admission that serves it (the pass metric sums the requests' figures).
            request.prefetchTimeoutTokens = recomputed;
            if (arrived != null) {
                // What arrived came through the prefetch: L1 and L2 shares as at the lookup that began it.
                request.admittedResidentUnits = prefetched.residentUnits();
                request.admittedUnits = prefetched.units().size();
            }
        }
    }

    /**
     * The longest leading run of a stopped prefetch's blocks that is wholly in L1 now, leased (null when its
     * first block has not arrived): SGLang uses the part of a prefetch that completed. Whether the first k
     * blocks are all in L1 only turns false as k grows, so a binary search over k finds it with side-effect
     * free classifications, and one lookup capped after k blocks takes its lease.
     */
    private LookupResult arrivedPrefix(EngineRequest request, int hitBlocks, long nowNs) {
        List<BlockKey> chain = request.spec.chain();
        long startTokens = request.computedTokens;
        int arrivedBlocks = 0;
        int notArrivedFrom = hitBlocks + 1;
        while (notArrivedFrom - arrivedBlocks > 1) {
            int blocks = (arrivedBlocks + notArrivedFrom) >>> 1;
            if (store.classify(chain, startTokens, promptCappedAfter(request, blocks)) == HitClass.L1) {
                arrivedBlocks = blocks;
            } else {
                notArrivedFrom = blocks;
            }
        }
        if (arrivedBlocks == 0) {
            return null;
        }
        LookupResult arrived = store.lookup(request.spec.requestId(), chain, startTokens,
                promptCappedAfter(request, arrivedBlocks), nowNs);
        if (arrived.hitClass() != HitClass.L1 || arrived.leaseStatus() != LookupResult.LeaseStatus.LEASED) {
            store.releaseLease(request.spec.requestId(), nowNs);
            return null;
        }
        return arrived;
    }

    /** A prompt length whose lookup hit (capped one token short) ends after {@code blocks} blocks past the computed ones. */
    private long promptCappedAfter(EngineRequest request, int blocks) {
        return Math.min(request.spec.promptTokens(), request.computedTokens + (long) blocks * blockTokens + 1);
    }

    private void startRunning(EngineRequest request, LookupResult hit, long nowNs) {
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
        while (pool.freeCount() < count && radix.hasEvictable()) {
            RadixCache.Node victim = radix.evictLeastRecentlyUsedLeaf();
            trace.record("gpu-evict", victim.gpuBlock, victim.depth);
            // Written back on eviction, the block is reused once its staging copy has read it.
            if (!writes.writeBackOnEviction(victim, saveId, nowNs)) {
                pool.release(List.of(victim.gpuBlock));
            }
        }
        if (pool.freeCount() < count) {
            return false;
        }
        pool.fillTo(into, into.size() + count);
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
                pool.release(List.of(own));
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

    private void startStep(long nowNs) {
        if (running.isEmpty()) {
            return;
        }
        stepLoads.clear();
        for (EngineRequest request : running) {
            if (request.needsLoad && !request.loading) {
                stepLoads.add(request);
            }
        }
        stepPhase = StepPhase.LOADING;
        for (EngineRequest request : new ArrayList<>(stepLoads)) {
            startLoad(request, nowNs);
        }
        maybeCompute(nowNs);
    }

    /** Load-back: the hit's host copies go to the request's own pages beyond its GPU prefix. */
    private void startLoad(EngineRequest request, long nowNs) {
        EngineRequests.startLoad(request, store, stepLoads, true, nowNs);
    }

    private void maybeCompute(long nowNs) {
        if (stepPhase != StepPhase.LOADING || !stepLoads.isEmpty()) {
            return;
        }
        List<IoOp.ComputeItem> items = EngineRequests.stepItems(running, settings.maxBatchedTokens(), blockTokens,
                request -> growOrRetract(request, nowNs), stepBuffers);
        if (items.isEmpty()) {
            stepPhase = StepPhase.IDLE;
            return;
        }
        currentCompute = EngineRequests.newStep(store, stepIndex++, items, ownOps, trace);
        computeTicket = currentCompute.ticket();
        stepPhase = StepPhase.COMPUTING;
    }

    /**
     * A decoding request needs one more page: free or evicted, else running requests are retracted in
     * SGLang's order ({@code retract_decode}: fewest output tokens first, then the longest prompt; here
     * the newest on a tie) until one is free. False when the request itself was retracted or nothing can
     * be, or when the request would retract itself while saves in flight will give pages back.
     */
    private boolean growOrRetract(EngineRequest request, long nowNs) {
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
        admissionDirty = true;
        running.remove(request);
        stepLoads.remove(request);
        request.preemptions++;
        retractions++;
        store.releaseLease(request.spec.requestId(), nowNs);
        releasePages(request);
        request.computedTokens = 0;
        request.outputDone = 0;
        request.hit = null;
        request.needsLoad = false;
        request.loading = false;
        request.acquiring = false;
        request.phase = EngineRequest.Phase.WAITING;
        waiting.addLast(request);
        waitingAppends++;
        trace.record("retract", request.spec.requestId());
    }

    /** Unlocks the request's tree pages and frees the blocks it holds alone (the partial page, decode pages). */
    private void releasePages(EngineRequest request) {
        if (request.cachedBlocks > 0) {
            radix.unlock(radix.node(request.spec.chain().get(request.cachedBlocks - 1)));
        }
        pool.release(request.gpuBlocks.subList(request.cachedBlocks, request.gpuBlocks.size()));
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

    private void finishCompute(long nowNs) {
        admissionDirty = true;
        IoOp.Compute compute = currentCompute;
        currentCompute = null;
        computeTicket = -1;
        stepPhase = StepPhase.IDLE;
        List<IoOp.ComputeItem> items = compute.items();
        for (int i = 0; i < items.size(); i++) {
            EngineRequest request = requests.get(items.get(i).requestId());
            if (request.phase != EngineRequest.Phase.RUNNING) {
                continue;
            }
            if (request.computedTokens < request.spec.promptTokens()) {
                request.computedTokens += items.get(i).newTokens();
                computedPromptTokens += items.get(i).newTokens();
                cachePages(request, nowNs);
                if (request.computedTokens == request.spec.promptTokens()) {
                    request.outputDone = 1;
                    if (request.firstTokenNs < 0) {
                        request.firstTokenNs = nowNs;
                    }
                }
            } else {
                request.outputDone++;
            }
            maybeFinish(request, nowNs);
        }
        trace.record("step-done", compute.stepIndex());
    }

    /** Done decoding: the request leaves; its pages stay in the tree (saves in flight keep theirs locked). */
    private void maybeFinish(EngineRequest request, long nowNs) {
        if (request.outputDone < request.spec.outputTokens()) {
            return;
        }
        running.remove(request);
        request.phase = EngineRequest.Phase.FINISHED;
        store.releaseLease(request.spec.requestId(), nowNs);
        releasePages(request);
        requests.finish(request.outcome(nowNs));
        trace.record("finish", request.spec.requestId(), nowNs);
    }

    // ------------------------------------------------------------------------------------------
    // Queries and invariants
    // ------------------------------------------------------------------------------------------

    @Override public SchedulerSettings settings() { return settings; }
    @Override public TieredStore store() { return store; }
    @Override public List<RequestOutcome> finished() { return requests.finished(); }
    @Override public int finishedCount() { return requests.finishedCount(); }
    @Override public boolean allFinished() { return requests.allFinished(); }
    @Override public List<RequestSpec> unfinished() { return requests.unfinished(); }
    @Override public List<Long> finishedIds() { return requests.finishedIds(); }
    @Override public int runningCount() { return running.size(); }
    @Override public int waitingCount() { return waiting.size(); }
    @Override public int activePrefetches() { return prefetching.size(); }
    /** Blocks a request could take now: free, or cached in an unlocked page that eviction gives back. */
    @Override public long freeGpuBlockCount() { return pool.freeCount() + radix.unlockedCount(); }
    @Override public long prefetchCalls() { return prefetchCalls; }
    @Override public long deferrals() { return 0; }
    @Override public long preemptions() { return retractions; }
    @Override public long computedPromptTokens() { return computedPromptTokens; }
    @Override public long gpuBlocksEvicted() { return radix.evictions(); }
    @Override public long prefetchTimeoutTokens() { return prefetchTimeoutTokens; }

    /** Pages in the radix tree now (for tests). */
    int cachedPages() {
        return radix.size();
    }

    /** The radix tree (for tests in this package). */
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
        pool.checkInvariants(ownBlocks + radix.size());
        writes.checkInvariants();
        int prefetchingCount = 0;
        for (EngineRequest request : requests.inIdOrder()) {
            prefetchingCount += request.phase == EngineRequest.Phase.PREFETCHING ? 1 : 0;
        }
        if (prefetchingCount != prefetching.size() || running.size() + prefetching.size() > settings.maxNumSeqs()) {
            throw new IllegalStateException("S4: " + running.size() + " running and " + prefetching.size() + " prefetching ("
                    + prefetchingCount + " in that phase), maxNumSeqs " + settings.maxNumSeqs());
        }
        for (EngineRequest request : waiting) {
            if (request.phase != EngineRequest.Phase.WAITING) {
                throw new IllegalStateException("S4: request " + request.spec.requestId() + " is queued but " + request.phase);
            }
        }
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
