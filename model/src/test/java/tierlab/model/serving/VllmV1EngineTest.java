package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.request.RequestOutcome;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * {@code vllm-v1}'s GPU prefix cache, each rule against a hand-computed case. Blocks are 16 tokens; a
 * prompt of 49 tokens has 3 full blocks and needs 4 GPU blocks. Without offload the store stays out of
 * the way, so every figure below is the GPU cache's alone.
 */
class VllmV1EngineTest {
    private static final int BT = TinyModel.BLOCK_TOKENS;

    /** A harness over a vllm-v1 engine whose pool the test can see. */
    private record Rig(EngineHarness h, PrefixCachingBlockPool pool) {
        RequestOutcome outcome(long id) {
            return h.scheduler.finished().stream().filter(o -> o.requestId() == id).findFirst().orElseThrow();
        }
    }

    private static Rig rig(long gpuBlocks, boolean prefixCaching, boolean offload, int maxNumSeqs) {
        SchedulerSettings settings = SchedulerSettings.builder(gpuBlocks).maxNumSeqs(maxNumSeqs).offload(offload)
                .engine(ServingEngines.VLLM_V1).prefixCaching(prefixCaching).build();
        DecisionTrace trace = new DecisionTrace(10_000, null);
        TieredStore store = new TieredStore(TinyModel.store(64, 256), trace);
        PrefixCachingBlockPool pool = new PrefixCachingBlockPool(gpuBlocks, prefixCaching);
        EngineScheduler engine = new EngineScheduler(settings, store, trace, ServingEngines.VLLM_V1, pool);
        return new Rig(new EngineHarness(engine), pool);
    }

    /** {@code shared} keys of the prefix "p", then keys of its own {@code tail}, {@code blocks} in all. */
    private static List<BlockKey> chain(int shared, String tail, int blocks) {
        List<BlockKey> keys = new ArrayList<>(BlockChains.named("p", shared));
        BlockKey parent = keys.isEmpty() ? BlockKey.ROOT : keys.get(keys.size() - 1);
        for (int b = shared; b < blocks; b++) {
            parent = BlockKey.fromTraceId(parent, tail.hashCode(), b);
            keys.add(parent);
        }
        return keys;
    }

    private static List<Long> longs(long... values) {
        List<Long> list = new ArrayList<>();
        for (long v : values) {
            list.add(v);
        }
        return list;
    }

    /**
     * 8 GPU blocks, room for two 4-block requests. A (prefix p0 p1, own a2) runs alone and takes blocks
     * 0-3; freed tail first the queue is [4 5 6 7 | 3 2 1 0]. B and C share p0 p1 with A: both take
     * blocks 0 and 1 from the cache (reference count 2), B adds 4 5 (b2 in 4), C adds 6 7 (c2 in 6).
     * B then C free tail first: [3 2 | 5 4 1 | 7 6 1 0], where 1 and 0 enter only when C, their last
     * holder, frees them. D (another prefix, 4 blocks) takes the head 3 2 5 4: block 2 drops a2 and block
     * 4 drops b2, in that order, while the shared prefix at the tail survives for E.
     */
    @Test
    void threeRequestsSharingAPrefixWithRoomForTwoEvictTheirTailsLeastRecentlyFreedFirst() {
        Rig rig = rig(8, true, false, 16);
        EngineHarness h = rig.h();
        h.submit(1, 3 * BT + 1, 1, chain(2, "a", 3));
        h.runToQuiescence(1_000);
        assertEquals(longs(4, 5, 6, 7, 3, 2, 1, 0), rig.pool().freeQueue(), "A's blocks go back tail first");
        assertEquals(chain(2, "a", 3).get(2), rig.pool().keyOf(2), "a2 stays cached in block 2 after A finished");

        h.submit(2, 3 * BT + 1, 1, chain(2, "b", 3));
        h.submit(3, 3 * BT + 1, 1, chain(2, "c", 3));
        h.step();
        assertEquals(2, rig.pool().refCount(0), "B and C share the cached p0");
        assertEquals(2, rig.pool().refCount(1), "and p1");
        assertEquals(longs(3, 2), rig.pool().freeQueue(), "B took 4 5, C took 6 7");
        h.runToQuiescence(1_000);
        assertEquals(longs(3, 2, 5, 4, 7, 6, 1, 0), rig.pool().freeQueue());
        assertEquals(2 * BT, rig.outcome(2).gpuCachedTokens());
        assertEquals(2 * BT, rig.outcome(3).gpuCachedTokens());
        assertEquals(BT + 1, rig.outcome(3).recomputedTokens(), "only c2 and the last token are computed");
        assertEquals(0, rig.pool().evictions());

        List<BlockKey> other = BlockChains.named("q", 3);
        h.submit(4, 3 * BT + 1, 1, other);
        h.runToQuiescence(1_000);
        assertEquals(2, rig.pool().evictions(), "a2 (block 2) and b2 (block 4) were dropped");
        assertEquals(2, h.scheduler.gpuBlocksEvicted());
        assertEquals(other.get(0), rig.pool().keyOf(3));
        assertEquals(other.get(1), rig.pool().keyOf(2), "D's q1 replaced a2");
        assertEquals(other.get(2), rig.pool().keyOf(5));
        assertNull(rig.pool().keyOf(4), "D's partial block keeps no key; b2 is gone");
        assertEquals(chain(2, "c", 3).get(2), rig.pool().keyOf(6), "c2, freed after b2, survives");

        h.submit(5, 3 * BT + 1, 1, chain(2, "e", 3));
        h.runToQuiescence(1_000);
        assertEquals(2 * BT, rig.outcome(5).gpuCachedTokens(), "the shared prefix, freed last, is still cached");
        assertEquals(3 * BT + 1 + 2 * (BT + 1) + 3 * BT + 1 + BT + 1, h.scheduler.computedPromptTokens());
    }

    /** A prompt of exactly 3 full blocks, sent twice: the second hit stops at 2 blocks so the last token is computed. */
    @Test
    void theLastPromptTokenIsAlwaysComputed() {
        Rig rig = rig(16, true, false, 16);
        EngineHarness h = rig.h();
        List<BlockKey> keys = BlockChains.named("whole", 3);
        h.submit(1, 3 * BT, 1, keys);
        h.runToQuiescence(1_000);
        h.submit(2, 3 * BT, 1, keys);
        h.runToQuiescence(1_000);
        RequestOutcome second = rig.outcome(2);
        assertEquals(2 * BT, second.gpuCachedTokens(), "capped at (48 - 1) / 16 = 2 blocks");
        assertEquals(BT, second.recomputedTokens());
        assertEquals(3 * BT + BT, h.scheduler.computedPromptTokens());
        assertEquals(0, rig.pool().evictions());
    }

    /**
     * As in vLLM, a block whose KV another block already caches is cached too, behind the first: request 1
     * caches k0 k1 k2 in blocks 0 1 2; request 2 (same prompt, 48 tokens) hits blocks 0 1 and computes k2
     * again into block 3, now a second copy. A third request evicting block 2 leaves block 3 to answer.
     */
    @Test
    void aDuplicateBlockIsCachedBehindTheFirstAndAnswersWhenTheFirstIsEvicted() {
        Rig rig = rig(6, true, false, 16);
        EngineHarness h = rig.h();
        List<BlockKey> keys = BlockChains.named("whole", 3);
        h.submit(1, 3 * BT, 1, keys);
        h.runToQuiescence(1_000);
        assertEquals(longs(3, 4, 5, 2, 1, 0), rig.pool().freeQueue());
        h.submit(2, 3 * BT, 1, keys);
        h.runToQuiescence(1_000);
        assertEquals(keys.get(2), rig.pool().keyOf(2));
        assertEquals(keys.get(2), rig.pool().keyOf(3), "the recomputed copy is cached as well");
        assertEquals(longs(4, 5, 2, 3, 1, 0), rig.pool().freeQueue());
        // A 3-block prompt takes 4 5 2, evicting block 2's k2.
        h.submit(3, 3 * BT, 1, BlockChains.named("other", 3));
        h.runToQuiescence(1_000);
        assertEquals(1, rig.pool().evictions());
        h.submit(4, 3 * BT + 1, 1, keys);
        h.runToQuiescence(1_000);
        assertEquals(3 * BT, rig.outcome(4).gpuCachedTokens(), "k2 is served from block 3");
    }

    /** With prefix caching off nothing is remembered: the same prompt is computed again in full. */
    @Test
    void prefixCachingOffCachesNothing() {
        Rig rig = rig(16, false, false, 16);
        EngineHarness h = rig.h();
        h.submit(1, 3 * BT + 1, 1, chain(2, "a", 3));
        h.runToQuiescence(1_000);
        h.submit(2, 3 * BT + 1, 1, chain(2, "a", 3));
        h.runToQuiescence(1_000);
        assertEquals(0, rig.outcome(2).gpuCachedTokens());
        assertEquals(2 * (3 * BT + 1), h.scheduler.computedPromptTokens());
        for (long block = 0; block < 16; block++) {
            assertNull(rig.pool().keyOf(block));
        }
    }

    /**
     * 6 GPU blocks, three 2-block prompts of 32 tokens with 20 output tokens each. All three fit for
     * prefill; the first decode step needs a third block for A: no block is free, so the newest running
     * request, C, is preempted and its two blocks go to A and B. At 48 tokens of KV A needs a fourth
     * block and B, now the newest running request, is preempted; A is never preempted.
     */
    @Test
    void runningOutOfBlocksPreemptsTheNewestRunningRequestFirst() {
        Rig rig = rig(6, true, false, 16);
        EngineHarness h = rig.h();
        for (int id = 1; id <= 3; id++) {
            h.submit(id, 2 * BT, 20, BlockChains.named("r" + id, 2));
        }
        h.runToQuiescence(10_000);
        List<String> preempts = h.trace.recent().stream().filter(e -> e.startsWith("preempt ")).toList();
        assertTrue(preempts.size() >= 2, h.trace.recent().toString());
        assertEquals("preempt 3", preempts.get(0));
        assertEquals("preempt 2", preempts.get(1));
        assertEquals(0, rig.outcome(1).preemptions());
        assertTrue(h.scheduler.allFinished());
        assertEquals(6, h.scheduler.freeGpuBlockCount());
    }

    /**
     * With offload on, a request's blocks stay referenced while its save's staging copy reads them: the
     * request finishes, and its 4 blocks are freed, only when the copy lands.
     */
    @Test
    void blocksAreFreedOnlyWhenTheSaveHasStaged() {
        Rig rig = rig(8, true, true, 16);
        EngineHarness h = rig.h();
        h.submit(1, 3 * BT + 1, 1, chain(2, "a", 3));
        h.step();
        h.completeFirst(op -> op instanceof IoOp.Compute);
        assertTrue(h.pending.stream().anyMatch(op -> op instanceof IoOp.CopyFromGpu), h.pending.toString());
        assertEquals(4, 8 - h.scheduler.freeGpuBlockCount(), "the staging copy still reads them");
        assertEquals(0, h.scheduler.finishedCount());
        while (h.pending.stream().anyMatch(op -> op instanceof IoOp.CopyFromGpu)) {
            h.completeFirst(op -> op instanceof IoOp.CopyFromGpu);
        }
        assertEquals(1, h.scheduler.finishedCount());
        assertEquals(8, h.scheduler.freeGpuBlockCount());
        h.runToQuiescence(1_000);
    }

    /**
     * The GPU cache answers first and the store only for what lies beyond: the second request's first
     * two blocks come from the GPU, the third from the store (saved by the first request).
     */
    @Test
    void theStoreIsAskedOnlyBeyondTheGpuPrefix() {
        Rig rig = rig(8, true, true, 16);
        EngineHarness h = rig.h();
        h.submit(1, 4 * BT + 1, 1, chain(2, "a", 4));
        h.runToQuiescence(1_000);
        // All 4 full blocks are still cached: the GPU serves 64 tokens, the store is asked for nothing beyond.
        h.submit(2, 4 * BT + 1, 1, chain(2, "a", 4));
        h.runToQuiescence(1_000);
        RequestOutcome second = rig.outcome(2);
        assertEquals(4 * BT, second.gpuCachedTokens());
        assertEquals(0, second.hitTokens());
        assertEquals(1, second.recomputedTokens());

        h.submit(3, 5 * BT + 1, 1, BlockChains.named("evicts", 5));
        h.runToQuiescence(1_000);
        // Free queue [6 7 4 5 3 2 1 0]: request 3's 6 blocks are 6 7 4 5 3 2, dropping a3 (3) and a2 (2).
        assertEquals(2, rig.pool().evictions());
        h.submit(4, 4 * BT + 1, 1, chain(2, "a", 4));
        h.runToQuiescence(1_000);
        RequestOutcome fourth = rig.outcome(4);
        assertEquals(2 * BT, fourth.gpuCachedTokens(), "p0 p1 still in the GPU");
        assertEquals(2 * BT, fourth.hitTokens(), "a2 a3 from the store");
        assertEquals(fourth.hitTokens(), fourth.l1Tokens() + fourth.l2Tokens());
        assertEquals(1, fourth.recomputedTokens());
        assertTrue(fourth.loadsWaited() >= 1);
    }

    /** With prefix caching off, vllm-v1 decides exactly as vllm: the same finish times, request by request. */
    @Test
    void withPrefixCachingOffItMatchesTheVllmEngine() {
        Function<String, List<RequestOutcome>> run = kind -> {
            StoreSettings store = TinyModel.store(24, 512);
            SchedulerSettings settings = SchedulerSettings.builder(40).maxNumSeqs(4).maxBatchedTokens(64).engine(kind)
                    .prefixCaching(false).build();
            EngineHarness h = new EngineHarness(store, settings, 7, true);
            for (int i = 0; i < 12; i++) {
                h.submit(i, 5 * BT + i, 1 + i % 3, BlockChains.named("m" + i % 5, 5));
            }
            h.runToQuiescence(100_000);
            return h.scheduler.finished();
        };
        List<RequestOutcome> vllm = run.apply(ServingEngines.VLLM);
        List<RequestOutcome> v1 = run.apply(ServingEngines.VLLM_V1);
        assertEquals(12, vllm.size());
        assertEquals(vllm, v1);
    }
}
