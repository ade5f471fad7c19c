package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.request.RequestSpec;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * The vllm-v1 pool keeps a request's last prefix match while it holds instead of walking the chain
 * again: after every caching and eviction below, the kept answer of each waiting request must be the
 * blocks a fresh walk finds. Requests run one at a time through a pool of 10 blocks, so caching a
 * request's keys evicts others' (the seeded sequence makes both the kept answers and the new walks
 * happen many times; the counts at the end say so).
 */
class PrefixMatchShortcutTest {
    private static final int BT = TinyModel.BLOCK_TOKENS;

    /** {@code shared} keys of prefix {@code prefix}, then keys of its own {@code tail}, {@code blocks} in all. */
    private static List<BlockKey> chain(String prefix, int shared, String tail, int blocks) {
        List<BlockKey> keys = new ArrayList<>(BlockChains.named(prefix, shared));
        BlockKey parent = keys.isEmpty() ? BlockKey.ROOT : keys.getLast();
        for (int b = shared; b < blocks; b++) {
            parent = BlockKey.fromTraceId(parent, tail.hashCode(), b);
            keys.add(parent);
        }
        return keys;
    }

    private static RequestSpec spec(long id, List<BlockKey> chain, long promptTokens) {
        return new RequestSpec(id, 0, promptTokens, 1, chain);
    }

    @Test
    void aKeptMatchIsAlwaysWhatAFreshWalkFinds() {
        PrefixCachingBlockPool pool = new PrefixCachingBlockPool(10, true);
        Random random = new Random(12);
        String[] prefixes = {"p", "q", "r"};
        List<RequestSpec> runners = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            int blocks = 2 + random.nextInt(4);
            runners.add(spec(100 + i, chain(prefixes[i % 3], random.nextInt(blocks + 1), "t" + i, blocks),
                    (long) blocks * BT + random.nextInt(2)));
        }
        List<EngineRequest> waiting = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int blocks = 3 + random.nextInt(3);
            // Some waiting prompts end on a block boundary, so their match stops at the cap of one block short.
            waiting.add(new EngineRequest(spec(i, chain(prefixes[i % 3], blocks, "w" + i, blocks), (long) blocks * BT + i % 2)));
        }
        int kept = 0;
        int walked = 0;
        for (int round = 0; round < 400; round++) {
            EngineRequest runner = new EngineRequest(runners.get(random.nextInt(runners.size())));
            pool.cachedPrefixTokens(runner, BT);
            long needBlocks = Math.ceilDiv(runner.promptTokens, BT);
            if (pool.freeCount() >= pool.blocksToTake(runner, needBlocks)) {
                pool.fillTo(runner, needBlocks);
                runner.computedTokens = runner.promptTokens;
                pool.cacheFullBlocks(runner, BT);
                pool.release(runner.gpuBlocks);
                runner.gpuBlocks.clear();
            }
            pool.checkInvariants(0);
            for (EngineRequest request : waiting) {
                long keysCachedBefore = request.gpuPrefixKeysCached;
                boolean known = request.gpuPrefixPool == pool;
                long tokens = pool.cachedPrefixTokens(request, BT);
                int[] blocks = Arrays.copyOf(request.gpuPrefixBlocks, request.gpuPrefixCount);
                EngineRequest fresh = new EngineRequest(request.spec);
                assertEquals(pool.cachedPrefixTokens(fresh, BT), tokens, "round " + round + ", request " + request.requestId);
                assertArrayEquals(Arrays.copyOf(fresh.gpuPrefixBlocks, fresh.gpuPrefixCount), blocks,
                        "round " + round + ", request " + request.requestId);
                if (known && request.gpuPrefixKeysCached == keysCachedBefore) {
                    kept++;
                } else {
                    walked++;
                }
            }
        }
        assertTrue(kept > 100 && walked > 100, "kept " + kept + " matches, walked " + walked + " times");
        assertTrue(pool.evictions() > 50, pool.evictions() + " evictions");
    }
}
