package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;

/**
 * Hunt finding F2 (replay {@code hunt/src/test/resources/replays/fixed/F2-preemption-livelock.json}):
 * recompute preemption livelock under GPU-block pressure, completions oldest first, no new arrivals.
 *
 * <p>4 GPU KV blocks. P: 30-token prompt, 3 output tokens (2 blocks, a 3rd to decode its last
 * token). Q: 26-token prompt, 3 output tokens (2 blocks, never grows).
 *
 * <pre>
 *   P prefills and saves; Q is admitted with the last 2 blocks and prefills; Q's save starts staging
 *   P needs its 3rd block: no free block, so the newest running request, Q, is preempted; Q's
 *   staging copy still reads its blocks, so they are held, not freed (R10)
 *   before: still no free block and P is the only one running, so P preempts itself; both are
 *           re-admitted in the same order and the same step comes round again, forever
 *   fixed:  blocks are on their way back, so P keeps its blocks and skips this step's decode;
 *           Q's copy lands, P grows and finishes, then Q runs
 * </pre>
 */
class PreemptionLivelockTest {
    @Test
    void growingRequestWaitsForBlocksHeldByAStagingCopyInsteadOfPreemptingItself() {
        // The replay's store: tp 2 (two lanes, so a save is two staging copies), 2 L2 slots, 3 staging slots.
        StoreSettings store = TinyModel.store(6, 2, 2)
                .withStaging(3, false).withPolicy("bip").withPromotionsAsHeadroom(false).withReadBatching(2, true);
        EngineHarness h = new EngineHarness(store, SchedulerSettings.builder(4).maxNumSeqs(2).maxBatchedTokens(256)
                .prefetchMaxRequests(3).allL1Bypass(false).build(), 1, false);
        h.submit(1, 30, 3, BlockChains.named("P", 1));
        h.scheduler.tick(h.nowNs);                              // P is admitted and prefills before Q arrives
        h.pending.addAll(h.scheduler.drainOps());
        h.submit(2, 26, 3, BlockChains.named("Q", 1));

        // Oldest first, as the hunt drains; before the fix this ran out of steps with both still running.
        h.runToQuiescence(10_000);

        assertTrue(h.scheduler.allFinished());
        assertEquals(List.of(1L, 2L), h.scheduler.finishedIds(), "P, the oldest, is never preempted by its own growth");
        assertEquals(0, h.scheduler.finished().get(0).preemptions());
        assertEquals(4, h.scheduler.freeGpuBlockCount());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void smallRequestsUnderGpuBlockPressureAllFinish() {
        // Around F2: 2 to 4 requests of 1 to 2 prompt blocks (plus a partial block) and 1 to 4 output
        // tokens, arriving before or after the engine has started, 3 to 5 GPU blocks, tp 1 and 2, 1 to 3
        // staging slots, completions oldest first and shuffled. Every request must finish with every GPU
        // block free again, in bounded steps (before the fix several of these never finished).
        int runs = 0;
        for (int tp = 1; tp <= 2; tp++) {
            for (int stagingSlots = 1; stagingSlots <= 3; stagingSlots++) {
                for (long gpuBlocks = 3; gpuBlocks <= 5; gpuBlocks++) {
                    for (long seed = 0; seed < 12; seed++) {
                        StoreSettings store = TinyModel.store(6, 2, tp)
                                .withStaging(stagingSlots, false);
                        EngineHarness h = new EngineHarness(store, SchedulerSettings.builder(gpuBlocks).maxNumSeqs(2)
                                .maxBatchedTokens(256).prefetchMaxRequests(3).allL1Bypass(false).build(), seed, seed % 2 == 1);
                        SplittableRandom draw = new SplittableRandom(seed * 31 + gpuBlocks);
                        int requests = 2 + draw.nextInt(3);
                        for (int r = 1; r <= requests; r++) {
                            int blocks = 1 + draw.nextInt(2);
                            long prompt = blocks * 16L + draw.nextInt(16);
                            long output = 1 + draw.nextInt(4);
                            if (Math.ceilDiv(prompt + output, 16) > gpuBlocks) {
                                continue;
                            }
                            h.submit(r, prompt, output, BlockChains.named("s" + (r % 3), blocks));
                            if (draw.nextBoolean()) {
                                // Sometimes the engine starts on the earlier arrivals before the next one comes.
                                h.scheduler.tick(h.nowNs);
                                h.pending.addAll(h.scheduler.drainOps());
                            }
                        }
                        String where = "tp " + tp + ", staging " + stagingSlots + ", gpu " + gpuBlocks + ", seed " + seed;
                        assertDoesNotThrow(() -> h.runToQuiescence(20_000), where);
                        assertTrue(h.scheduler.allFinished(), where);
                        assertEquals(gpuBlocks, h.scheduler.freeGpuBlockCount(), where);
                        assertTrue(h.store.leftovers().isEmpty(), where + ": " + h.store.leftovers());
                        runs++;
                    }
                }
            }
        }
        assertEquals(2 * 3 * 3 * 12, runs);
    }
}
