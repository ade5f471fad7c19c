package tierlab.model.serving;

import tierlab.model.request.RequestSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.request.RequestOutcome;
import tierlab.model.store.L2WritePolicy;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * {@code sglang}, each rule against a hand-computed case. Blocks (pages) are 16 tokens: a prompt of 49
 * tokens has 3 full pages and takes 4. The decisions the tests name are read from the decision trace.
 */
class SglangEngineTest {
    private static final int BT = TinyModel.BLOCK_TOKENS;
    private static final int PROMPT = 3 * BT + 1;

    /** A harness over an sglang engine, with the decisions it records. */
    private record Rig(EngineHarness h, SglangEngine engine, List<String> decisions) {
        RequestOutcome outcome(long id) {
            return engine.finished().stream().filter(o -> o.requestId() == id).findFirst().orElseThrow();
        }

        long claimed() {
            return h.store.counter(StoreCounter.STORE_BLOCKS_CLAIMED);
        }

        List<String> decisions(String kind) {
            return decisions.stream().filter(d -> d.startsWith(kind + " ")).toList();
        }
    }

    private static SchedulerSettings settings(long gpuBlocks, boolean offload, int maxNumSeqs) {
        return SchedulerSettings.builder(gpuBlocks).maxNumSeqs(maxNumSeqs).offload(offload)
                .engine(ServingEngines.SGLANG).build();
    }

    private static Rig rig(SchedulerSettings settings, long l1Blocks) {
        List<String> decisions = new ArrayList<>();
        DecisionTrace trace = new DecisionTrace(0, (kind, values) -> {
            StringBuilder line = new StringBuilder(kind);
            for (long v : values) {
                line.append(' ').append(v);
            }
            decisions.add(line.toString());
        });
        TieredStore store = new TieredStore(TinyModel.store(l1Blocks, 256), trace);
        SglangEngine engine = new SglangEngine(settings, store, trace);
        return new Rig(new EngineHarness(engine), engine, decisions);
    }

    /** {@code shared} keys of the prefix "p", then keys of its own {@code tail}, {@code blocks} in all. */
    private static List<BlockKey> chain(int shared, String tail, int blocks) {
        List<BlockKey> keys = new ArrayList<>(BlockChains.named("p", shared));
        BlockKey parent = keys.isEmpty() ? BlockKey.ROOT : keys.getLast();
        for (int b = shared; b < blocks; b++) {
            parent = BlockKey.fromTraceId(parent, tail.hashCode(), b);
            keys.add(parent);
        }
        return keys;
    }

    /**
     * 8 GPU pages, handed out oldest freed first. A (p0 p1 a2) takes blocks 0-3 and leaves its 3 full pages
     * (0 1 2) in the tree, its partial block 3 freed behind 4-7. B (p0 p1 b2) matches p0 p1 and takes 4 5:
     * b2 in block 4, 4 pages cached, 4 free. C (p0 p1 c2, 40 output tokens, so it runs long) locks p0 p1 and takes
     * 2 pages, leaving 2 free, and its c2 joins the tree (now 5 pages; C also holds its partial page). D
     * (another prefix, 4 pages) needs 2 more: the unlocked leaves go least recently used first, a2 then b2;
     * the shared p0 p1 under C's lock stay, and E finds them.
     */
    @Test
    void eviction_takesUnlockedLeavesLeastRecentlyUsedFirstAndNeverALockedPrefix() {
        Rig rig = rig(settings(8, false, 16), 64);
        EngineHarness h = rig.h();
        h.submit(1, PROMPT, 1, chain(2, "a", 3));
        h.runToQuiescence(1_000);
        h.submit(2, PROMPT, 1, chain(2, "b", 3));
        h.runToQuiescence(1_000);
        assertEquals(4, rig.engine().cachedPages());
        assertEquals(2 * BT, rig.outcome(2).gpuCachedTokens());
        assertEquals(BT + 1, rig.outcome(2).recomputedTokens());

        h.submit(3, PROMPT, 40, chain(2, "c", 3));
        h.step();
        h.completeFirst(op -> op instanceof IoOp.Compute);
        assertEquals(5, rig.engine().cachedPages(), "c2 joined the tree after C's prefill");
        List<BlockKey> other = BlockChains.named("q", 3);
        h.submit(4, PROMPT, 1, other);
        h.runToQuiescence(1_000);
        List<String> evicted = rig.decisions("gpu-evict");
        assertEquals(List.of("gpu-evict 2 3", "gpu-evict 4 3"), evicted.subList(0, 2),
                "a2 (block 2) then b2 (block 4), both at depth 3");
        assertEquals(2 * BT, rig.outcome(3).gpuCachedTokens());
        assertTrue(rig.engine().gpuBlocksEvicted() >= 2);

        h.submit(5, PROMPT, 1, chain(2, "e", 3));
        h.runToQuiescence(1_000);
        assertEquals(2 * BT, rig.outcome(5).gpuCachedTokens(), "the prefix C held is still cached");
    }

    /**
     * Three pages cached (a 49-token prompt), then prompts of 47, 48 and 49 tokens over the same keys: a
     * match covers at most (prompt - 1) / 16 full pages, so the last token is always computed: 2, 2 and 3
     * pages (32, 32 and 48 tokens), the 48-token prompt recomputing its whole last page.
     */
    @Test
    void theMatchStopsOneTokenShortOfThePrompt() {
        Rig rig = rig(settings(16, false, 16), 64);
        EngineHarness h = rig.h();
        List<BlockKey> keys = BlockChains.named("whole", 3);
        h.submit(1, PROMPT, 1, keys);
        h.runToQuiescence(1_000);
        long id = 2;
        for (long promptTokens : new long[] {47, 48, 49}) {
            h.submit(id, promptTokens, 1, keys);
            h.runToQuiescence(1_000);
            id++;
        }
        assertEquals(List.of(2 * BT, 2 * BT, 3 * BT), List.of((int) rig.outcome(2).gpuCachedTokens(),
                (int) rig.outcome(3).gpuCachedTokens(), (int) rig.outcome(4).gpuCachedTokens()));
        assertEquals(List.of(15L, 16L, 1L), List.of(rig.outcome(2).recomputedTokens(), rig.outcome(3).recomputedTokens(),
                rig.outcome(4).recomputedTokens()));
    }

    /** Write-through saves A's 3 full pages when its prefill computes them, before anyone hits them. */
    @Test
    void writeThrough_savesPagesAsSoonAsTheyAreComputed() {
        Rig rig = rig(settings(16, true, 16).withHostWritePolicy(L2WritePolicy.WRITE_THROUGH), 64);
        EngineHarness h = rig.h();
        h.submit(1, PROMPT, 5, chain(3, "a", 3));
        h.step();
        assertEquals(0, rig.claimed());
        h.completeFirst(op -> op instanceof IoOp.Compute);
        assertEquals(3, rig.claimed(), "saved at the step that computed them, with 4 output tokens to go");
        h.runToQuiescence(1_000);
        assertEquals(List.of("page-save 1 0 3 3"), rig.decisions("page-save"));
    }

    /**
     * write-after-hits:2: A computes p0 p1 p2 (no save). B matches all 3 (hit 1 each), C too (hit 2 each):
     * C's admission saves them, once; D's third hit saves nothing more.
     */
    @Test
    void writeAfterHits_savesAPageAfterExactlyNGpuHits() {
        Rig rig = rig(settings(16, true, 16).withHostWritePolicy(L2WritePolicy.writeAfterHits(2)), 64);
        EngineHarness h = rig.h();
        List<BlockKey> keys = chain(3, "x", 3);
        h.submit(1, PROMPT, 1, keys);
        h.runToQuiescence(1_000);
        assertEquals(0, rig.claimed());
        h.submit(2, PROMPT, 1, keys);
        h.runToQuiescence(1_000);
        assertEquals(0, rig.claimed(), "one hit each: not yet");
        assertEquals(3 * BT, rig.outcome(2).gpuCachedTokens());
        h.submit(3, PROMPT, 1, keys);
        h.runToQuiescence(1_000);
        assertEquals(3, rig.claimed(), "the second hit saves all three");
        assertEquals(List.of("page-save 3 0 3 3"), rig.decisions("page-save"));
        h.submit(4, PROMPT, 1, keys);
        h.runToQuiescence(1_000);
        assertEquals(3, rig.claimed(), "saved once");
    }

    /**
     * write-back, 4 GPU pages: A leaves p0 p1 p2 in the tree (nothing saved). B (another prompt, 4 pages)
     * evicts them, a2's leaf chain from the tail: p2, p1, p0, each saved as it goes, under B's id; the
     * blocks come free when the copies land, and B runs then. C (A's prompt again) finds them in L1.
     */
    @Test
    void writeBack_savesAPageWhenItIsEvictedFromTheGpu() {
        Rig rig = rig(settings(4, true, 16).withHostWritePolicy(L2WritePolicy.WRITE_BACK), 64);
        EngineHarness h = rig.h();
        List<BlockKey> keys = chain(3, "x", 3);
        h.submit(1, PROMPT, 1, keys);
        h.runToQuiescence(1_000);
        assertEquals(0, rig.claimed(), "nothing is saved while it stays on the GPU");
        h.submit(2, PROMPT, 1, BlockChains.named("q", 3));
        h.runToQuiescence(1_000);
        assertEquals(List.of("page-save 2 2 1 1", "page-save 2 1 1 1", "page-save 2 0 1 1"), rig.decisions("page-save"));
        assertEquals(3, rig.claimed());
        assertEquals(0, rig.outcome(2).gpuCachedTokens());
        h.submit(3, PROMPT, 1, keys);
        h.runToQuiescence(1_000);
        assertEquals(3 * BT, rig.outcome(3).l1Tokens(), "written back, then loaded back from the host tier");
        assertEquals(0, rig.outcome(3).gpuCachedTokens());
    }

    /**
     * The prefetch stop policies over one storage hit: A's 3 pages are saved, then pushed out of a 3-page
     * L1 and of a 4-page GPU by B and C, so D (A's prompt again) finds all 48 tokens in L2 alone.
     */
    private static Rig storageHit(PrefetchStop stop) {
        Rig rig = rig(settings(4, true, 16).withPrefetchStop(stop), 3);
        EngineHarness h = rig.h();
        h.submit(1, PROMPT, 1, chain(3, "x", 3));
        h.runToQuiescence(1_000);
        h.submit(2, PROMPT, 1, BlockChains.named("q", 3));
        h.runToQuiescence(1_000);
        h.submit(3, PROMPT, 1, BlockChains.named("r", 3));
        h.runToQuiescence(1_000);
        h.submit(4, PROMPT, 1, chain(3, "x", 3));
        h.runToQuiescence(1_000);
        return rig;
    }

    @Test
    void waitComplete_waitsForTheWholePrefetch() {
        Rig rig = storageHit(PrefetchStop.WAIT_COMPLETE);
        RequestOutcome d = rig.outcome(4);
        assertEquals(3 * BT, d.l2Tokens(), "every page came from L2");
        assertEquals(1, d.recomputedTokens(), "the last token only");
        assertEquals(0, rig.engine().prefetchTimeoutTokens());
        assertEquals(1, rig.engine().prefetchCalls());
    }

    @Test
    void bestEffort_stopsAtTheFirstStepAndRecomputesWhatHadNotArrived() {
        Rig rig = storageHit(PrefetchStop.BEST_EFFORT);
        RequestOutcome d = rig.outcome(4);
        assertEquals(PROMPT, d.recomputedTokens(), "nothing had arrived when the step began");
        assertEquals(3 * BT, rig.engine().prefetchTimeoutTokens());
        assertEquals(List.of("prefetch-stop 4 48"), rig.decisions("prefetch-stop"));
    }

    /**
     * timeout:BASE+PER_1K: the deadline is start + base + per-1k × 49 / 1024. With 1 s + 0 the prefetch
     * (microseconds in this harness) lands in time; with 0.0005 ms + 0 (500 ns) it is stopped at the first
     * event after it began, 1,000 ns later: the harness has completed one operation, the L2 read of the
     * first block, so that block is loaded (it came from L2) and the other two are recomputed.
     */
    @Test
    void timeout_stopsAtBasePlusPerKiloTokensAndRecomputesTheRest() {
        assertEquals(1_000 + 2_000_000 + 20_000_000L * PROMPT / 1024,
                PrefetchStop.timeout(2_000_000, 20_000_000).deadlineNs(1_000, PROMPT));
        Rig patient = storageHit(PrefetchStop.timeout(1_000_000_000L, 0));
        assertEquals(0, patient.engine().prefetchTimeoutTokens());
        assertEquals(3 * BT, patient.outcome(4).l2Tokens());
        Rig hasty = storageHit(PrefetchStop.timeout(500, 0));
        assertEquals(2 * BT, hasty.engine().prefetchTimeoutTokens());
        assertEquals(List.of("prefetch-stop 4 32"), hasty.decisions("prefetch-stop"));
        RequestOutcome d = hasty.outcome(4);
        assertEquals(BT, d.l2Tokens(), "the first block arrived in time");
        assertEquals(0, d.l1Tokens());
        assertEquals(2 * BT + 1, d.recomputedTokens());
    }

    /**
     * One sequence slot, held by X. B (no match), C (1 page of p) and D (2 pages of p) wait behind it; when
     * X finishes, lpm admits D, C, B; fcfs B, C, D.
     */
    @Test
    void lpm_admitsTheLongestGpuPrefixFirstAndFcfsKeepsArrivalOrder() {
        assertEquals(List.of(1L, 9L, 4L, 3L, 2L), orderUnder(WaitingOrder.LPM));
        assertEquals(List.of(1L, 9L, 2L, 3L, 4L), orderUnder(WaitingOrder.FCFS));
    }

    private static List<Long> orderUnder(WaitingOrder order) {
        Rig rig = rig(settings(64, false, 1).withWaitingOrder(order), 64);
        EngineHarness h = rig.h();
        h.submit(1, PROMPT, 1, chain(3, "p", 3));
        h.runToQuiescence(1_000);
        h.submit(9, PROMPT, 3, BlockChains.named("x", 3));
        h.step();
        h.submit(2, PROMPT, 1, BlockChains.named("q", 3));
        h.submit(3, PROMPT, 1, chain(1, "c", 3));
        h.submit(4, PROMPT, 1, chain(2, "d", 3));
        h.runToQuiescence(1_000);
        assertEquals(BT, rig.outcome(3).gpuCachedTokens());
        assertEquals(2 * BT, rig.outcome(4).gpuCachedTokens());
        return rig.engine().finishedIds();
    }

    /**
     * maxBatchedTokens 32, a 100-token prompt: chunks of 32, 32, 32 and 4, and each chunk's full pages join
     * the tree at once (2, 4, 6, then still 6: the 100th token fills no page).
     */
    @Test
    void chunkedPrefill_splitsThePromptUnderTheTokenBudgetAndCachesEachChunksPages() {
        SchedulerSettings settings = SchedulerSettings.builder(16).maxNumSeqs(16).maxBatchedTokens(32).offload(false)
                .engine(ServingEngines.SGLANG).build();
        Rig rig = rig(settings, 64);
        EngineHarness h = rig.h();
        h.submit(1, 100, 1, BlockChains.named("long", 6));
        h.step();
        List<Long> chunks = new ArrayList<>();
        List<Integer> pages = new ArrayList<>();
        while (rig.engine().finishedCount() == 0) {
            IoOp.Compute step = (IoOp.Compute) h.completeFirst(op -> op instanceof IoOp.Compute);
            chunks.add(step.newTokens());
            pages.add(rig.engine().cachedPages());
        }
        assertEquals(List.of(32L, 32L, 32L, 4L), chunks);
        assertEquals(List.of(2, 4, 6, 6), pages);
    }

    /**
     * 5 GPU pages; A and B, 32-token prompts (2 pages each) with 20 output tokens. After both prefills one
     * page is free and all four cached pages are locked. A's first decode takes the free page; B's finds
     * none and nothing evictable, so a request is retracted: both have 1 output token and equal prompts,
     * so the newest, B itself. B's pages stay in the tree, unlocked.
     */
    @Test
    void retract_picksFewestOutputTokensThenLongestPromptThenNewest() {
        Rig rig = rig(settings(5, false, 16), 64);
        EngineHarness h = rig.h();
        h.submit(1, 2 * BT, 20, BlockChains.named("a", 2));
        h.submit(2, 2 * BT, 20, BlockChains.named("b", 2));
        h.step();
        h.completeFirst(op -> op instanceof IoOp.Compute);
        assertEquals(List.of("retract 2"), rig.decisions("retract"));
        assertEquals(4, rig.engine().cachedPages(), "B's pages stay cached");
        h.runToQuiescence(10_000);
        assertEquals(2, rig.engine().finishedCount());
        assertTrue(rig.outcome(2).preemptions() >= 1);
        assertEquals(rig.engine().preemptions(), rig.outcome(1).preemptions() + rig.outcome(2).preemptions());
    }

    /** The order itself: fewer output tokens first, then the longer prompt, then the newer request. */
    @Test
    void retractOrder_fewerOutputTokensThenLongerPromptThenNewer() {
        EngineRequest shortPrompt = running(1, 32, 3);
        EngineRequest longPrompt = running(2, 64, 3);
        EngineRequest fewerTokens = running(3, 16, 1);
        EngineRequest sameAsLong = running(4, 64, 3);
        assertTrue(SglangEngine.retractsBefore(fewerTokens, longPrompt));
        assertTrue(SglangEngine.retractsBefore(longPrompt, shortPrompt));
        assertTrue(SglangEngine.retractsBefore(sameAsLong, longPrompt));
        assertTrue(!SglangEngine.retractsBefore(shortPrompt, fewerTokens));
    }

    private static EngineRequest running(long id, long promptTokens, long outputDone) {
        EngineRequest request = new EngineRequest(new tierlab.model.request.RequestSpec(id, 0, promptTokens, 10,
                BlockChains.named("r" + id, (int) (promptTokens / BT))));
        request.outputDone = outputDone;
        return request;
    }
}
