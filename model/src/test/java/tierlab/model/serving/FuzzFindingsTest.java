package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;

/** Minimal reproductions of the failures ModelFuzzTest found (each asserts the behaviour the spec asks for). */
class FuzzFindingsTest {

    static StoreSettings store(int tp, long l1Blocks, long l2Blocks) {
        return TinyModel.store(l1Blocks, l2Blocks, tp);
    }

    static boolean compute(IoOp op) {
        return op instanceof IoOp.Compute;
    }

    static Predicate<IoOp> staging(long requestId) {
        return op -> op instanceof IoOp.CopyFromGpu c && c.requestId() == requestId;
    }

    static void quiesce(EngineHarness h) {
        h.runToQuiescence(100_000);
        assertTrue(h.scheduler.allFinished(), "I10: waiting " + h.scheduler.waitingCount() + ", running "
                + h.scheduler.runningCount() + ", leftovers " + h.store.leftovers());
        assertEquals(List.of(), h.store.leftovers());
    }

    /** A: a warm hit longer than L1 (3 blocks, L1 = 2 blocks) with prefetch on is never admitted. */
    @Test
    void a_hitLargerThanL1IsNeverAdmitted() {
        EngineHarness h = new EngineHarness(store(1, 2, 16), SchedulerSettings.defaults(8).withPrefetch(1, true), 1, false);
        List<BlockKey> p = BlockChains.named("P", 3);
        h.submit(0, 3 * 16 + 1, 1, p);
        quiesce(h);
        h.submit(1, 3 * 16 + 1, 1, p);
        quiesce(h);
    }

    /**
     * B: X's prefetch ends while Z (a miss admitted in the same pass) holds the GPU blocks X needs; Z's
     * save was given X's leased slot by the ring and waits for X's lease; X waits for Z's blocks.
     */
    @Test
    void b_parkedPrefetchLeaseBlocksTheStoreOfTheRequestHoldingItsGpuBlocks() {
        EngineHarness h = new EngineHarness(store(1, 2, 3), SchedulerSettings.builder(4).maxNumSeqs(2)
                .maxBatchedTokens(512).prefetchMaxRequests(1).build(), 1, false);
        List<BlockKey> x = BlockChains.named("X", 1);
        h.submit(0, 17, 1, x);                                  // cold: X at slot 0
        h.submit(1, 33, 1, BlockChains.named("Y", 2));         // cold: Y at slots 1, 2; X leaves L1
        quiesce(h);
        h.submit(2, 17, 1, x);                                  // L2 hit → prefetch, lease on X's unit
        h.submit(3, 33, 1, BlockChains.named("Z", 2));         // miss → admitted, takes 3 of 4 GPU blocks
        quiesce(h);
    }

    /**
     * C: X is preempted while its save's staging copy is in flight, re-admitted and prefilled again;
     * the cancelled copy's SaveStaged is taken as the new save's, X finishes, and Y computes into the
     * GPU blocks the new save is about to stage from.
     */
    @Test
    void c_cancelledSavesStagedEventReleasesTheNewIncarnation() {
        StoreSettings settings = store(2, 32, 64).withStaging(1, true);
        EngineHarness h = new EngineHarness(settings, SchedulerSettings.builder(6).maxNumSeqs(1).maxBatchedTokens(512)
                .build(), 1, false);
        h.submit(0, 33, 2, BlockChains.named("X", 2));
        h.submit(1, 79, 1, BlockChains.named("Y", 4));
        h.scheduler.tick(h.nowNs);
        h.pending.addAll(h.scheduler.drainOps());
        h.completeFirst(FuzzFindingsTest::compute);                 // X prefilled: lane 0 stages, lane 1 queued
        assertTrue(h.scheduler.preempt(0, h.nowNs));             // lane 1 dropped, lane 0 copy still in flight
        h.scheduler.tick(h.nowNs);
        h.pending.addAll(h.scheduler.drainOps());
        h.completeFirst(FuzzFindingsTest::compute);                 // X's decode step lands (X not running); X re-admitted
        h.completeFirst(FuzzFindingsTest::compute);                 // X prefilled again: a new save is queued
        h.completeFirst(staging(0));                                 // the cancelled copy lands
        quiesce(h);
        assertEquals(0, h.ledger.stagingMismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(0, h.ledger.loadMismatches(), h.ledger.mismatchExamples().toString());
    }

    /**
     * E: A's staging copy (2 of 3 L1 blocks reserved) is in flight when B's save gets A's slots from
     * the ring and commits; C leases B's keys and one promotion waits for space; A's copy lands, sees
     * C's lease and waits for it holding its reservation, although its slots are no longer A's.
     */
    @Test
    void e_stagedStoreOfReallocatedSlotsWaitsForTheNewOwnersLease() {
        StoreSettings settings = store(1, 3, 2).withStaging(2, true);
        EngineHarness h = new EngineHarness(settings, SchedulerSettings.builder(16).maxNumSeqs(2)
                .maxBatchedTokens(512).prefetchMaxRequests(1).build(), 1, false);
        List<BlockKey> b = BlockChains.named("B", 2);
        h.submit(0, 32, 1, BlockChains.named("A", 2));
        h.submit(1, 32, 1, b);
        h.submit(2, 33, 1, b);
        h.scheduler.tick(h.nowNs);
        h.pending.addAll(h.scheduler.drainOps());
        h.completeFirst(FuzzFindingsTest::compute);                 // A and B prefilled; A stages 2 blocks, B's slots evict A's run
        // Finish B's save (its two single-block batches and their writes) while A's copy is in flight.
        while (h.scheduler.finishedIds().stream().noneMatch(id -> id == 1)) {
            h.completeFirst(op -> staging(1).test(op) || op instanceof IoOp.L2Write || compute(op));
        }
        quiesce(h);
    }

    /**
     * G: P and Q are L2 hits; whichever runs needs one more GPU block to decode while the other's
     * prefetch holds the rest, so it preempts itself (the only running request); the other then runs
     * into the same wall while the first prefetches again. Nobody finishes.
     */
    @Test
    void g_decodeGrowthPreemptsItselfWhileAPrefetchHoldsTheBlocks() {
        EngineHarness h = new EngineHarness(store(1, 2, 16), SchedulerSettings.builder(6).maxNumSeqs(2)
                .maxBatchedTokens(512).build(), 1, false);
        List<BlockKey> a = BlockChains.named("A", 2);
        List<BlockKey> b = BlockChains.named("B", 2);
        h.submit(0, 32, 1, a);
        h.submit(1, 32, 1, b);
        h.submit(2, 32, 1, BlockChains.named("C", 2));       // pushes A and B out of L1
        quiesce(h);
        h.submit(3, 47, 3, a);                                  // 3 GPU blocks for the prompt, a 4th to decode
        h.submit(4, 47, 3, b);
        quiesce(h);
    }
}
