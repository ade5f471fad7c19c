package tierlab.model.serving;

import java.util.List;
import tierlab.model.geometry.BlockKey;

/**
 * The GPU block pool of {@code vllm-v1}, after vLLM's {@code BlockPool} and {@code FreeKVCacheBlockQueue}
 * (docs/engines.md names the release and files): every block has a reference count; a full block
 * carries the chained prefix key ({@link BlockKey}, tierlab's block hash) of the KV it holds and keeps
 * it after its requests free it, so a later request with the same prefix takes the block instead of
 * computing or loading it again. Free blocks wait in one queue, least recently freed at the head: a
 * new block is taken from the head, and taking a cached block there evicts its KV (its key leaves the
 * cache). A request frees its blocks tail first, so the end of a prompt, the part least likely to be
 * shared, is evicted before its beginning.
 *
 * <p>The free queue is intrusive (a previous and a next index per block) so that a cached free block
 * that a new request hits leaves the middle of the queue in constant time. The key map
 * ({@link CachedBlockIndex}) is only ever looked up, never iterated, so its slot order decides nothing.
 * Block numbers enter the requests' lists as one {@code Long} per block made up front, so taking a
 * block allocates nothing.
 *
 * <p>With prefix caching off the pool never records a key: blocks are plain, as in {@link GpuBlockPool}
 * except for the tail-first order of freeing, which changes block numbers and nothing else.
 */
final class PrefixCachingBlockPool extends GpuBlockPool {

    private static final int NONE = -1;
    /** Key-hash buckets of {@link #keysCachedInBucket}: few enough to stay in the CPU's nearest cache. */
    private static final int STOP_BUCKETS = 1024;
    /** Keys cached so far (each caching of a key by a block counts once). */
    private long keysCached;
    /** Block {@code b}: {@link #keysCached} just after it cached its present key. */
    private final long[] cachedAt;
    /** Keys cached so far whose hash falls in each bucket: a key the last walk did not find can only be found after its bucket's count moved. */
    private final long[] keysCachedInBucket = new long[STOP_BUCKETS];

    private final int totalBlocks;
    private final boolean prefixCaching;
    private final int[] refCount;
    private final BlockKey[] keyOfBlock;
    private final int[] prevFree;
    private final int[] nextFree;
    /** Block {@code b} boxed once: the requests' block lists hold these instead of a new {@code Long} per take. */
    private final Long[] boxed;
    private int freeHead = NONE;
    private int freeTail = NONE;
    private int freeCount;
    /**
     * The blocks caching each key, in the order they were cached. vLLM does not de-duplicate: a block that
     * fills with KV another block already caches is cached too (block tables stay append-only), and a
     * lookup takes the first; evicting that one leaves the next to answer.
     */
    private final CachedBlockIndex blocksOfKey;
    private long evictions;
    /**
     * Changes that parked requests' prefix matches and block needs rest on, so far: a key cached or evicted,
     * or a cached block entering or leaving the free queue (and the count the last
     * {@link #changedSinceLastAsked()} saw). Taking or freeing a block that caches nothing changes only the
     * free count, which every admission test reads afresh.
     */
    private long mutations;
    private long mutationsAsked = -1;

    PrefixCachingBlockPool(long totalBlocks, boolean prefixCaching) {
        super(0);
        if (totalBlocks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("gpuKvBlocks " + totalBlocks + " is above " + Integer.MAX_VALUE
                    + " for the vllm-v1 block pool");
        }
        this.totalBlocks = (int) totalBlocks;
        this.prefixCaching = prefixCaching;
        this.refCount = new int[this.totalBlocks];
        this.keyOfBlock = new BlockKey[this.totalBlocks];
        this.prevFree = new int[this.totalBlocks];
        this.nextFree = new int[this.totalBlocks];
        this.boxed = new Long[this.totalBlocks];
        this.cachedAt = new long[this.totalBlocks];
        this.blocksOfKey = new CachedBlockIndex(prefixCaching ? this.totalBlocks : 0);
        for (int block = 0; block < this.totalBlocks; block++) {
            boxed[block] = (long) block;
            appendFree(block);
        }
    }

    @Override
    int freeCount() {
        return freeCount;
    }

    @Override
    boolean noneFree() {
        return freeCount == 0;
    }

    @Override
    boolean cachesPrefixes() {
        return prefixCaching;
    }

    /** The cached key of {@code block}, or null (for tests and the hunt). */
    BlockKey keyOf(long block) {
        return keyOfBlock[(int) block];
    }

    int refCount(long block) {
        return refCount[(int) block];
    }

    /** The free blocks from the head (next evicted) to the tail (for tests). */
    List<Long> freeQueue() {
        List<Long> queue = new java.util.ArrayList<>(freeCount);
        for (int block = freeHead; block != NONE; block = nextFree[block]) {
            queue.add((long) block);
        }
        return queue;
    }

    /**
     * The longest run of the prompt's full blocks, from its first, whose keys are cached, stopping one
     * block short of a prompt that would otherwise be served whole: the last prompt token is always
     * computed, because its forward pass produces the first output token (vLLM's
     * {@code get_computed_blocks} caps the hit at {@code num_tokens - 1} the same way).
     *
     * <p>A parked request is matched again on every admission pass, so the last match is kept while it
     * still holds (see {@link #lastMatchHolds}), and the walk, one key-map probe and one key object per
     * block, is redone only when it might not.
     */
    @Override
    int cachedPrefixBlocks(List<BlockKey> chain) {
        if (!prefixCaching) {
            return 0;
        }
        int count = 0;
        while (count < chain.size() && blocksOfKey.first(chain.get(count)) != CachedBlockIndex.NONE) {
            count++;
        }
        return count;
    }

    @Override
    long cachedPrefixTokens(EngineRequest request, int blockTokens) {
        if (!prefixCaching) {
            request.gpuPrefixCount = 0;
            return 0;
        }
        if (request.gpuPrefixPool == this && lastMatchHolds(request)) {
            return (long) request.gpuPrefixCount * blockTokens;
        }
        List<BlockKey> chain = request.spec.chain();
        int maxBlocks = (int) Math.min((request.promptTokens - 1) / blockTokens, chain.size());
        if (request.gpuPrefixBlocks.length < maxBlocks) {
            request.gpuPrefixBlocks = new int[maxBlocks];
        }
        int count = 0;
        request.gpuPrefixStopBucket = -1;
        for (; count < maxBlocks; count++) {
            BlockKey key = chain.get(count);
            int block = blocksOfKey.first(key);
            if (block == CachedBlockIndex.NONE) {
                request.gpuPrefixStopBucket = stopBucket(key);
                request.gpuPrefixStopBucketKeys = keysCachedInBucket[request.gpuPrefixStopBucket];
                break;
            }
            request.gpuPrefixBlocks[count] = block;
        }
        request.gpuPrefixCount = count;
        request.gpuPrefixPool = this;
        request.gpuPrefixKeysCached = keysCached;
        return (long) count * blockTokens;
    }

    /**
     * Whether a new walk would find the request's last match again. Each block found then still caches
     * the key it was found for, in the same caching (not evicted since, so not cached again since either):
     * it was the first copy of its key then, and a later copy of the key queues behind it, so it is still
     * the first. And the key the walk stopped at is still not cached: no key of its hash bucket was cached
     * since (a key leaves the cache, it never enters it, by an eviction). Reads no key object.
     */
    private boolean lastMatchHolds(EngineRequest request) {
        long keysCachedThen = request.gpuPrefixKeysCached;
        int[] blocks = request.gpuPrefixBlocks;
        for (int i = 0; i < request.gpuPrefixCount; i++) {
            int block = blocks[i];
            if (keyOfBlock[block] == null || cachedAt[block] > keysCachedThen) {
                return false;
            }
        }
        int bucket = request.gpuPrefixStopBucket;
        return bucket < 0 || keysCachedInBucket[bucket] == request.gpuPrefixStopBucketKeys;
    }

    private static int stopBucket(BlockKey key) {
        long lo = key.lo();
        return (int) (lo ^ (lo >>> 32)) & (STOP_BUCKETS - 1);
    }

    /** The new blocks, plus the cached prefix blocks that sit in the free queue now (taking them removes them). */
    @Override
    long blocksToTake(EngineRequest request, long needBlocks) {
        long take = needBlocks - request.gpuPrefixCount;
        int[] blocks = request.gpuPrefixBlocks;
        for (int i = 0; i < request.gpuPrefixCount; i++) {
            take += refCount[blocks[i]] == 0 ? 1 : 0;
        }
        return take;
    }

    @Override
    void fillTo(EngineRequest request, long count) {
        if (request.gpuBlocks.isEmpty()) {
            List<BlockKey> chain = request.spec.chain();
            for (int b = 0; b < request.gpuPrefixCount; b++) {
                int block = request.gpuPrefixBlocks[b];
                if (!chain.get(b).equals(keyOfBlock[block])) {
                    throw new IllegalStateException("G2: request " + request.spec.requestId() + " would reuse GPU block "
                            + block + " for key " + chain.get(b) + " but it holds " + keyOfBlock[block]);
                }
                touch(block);
                request.gpuBlocks.add(boxed[block]);
            }
            request.cachedBlocks = request.gpuPrefixCount;
            request.gpuPrefixCount = 0;
            request.gpuPrefixPool = null;
        }
        fillTo(request.gpuBlocks, count);
    }

    @Override
    void fillTo(List<Long> blocks, long count) {
        while (blocks.size() < count) {
            blocks.add(boxed[allocate()]);
        }
    }

    /** Frees tail first: the last block of the list enters the free queue first and is evicted first. */
    @Override
    void release(List<Long> blocks) {
        for (int i = blocks.size() - 1; i >= 0; i--) {
            int block = (int) (long) blocks.get(i);
            if (refCount[block] <= 0) {
                throw new IllegalStateException("G1: GPU block " + block + " freed with reference count " + refCount[block]);
            }
            if (--refCount[block] == 0) {
                appendFree(block);
                if (keyOfBlock[block] != null) {
                    // A cached block now in the free queue: a request hitting it takes one more free block.
                    mutations++;
                }
            }
        }
    }

    /**
     * Records the keys of the request's full blocks that its computed (or loaded) tokens now cover (vLLM's
     * {@code cache_full_blocks}). A key another block already caches is recorded for this block as well,
     * behind the first.
     */
    @Override
    void cacheFullBlocks(EngineRequest request, int blockTokens) {
        if (!prefixCaching) {
            return;
        }
        long upTo = Math.min(request.fullBlocks(blockTokens), request.computedTokens / blockTokens);
        for (int b = request.cachedBlocks; b < upTo; b++) {
            BlockKey key = request.spec.chain().get(b);
            int block = (int) (long) request.gpuBlocks.get(b);
            if (keyOfBlock[block] == null) {
                keyOfBlock[block] = key;
                blocksOfKey.add(key, block);
                cachedAt[block] = ++keysCached;
                keysCachedInBucket[stopBucket(key)]++;
                mutations++;
            }
        }
        request.cachedBlocks = (int) Math.max(request.cachedBlocks, upTo);
    }

    @Override
    long evictions() {
        return evictions;
    }

    @Override
    boolean changedSinceLastAsked() {
        boolean changed = mutations != mutationsAsked;
        mutationsAsked = mutations;
        return changed;
    }

    private int allocate() {
        int block = freeHead;
        if (block == NONE) {
            throw new IllegalStateException("G1: no free GPU block to hand out (the caller checked the free count)");
        }
        if (refCount[block] != 0) {
            throw new IllegalStateException("G1: free GPU block " + block + " has reference count " + refCount[block]);
        }
        unlinkFree(block);
        BlockKey key = keyOfBlock[block];
        if (key != null) {
            // Taking a cached block drops its KV: the key no longer finds it (another copy may still).
            blocksOfKey.remove(block);
            keyOfBlock[block] = null;
            evictions++;
            mutations++;
        }
        // Taking a block that caches nothing changes only the free count, which the callers test themselves.
        refCount[block] = 1;
        return block;
    }

    private void touch(int block) {
        if (refCount[block] == 0) {
            unlinkFree(block);
            mutations++;
        }
        refCount[block]++;
    }

    private void appendFree(int block) {
        prevFree[block] = freeTail;
        nextFree[block] = NONE;
        if (freeTail == NONE) {
            freeHead = block;
        } else {
            nextFree[freeTail] = block;
        }
        freeTail = block;
        freeCount++;
    }

    private void unlinkFree(int block) {
        int prev = prevFree[block];
        int next = nextFree[block];
        if (prev == NONE) {
            freeHead = next;
        } else {
            nextFree[prev] = next;
        }
        if (next == NONE) {
            freeTail = prev;
        } else {
            prevFree[next] = prev;
        }
        prevFree[block] = NONE;
        nextFree[block] = NONE;
        freeCount--;
    }

    /**
     * G1: the references are exactly the requests' block lists ({@code inRequests} entries) and the
     * blocks held for staging; the free queue holds exactly the unreferenced blocks. G2: the key map
     * and the blocks' keys agree both ways, and nothing is cached with prefix caching off.
     */
    @Override
    void checkInvariants(long inRequests) {
        long references = 0;
        int unreferenced = 0;
        int keyed = 0;
        for (int block = 0; block < totalBlocks; block++) {
            references += refCount[block];
            unreferenced += refCount[block] == 0 ? 1 : 0;
            if (keyOfBlock[block] != null) {
                keyed++;
                List<Integer> mapped = blocksOfKey.copiesOf(keyOfBlock[block]);
                if (!mapped.contains(block)) {
                    throw new IllegalStateException("G2: GPU block " + block + " holds key " + keyOfBlock[block]
                            + " but the cache maps that key to " + mapped);
                }
            }
        }
        blocksOfKey.checkInvariants();
        if (keyed != blocksOfKey.blocks() || (!prefixCaching && keyed != 0)) {
            throw new IllegalStateException("G2: " + blocksOfKey.blocks() + " cached blocks in the key map but " + keyed
                    + " keyed GPU blocks" + (prefixCaching ? "" : " with prefix caching off"));
        }
        long expected = inRequests + heldForStagingBlocks();
        if (references != expected) {
            throw new IllegalStateException("G1: GPU block references " + references + " != " + inRequests
                    + " in requests + " + heldForStagingBlocks() + " held for staging");
        }
        int queued = 0;
        for (int block = freeHead; block != NONE; block = nextFree[block]) {
            if (refCount[block] != 0 || ++queued > totalBlocks) {
                throw new IllegalStateException("G1: free queue holds block " + block + " with reference count "
                        + refCount[block]);
            }
        }
        if (queued != unreferenced || queued != freeCount) {
            throw new IllegalStateException("G1: free queue has " + queued + " blocks, count says " + freeCount + ", "
                    + unreferenced + " are unreferenced");
        }
    }
}
