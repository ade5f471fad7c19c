package tierlab.model.serving;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.store.L2WritePolicy;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.LongMap;

/**
 * The GPU→store writes of the {@code sglang} engine, after SGLang HiCache's write policies
 * ({@code hiradix_cache.py}: {@code write_through}, {@code write_through_selective}, {@code write_back};
 * docs/engines.md): when a page of the {@link RadixCache} is saved to the store, and what keeps its block
 * from being reused while the save's staging copy reads it.
 *
 * <ul>
 *   <li>{@code write-through}: the pages a step computed, when the step ends;</li>
 *   <li>{@code write-after-hits:N}: a page at its N-th GPU prefix hit;</li>
 *   <li>{@code write-back}: a page never saved, when the GPU evicts it; its block is held until staged.</li>
 * </ul>
 *
 * <p>A page is saved at most once. Saves are enqueued under the id of the request that caused them; a page
 * being saved is locked in the tree until every copy enqueued under that id has been staged (the store
 * reports {@code SaveStaged} per save, not per page). The map of saves is only looked up by id, and
 * iterated only for invariants, so its order decides nothing.
 */
final class HiCacheWrites {

    /** The saves enqueued under one id: the pages they lock and the evicted blocks they hold until staged. */
    private static final class SaveJobs {
        int pending;
        final List<RadixCache.Node> locked = new ArrayList<>();
        long heldBlocks;
    }

    private final SchedulerSettings settings;
    private final TieredStore store;
    private final DecisionTrace trace;
    private final RadixCache radix;
    private final GpuBlockPool pool;
    private final L2WritePolicy policy;
    private final LongMap<SaveJobs> saveJobs = new LongMap<>();

    HiCacheWrites(SchedulerSettings settings, TieredStore store, DecisionTrace trace, RadixCache radix, GpuBlockPool pool) {
        this.settings = settings;
        this.store = store;
        this.trace = trace;
        this.radix = radix;
        this.pool = pool;
        this.policy = settings.hostWritePolicy();
    }

    private boolean is(L2WritePolicy.Kind kind) {
        return settings.offload() && policy.kind() == kind;
    }

    /**
     * The GPU evicted {@code victim} while allocating for {@code saveId}: under write-back a page never
     * saved is saved now and its block held until staged (true); otherwise the block is free (false).
     */
    boolean writeBackOnEviction(RadixCache.Node victim, long saveId, long nowNs) {
        if (!is(L2WritePolicy.Kind.WRITE_BACK) || victim.saved
                || !enqueue(saveId, victim.chain, victim.depth - 1, List.of(victim.gpuBlock), nowNs)) {
            return false;
        }
        victim.saved = true;
        pool.holdForStaging(saveId, List.of(victim.gpuBlock));
        saveJobs.get(saveId).heldBlocks++;
        return true;
    }

    /** The request's prefix match hit its first {@code pages} pages: write-after-hits:N saves those hit N times. */
    void countHits(EngineRequest request, int pages, long nowNs) {
        int firstToSave = -1;
        for (int p = 0; p < pages; p++) {
            RadixCache.Node node = radix.node(request.spec.chain().get(p));
            node.hitCount++;
            boolean save = is(L2WritePolicy.Kind.WRITE_AFTER_HITS) && !node.saved && node.hitCount >= policy.hitsBeforeWrite();
            if (save && firstToSave < 0) {
                firstToSave = p;
            } else if (!save && firstToSave >= 0) {
                saveNodes(request, firstToSave, p, nowNs);
                firstToSave = -1;
            }
        }
        if (firstToSave >= 0) {
            saveNodes(request, firstToSave, pages, nowNs);
        }
    }

    /** Write-through: saves the pages {@code [firstNew, end)} the request just added to the tree (none if firstNew < 0). */
    void computed(EngineRequest request, int firstNew, int end, long nowNs) {
        if (firstNew >= 0 && is(L2WritePolicy.Kind.WRITE_THROUGH)) {
            saveNodes(request, firstNew, end, nowNs);
        }
    }

    /** Saves the tree's pages {@code [from, to)} of the request's chain, locking them until staged. */
    private void saveNodes(EngineRequest request, int from, int to, long nowNs) {
        List<BlockKey> chain = request.spec.chain();
        List<Long> blocks = new ArrayList<>(to - from);
        for (int p = from; p < to; p++) {
            RadixCache.Node node = radix.node(chain.get(p));
            node.saved = true;
            blocks.add(node.gpuBlock);
        }
        if (enqueue(request.spec.requestId(), chain, from, blocks, nowNs)) {
            SaveJobs jobs = saveJobs.get(request.spec.requestId());
            for (int p = from; p < to; p++) {
                RadixCache.Node node = radix.node(chain.get(p));
                radix.lock(node);
                jobs.locked.add(node);
            }
        }
    }

    /** Enqueues one save under {@code saveId}; true when it queued blocks (a staging copy will report). */
    private boolean enqueue(long saveId, List<BlockKey> chain, int firstBlock, List<Long> blocks, long nowNs) {
        TieredStore.SaveOutcome outcome = store.enqueueSave(saveId, chain, firstBlock, blocks.size(), blocks, nowNs);
        trace.record("page-save", saveId, firstBlock, blocks.size(), outcome.blocksQueued());
        if (outcome.blocksQueued() == 0) {
            return false;
        }
        SaveJobs jobs = saveJobs.get(saveId);
        if (jobs == null) {
            jobs = new SaveJobs();
            saveJobs.put(saveId, jobs);
        }
        jobs.pending++;
        return true;
    }

    /** A save enqueued under {@code saveId} was staged; once all are, its pages unlock and its held blocks are free. */
    void staged(long saveId) {
        SaveJobs jobs = saveJobs.get(saveId);
        if (jobs == null || --jobs.pending > 0) {
            return;
        }
        for (RadixCache.Node node : jobs.locked) {
            radix.unlock(node);
        }
        pool.releaseHeld(saveId);
        saveJobs.remove(saveId);
    }

    /** Whether a save's copy is still to be staged: its pages or held blocks come free when it is. */
    boolean savesInFlight() {
        return saveJobs.size() > 0;
    }

    /** Adds the pages the saves lock, one entry per lock, to {@code lockHolders}. */
    void addLockHolders(List<RadixCache.Node> lockHolders) {
        for (SaveJobs jobs : saveJobs.valuesInTableOrder()) {
            lockHolders.addAll(jobs.locked);
        }
    }

    /** S1 and S3's share: every save entry has copies pending, and the blocks held for write-back are the pool's. */
    void checkInvariants() {
        long heldForWriteBack = 0;
        for (SaveJobs jobs : saveJobs.valuesInTableOrder()) {
            if (jobs.pending <= 0) {
                throw new IllegalStateException("S3: a save entry with " + jobs.pending + " pending copies");
            }
            heldForWriteBack += jobs.heldBlocks;
        }
        if (heldForWriteBack != pool.heldForStagingBlocks()) {
            throw new IllegalStateException("S1: " + pool.heldForStagingBlocks() + " blocks held for staging but the saves"
                    + " written back on eviction hold " + heldForWriteBack);
        }
    }
}
