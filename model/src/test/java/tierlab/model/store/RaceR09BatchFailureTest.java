package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.l2.L2Snapshot;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * R9 (docs/tiered-store.md section 7): one read of a batch of L2 reads fails. All completions of the
 * batch must be drained before the error surfaces, buffers are freed only after their own
 * completion, and the ring stays usable.
 *
 * <p>A is a 4-block prompt that lives only in L2 (stored, snapshotted, restored with an empty L1),
 * so X's acquire emits one batch of four L2 reads into slices at L1 offsets 0, 1, 2, 3 blocks:
 *
 * <pre>
 *   X: lookup A (L2) ── acquire ── L2Read r0 r1 r2 r3 (one batchId)
 *   r3 completes with EIO                     fixed: no AcquireDone yet (r0..r2 still in flight)
 *                                             R9 bug: AcquireDone(X, false) at once
 *   scheduler reacts: releaseLease(X)         fixed (abort): r0..r2 slices stay reserved
 *                                             R9 bug: r0..r2 slices return to the pool
 *   save B (1 block) reserves L1              fixed: r3's freed slice; bug: r0's slice (in flight!)
 *   B's CopyFromGpu completes, B commits      L2Write(B) from that slice pending
 *   r0 r1 r2 complete (late)                  bug: r0 lands over B's staged bytes
 *   B's L2Write completes                     bug: L2 holds A's block 0 where B should be
 * </pre>
 */
class RaceR09BatchFailureTest {

    private static final long X = 10;
    private static final long X_AGAIN = 11;
    private static final long WRITER_B = 20;
    private static final long B_READER = 21;

    private final List<BlockKey> a = BlockChains.named("A", 4);
    private final List<BlockKey> b = BlockChains.named("B", 1);

    /** A stored in L2 only: store it, snapshot the index, restart with an empty L1 and the same L2 bytes. */
    private StoreHarness withAOnlyInL2(Set<KnownBug> bugs) {
        StoreSettings settings = TinyModel.store(8, 16).withKnownBugs(bugs);
        StoreHarness before = new StoreHarness(settings);
        before.save(1, a, 0);
        before.drain();
        L2Snapshot snapshot = before.store.snapshot();
        StoreHarness h = new StoreHarness(TieredStore.restore(settings, snapshot, new DecisionTrace()), before.ledger);
        assertEquals(0, h.store.residentCount());
        return h;
    }

    /** X's acquire of all of A: four L2 reads submitted as one batch. */
    private List<IoOp.L2Read> acquireA(StoreHarness h) {
        LookupResult hit = h.lookup(X, a);
        assertEquals(LookupResult.HitClass.L2, hit.hitClass());
        assertEquals(4, hit.hitBlocks());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(X, hit));
        List<IoOp.L2Read> reads = h.pendingOf(IoOp.L2Read.class);
        assertEquals(4, reads.size());
        for (IoOp.L2Read read : reads) {
            assertEquals(reads.get(0).batchId(), read.batchId(), "one batch");
            assertEquals(4, read.batchSize());
        }
        assertEquals(1, h.store.counter(StoreCounter.L2_READ_BATCHES));
        assertEquals(4 * TinyModel.BLOCK_BYTES, h.store.l1UsedBytes(), "four reservations");
        return reads;
    }

    @Test
    void fixedModelHoldsErrorUntilTheWholeBatchCompletes() {
        StoreHarness h = withAOnlyInL2(Set.of());
        List<IoOp.L2Read> reads = acquireA(h);

        h.fail(reads.get(3));
        assertEquals(List.of(), h.events(), "no AcquireDone while three reads of the batch are in flight");
        assertEquals(1, h.store.counter(StoreCounter.PROMOTIONS_FAILED));
        assertEquals(3 * TinyModel.BLOCK_BYTES, h.store.l1UsedBytes(),
                "only the failed read's reservation is released; the in-flight ones stay held");

        h.complete(reads.get(0));
        h.complete(reads.get(1));
        assertEquals(List.of(), h.events());
        h.complete(reads.get(2));
        assertEquals(List.of(new StoreEvent.AcquireDone(X, false)), h.events(), "the error surfaces after the last completion");
        assertEquals(3, h.store.counter(StoreCounter.PROMOTIONS_PUBLISHED));
        assertEquals(TieredStore.LoadOutcome.LEASE_NOT_READY, h.load(X, 100, 4));

        // The scheduler releases the failed lease; nothing is left behind.
        h.release(X);
        assertEquals(List.of(), h.store.leftovers());
        assertEquals(0, h.store.leasedRemainingBytes());

        // The ring stays usable: the same hit acquires again, reading only the block that failed.
        LookupResult again = h.lookup(X_AGAIN, a);
        assertEquals(LookupResult.HitClass.MIXED, again.hitClass());
        assertEquals(3, again.residentUnits());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(X_AGAIN, again));
        List<IoOp.L2Read> retry = h.pendingOf(IoOp.L2Read.class);
        assertEquals(1, retry.size());
        assertEquals(reads.get(3).l2Offset(), retry.get(0).l2Offset());
        h.complete(retry.get(0));
        assertEquals(List.of(new StoreEvent.AcquireDone(X_AGAIN, true)), h.events());
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(X_AGAIN, 100, 4));
        h.drain();
        assertEquals(4, h.ledger.loadMatches());
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
        h.release(X_AGAIN);
        assertEquals(List.of(), h.store.leftovers());
    }

    @Test
    void fixedModelKeepsInFlightBuffersWhenTheFailedLeaseIsAborted() {
        StoreHarness h = withAOnlyInL2(Set.of());
        List<IoOp.L2Read> reads = acquireA(h);
        h.fail(reads.get(3));
        assertEquals(List.of(), h.events());

        // The same interleaving as the ablation: X is dropped while r0..r2 are still in flight.
        h.release(X);
        assertEquals(3 * TinyModel.BLOCK_BYTES, h.store.l1UsedBytes(), "cancelled reads keep their buffers until they land");
        assertEquals(3, h.store.counter(StoreCounter.PROMOTIONS_CANCELLED));

        h.save(WRITER_B, b, 50);
        IoOp.CopyFromGpu bStaging = h.first(IoOp.CopyFromGpu.class);
        for (int i = 0; i < 3; i++) {
            assertNotEquals(reads.get(i).l1Offset(), bStaging.l1Offset(), "B never stages into a buffer a read still targets");
        }
        assertEquals(reads.get(3).l1Offset(), bStaging.l1Offset(), "B gets the failed read's buffer, whose completion is in");
        h.complete(bStaging);
        for (int i = 0; i < 3; i++) {
            h.complete(reads.get(i));
        }
        assertEquals(List.of(new StoreEvent.SaveStaged(WRITER_B)), h.events(), "an aborted lease reports nothing");
        h.drain();
        long bUnit = h.unitsOf(b).get(0);
        assertEquals(new Content(b.get(0), 0), h.ledger.l2At(bUnit));
        assertEquals(List.of(), h.store.leftovers());

        LookupResult hitB = h.lookup(B_READER, b);
        assertEquals(LookupResult.HitClass.L1, hitB.hitClass());
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(B_READER, 200, 1));
        h.drain();
        assertEquals(1, h.ledger.loadMatches());
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
    }

    @Test
    void ablationBreaksEarlyErrorFreesBuffersUnderInFlightReads() {
        StoreHarness h = withAOnlyInL2(Set.of(KnownBug.R9_SURFACE_BATCH_ERROR_EARLY));
        List<IoOp.L2Read> reads = acquireA(h);

        h.fail(reads.get(3));
        assertEquals(List.of(new StoreEvent.AcquireDone(X, false)), h.events(),
                "the bug surfaces the error while three reads of the batch are in flight");
        assertEquals(3, h.pendingOf(IoOp.L2Read.class).size());

        // The scheduler reacts to the failure by releasing X's lease.
        h.release(X);
        assertEquals(0, h.store.l1UsedBytes(), "the in-flight reads' buffers went back to the pool");

        h.save(WRITER_B, b, 50);
        IoOp.CopyFromGpu bStaging = h.first(IoOp.CopyFromGpu.class);
        assertEquals(reads.get(0).l1Offset(), bStaging.l1Offset(), "B stages into r0's buffer while r0 is in flight");
        h.complete(bStaging);
        IoOp.L2Write bWrite = h.first(IoOp.L2Write.class);
        long bUnit = h.unitsOf(b).get(0);
        assertEquals(bUnit, bWrite.l2Offset());

        // The late reads land; r0 overwrites B's staged bytes before B's L2 write reads them.
        for (IoOp.L2Read read : new ArrayList<>(h.pendingOf(IoOp.L2Read.class))) {
            h.complete(read);
        }
        h.complete(bWrite);
        h.drain();
        assertNotEquals(new Content(b.get(0), 0), h.ledger.l2At(bUnit), "B's L2 unit does not hold B");
        assertEquals(new Content(a.get(0), 0), h.ledger.l2At(bUnit), "it holds the late read's block of A");

        LookupResult hitB = h.lookup(B_READER, b);
        assertEquals(LookupResult.HitClass.L1, hitB.hitClass());
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(B_READER, 200, 1));
        h.drain();
        assertEquals(1, h.ledger.loadMismatches(), "a later load of B gets A's bytes");
        assertFalse(h.ledger.mismatchExamples().isEmpty());
        assertTrue(h.store.counter(StoreCounter.PROMOTIONS_CANCELLED) >= 3);
    }
}
