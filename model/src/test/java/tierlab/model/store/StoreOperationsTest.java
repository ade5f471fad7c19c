package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.IoOp.Content;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.LookupResult.LeaseStatus;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * Preconditions, outcome and waiting rule of every operation in docs/tiered-store.md section 4.
 * The races of section 7 have their own classes (Race*Test).
 */
class StoreOperationsTest {

    static StoreHarness storedAndWritten(StoreSettings settings, long requestId, List<BlockKey> chain) {
        StoreHarness h = new StoreHarness(settings);
        h.save(requestId, chain, 0);
        h.drain();
        h.events();
        return h;
    }

    @Nested
    class Lookup {
        @Test
        void missWhenNothingIsStored() {
            StoreHarness h = new StoreHarness(TinyModel.store(16, 64));
            LookupResult result = h.lookup(1, BlockChains.named("a", 4));
            assertEquals(HitClass.MISS, result.hitClass());
            assertEquals(0, result.hitTokens());
            assertEquals(LeaseStatus.NONE, result.leaseStatus());
            assertEquals(1, h.store.counter(StoreCounter.LOOKUP_MISS));
        }

        @Test
        void l1HitTakesTheLeaseInTheSameStep() {
            List<BlockKey> chain = BlockChains.named("a", 4);
            StoreHarness h = storedAndWritten(TinyModel.store(16, 64), 1, chain);
            LookupResult result = h.lookup(2, chain);
            assertEquals(HitClass.L1, result.hitClass());
            assertEquals(LeaseStatus.LEASED, result.leaseStatus());
            assertEquals(4 * 16, result.hitTokens());
            assertEquals(4 * TinyModel.BLOCK_BYTES, h.store.leasedRemainingBytes());
            assertTrue(h.store.hasLease(2));
        }

        @Test
        void hitCoveringTheWholePromptIsCappedOneTokenShort() {
            List<BlockKey> chain = BlockChains.named("a", 4);
            StoreHarness h = storedAndWritten(TinyModel.store(16, 64), 1, chain);
            LookupResult result = h.store.lookup(2, chain, 0, 4 * 16, 0);
            assertEquals(4 * 16 - 1, result.hitTokens(), "the last token is always computed");
            assertEquals(4, result.hitBlocks(), "the capped block is still loaded whole");
        }

        @Test
        void walkStopsAtTheFirstAbsentKeyAndStartsAtTheFirstUncomputedBlock() {
            List<BlockKey> chain = BlockChains.named("a", 6);
            StoreHarness h = new StoreHarness(TinyModel.store(32, 64));
            h.save(1, chain.subList(0, 3), 0);
            h.drain();
            LookupResult fromStart = h.store.lookup(2, chain, 0, 6 * 16 + 1, 0);
            assertEquals(3, fromStart.hitBlocks(), "I8: no hit past an absent key");
            h.store.releaseLease(2, 0);
            LookupResult fromBlockOne = h.store.lookup(3, chain, 16, 6 * 16 + 1, 0);
            assertEquals(1, fromBlockOne.startBlock());
            assertEquals(2, fromBlockOne.hitBlocks());
            h.store.releaseLease(3, 0);
            LookupResult unaligned = h.store.lookup(4, chain, 8, 6 * 16 + 1, 0);
            assertEquals(HitClass.MISS, unaligned.hitClass(), "an unaligned start yields no span");
        }

        @Test
        void mixedAndL2Classes() {
            List<BlockKey> chain = BlockChains.named("a", 4);
            StoreSettings settings = TinyModel.store(5, 64);
            StoreHarness h = storedAndWritten(settings, 1, chain);
            // Four blocks fit; push two of them out of L1 with another prompt.
            h.save(2, BlockChains.named("b", 2), 10);
            h.drain();
            LookupResult mixed = h.lookup(3, chain);
            assertEquals(HitClass.MIXED, mixed.hitClass());
            assertEquals(LeaseStatus.NONE, mixed.leaseStatus(), "no lease for mixed results");
            assertTrue(mixed.residentUnits() > 0 && mixed.residentUnits() < 4);
            assertFalse(h.store.hasLease(3));

            StoreHarness cold = h.restartedWithEmptyL1();
            LookupResult l2 = cold.lookup(4, chain);
            assertEquals(HitClass.L2, l2.hitClass());
            assertEquals(0, l2.residentUnits());
        }

        @Test
        void askingAgainWithTheSameRangesReturnsTheExistingLease() {
            List<BlockKey> chain = BlockChains.named("a", 3);
            StoreHarness h = storedAndWritten(TinyModel.store(16, 64), 1, chain);
            h.lookup(2, chain);
            long created = h.store.counter(StoreCounter.LEASES_CREATED);
            LookupResult again = h.lookup(2, chain);
            assertEquals(LeaseStatus.LEASED, again.leaseStatus());
            assertEquals(created, h.store.counter(StoreCounter.LEASES_CREATED));
            assertEquals(3 * TinyModel.BLOCK_BYTES, h.store.leasedRemainingBytes());
        }
    }

    @Nested
    class Leases {
        @Test
        void loadReleasesTheLeaseRangesAsItFinishes() {
            List<BlockKey> chain = BlockChains.named("a", 3);
            StoreHarness h = storedAndWritten(TinyModel.store(16, 64), 1, chain);
            h.lookup(2, chain);
            assertEquals(TieredStore.LoadOutcome.STARTED, h.load(2, 100, 3));
            IoOp.CopyToGpu copy = h.first(IoOp.CopyToGpu.class);
            assertEquals(3, copy.segments().size(), "one grouped copy for all L1 hits");
            assertEquals(1, h.pendingOf(IoOp.CopyToGpu.class).size());
            h.complete(copy);
            assertEquals(0, h.store.leasedRemainingBytes(), "ranges released as the load finished");
            assertEquals(3, h.ledger.loadMatches());
            assertEquals(List.of(new StoreEvent.LoadDone(2, true)), h.events());
            h.release(2);
            assertEquals(0, h.store.leaseCount());
            assertTrue(h.store.leftovers().isEmpty());
        }

        @Test
        void releaseDuringLoadCompletesWhenTheLastLoadEnds() {
            List<BlockKey> chain = BlockChains.named("a", 2);
            StoreHarness h = storedAndWritten(TinyModel.store(16, 64), 1, chain);
            h.lookup(2, chain);
            h.load(2, 100, 2);
            h.release(2);
            assertTrue(h.store.hasLease(2), "marked release-all, still held while copying");
            assertEquals(2 * TinyModel.BLOCK_BYTES, h.store.leasedRemainingBytes());
            h.drain();
            assertFalse(h.store.hasLease(2));
            assertEquals(0, h.store.leasedRemainingBytes());
        }

        @Test
        void loadPreconditionsAreValues() {
            List<BlockKey> chain = BlockChains.named("a", 2);
            StoreHarness h = storedAndWritten(TinyModel.store(16, 64), 1, chain);
            assertEquals(TieredStore.LoadOutcome.NO_LEASE, h.load(9, 0, 2));
            h.lookup(2, chain);
            h.load(2, 100, 2);
            assertEquals(TieredStore.LoadOutcome.ALREADY_LOADING, h.load(2, 100, 2));
        }

        @Test
        void leaseAdmissionBoundsTheSumOfRemainingBytes() {
            // a and b live in L2 only (a restart with an empty L1); each lease would take 3 of 5 blocks.
            List<BlockKey> a = BlockChains.named("a", 3);
            List<BlockKey> b = BlockChains.named("b", 3);
            StoreSettings settings = TinyModel.store(5, 64);
            StoreHarness warm = new StoreHarness(settings);
            warm.save(1, a, 0);
            warm.save(2, b, 10);
            warm.drain();
            StoreHarness h = warm.restartedWithEmptyL1();
            LookupResult hitA = h.lookup(11, a);
            LookupResult hitB = h.lookup(12, b);
            assertEquals(HitClass.L2, hitA.hitClass());
            assertEquals(HitClass.L2, hitB.hitClass());
            assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(11, hitA));
            assertEquals(TieredStore.AcquireOutcome.ADMISSION_WAIT, h.acquire(12, hitB), "3 + 3 blocks of leases exceed 5 of L1");
            assertEquals(1, h.store.counter(StoreCounter.LEASE_ADMISSION_WAITS));
            assertEquals(3 * TinyModel.BLOCK_BYTES, h.store.leasedRemainingBytes(), "I4: only a's lease exists");
            h.drain();
            h.release(11);
            assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(12, hitB), "admitted once a's bytes were released");
            h.drain();
            assertEquals(3 * TinyModel.BLOCK_BYTES, h.store.leasedRemainingBytes());
        }
    }

    @Nested
    class Promotions {
        @Test
        void promotionReservesReadsAndPublishesAsHeadroomUnderTheLease() {
            List<BlockKey> chain = BlockChains.named("a", 2);
            StoreSettings settings = TinyModel.store(8, 64);
            StoreHarness warm = storedAndWritten(settings, 1, chain);
            StoreHarness h = warm.restartedWithEmptyL1();
            LookupResult hit = h.lookup(2, chain);
            assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(2, hit));
            List<IoOp.L2Read> reads = h.pendingOf(IoOp.L2Read.class);
            assertEquals(2, reads.size());
            assertEquals(reads.get(0).batchId(), reads.get(1).batchId(), "misses are batched together");
            assertEquals(2 * TinyModel.BLOCK_BYTES, h.store.l1UsedBytes(), "reserved before the read");
            assertEquals(TieredStore.LoadOutcome.LEASE_NOT_READY, h.load(2, 0, 2));
            h.drain();
            assertEquals(List.of(new StoreEvent.AcquireDone(2, true)), h.events());
            for (long unit : hit.units()) {
                assertTrue(h.store.testView().isResident(unit));
                assertTrue(h.store.testView().isHeadroom(unit), "promotions_as_headroom");
            }
            h.load(2, 0, 2);
            h.drain();
            assertEquals(2, h.ledger.loadMatches());
            assertEquals(0, h.ledger.mismatches());
        }

        @Test
        void promotionsAsOrdinaryEntriesWhenHeadroomIsOff() {
            List<BlockKey> chain = BlockChains.named("a", 1);
            StoreSettings settings = TinyModel.store(8, 64).withPromotionsAsHeadroom(false);
            StoreHarness warm = storedAndWritten(settings, 1, chain);
            StoreHarness h = warm.restartedWithEmptyL1();
            LookupResult hit = h.lookup(2, chain);
            h.acquire(2, hit);
            h.drain();
            assertTrue(h.store.testView().isResident(hit.units().get(0)));
            assertFalse(h.store.testView().isHeadroom(hit.units().get(0)));
            assertTrue(h.store.testView().inPolicy(hit.units().get(0)));
        }

        @Test
        void readWaitsForAPendingWriteOfItsRange() {
            // L1 of 2 blocks, high water 1.5 blocks: storing b trims a out of L1 while a's write is pending.
            List<BlockKey> a = BlockChains.named("a", 1);
            StoreHarness h = new StoreHarness(TinyModel.store(2, 64));
            h.save(1, a, 0);
            h.complete(h.first(IoOp.CopyFromGpu.class));
            IoOp.L2Write writeA = h.first(IoOp.L2Write.class);
            h.save(2, BlockChains.named("b", 1), 10);
            h.complete(h.first(IoOp.CopyFromGpu.class));
            long unitA = h.unitsOf(a).get(0);
            assertFalse(h.store.testView().isResident(unitA), "save admission trimmed a");
            IoOp.L2Write writeB = h.pendingOf(IoOp.L2Write.class).get(1);
            LookupResult hit = h.lookup(3, a);
            assertEquals(HitClass.L2, hit.hitClass());
            assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(3, hit));
            assertTrue(h.pendingOf(IoOp.L2Read.class).isEmpty(), "no space: a's bytes and b's are both still being written");
            h.complete(writeB);
            assertTrue(h.pendingOf(IoOp.L2Read.class).isEmpty(), "space now, but a's own write is still pending");
            h.complete(writeA);
            assertEquals(1, h.pendingOf(IoOp.L2Read.class).size(), "the read goes once the write landed");
            h.drain();
            h.load(3, 0, 1);
            h.drain();
            assertEquals(1, h.ledger.loadMatches());
            assertEquals(0, h.ledger.mismatches());
        }

        @Test
        void promotionWaitsForSpaceAndResumesOnRelease() {
            List<BlockKey> a = BlockChains.named("a", 1);
            List<BlockKey> b = BlockChains.named("b", 1);
            StoreSettings settings = TinyModel.store(1, 64);
            StoreHarness h = new StoreHarness(settings);
            h.save(1, b, 0);
            h.drain();
            h.save(2, a, 10);
            h.drain();
            h.events();
            // L1 holds a only; lease it so nothing can be evicted.
            LookupResult leaseA = h.lookup(3, a);
            assertEquals(LeaseStatus.LEASED, leaseA.leaseStatus());
            LookupResult hitB = h.lookup(4, b);
            assertEquals(HitClass.L2, hitB.hitClass());
            assertEquals(TieredStore.AcquireOutcome.ADMISSION_WAIT, h.acquire(4, hitB), "1 + 1 block of leases > 1 block of L1");
            h.release(3);
            assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(4, hitB));
            assertEquals(1, h.pendingOf(IoOp.L2Read.class).size(), "a was evicted to make room");
            h.drain();
            assertEquals(List.of(new StoreEvent.AcquireDone(4, true)), h.events());
        }
    }

    @Nested
    class Stores {
        @Test
        void firstWriterWinsAndConflictingMetadataIsRefused() {
            List<BlockKey> chain = BlockChains.named("a", 3);
            StoreHarness h = storedAndWritten(TinyModel.store(16, 64), 1, chain);
            TieredStore.SaveOutcome again = h.save(2, chain, 20);
            assertEquals(new TieredStore.SaveOutcome(0, 3, 0), again);
            assertTrue(h.pendingOf(IoOp.CopyFromGpu.class).isEmpty(), "a later writer skips");
            // The same key claimed under another parent is a conflict, not an overwrite.
            List<BlockKey> forged = new ArrayList<>(BlockChains.named("z", 1));
            forged.add(chain.get(1));
            TieredStore.SaveOutcome conflict = h.save(3, forged, 30);
            assertEquals(1, conflict.blocksConflicting());
            assertEquals(1, h.store.counter(StoreCounter.STORE_BLOCKS_CONFLICT));
        }

        @Test
        void storeIsVisibleWhenCommittedBeforeItsWriteCompletes() {
            List<BlockKey> chain = BlockChains.named("a", 2);
            StoreHarness h = new StoreHarness(TinyModel.store(16, 64));
            h.save(1, chain, 0);
            assertEquals(HitClass.MISS, h.lookup(2, chain).hitClass(), "not visible before staging and commit");
            h.complete(h.first(IoOp.CopyFromGpu.class));
            assertEquals(1, h.pendingOf(IoOp.L2Write.class).size());
            assertEquals(HitClass.L1, h.lookup(3, chain).hitClass(), "visible once committed, write still pending");
            assertEquals(List.of(new StoreEvent.SaveStaged(1)), h.events());
        }

        @Test
        void writeBatchesAreContiguousAndAtMost64MiB() {
            // Qwen3-8B lanes are 2.25 MiB: 64 MiB holds 28 of them.
            StoreSettings settings = StoreSettings.defaults(tierlab.model.geometry.Geometry.qwen3_8b(), 128L << 30, 256L << 30);
            StoreHarness h = new StoreHarness(settings);
            h.checkEveryStep = false;
            List<BlockKey> chain = BlockChains.named("long", 60);
            h.save(1, chain, 0);
            List<IoOp.CopyFromGpu> copies = h.pendingOf(IoOp.CopyFromGpu.class);
            assertEquals(3, copies.size(), "60 slots in batches of 28, 28, 4");
            assertEquals(28, copies.get(0).gpuBlockIds().size());
            h.drain();
            assertEquals(3, h.store.counter(StoreCounter.L2_WRITE_OPS));
            assertTrue(h.store.counter(StoreCounter.L2_WRITE_BYTES) == 60 * settings.geometry().laneBytes());
            h.store.checkInvariants();
        }

        @Test
        void perSlotStagingWritesEachSlotAlone() {
            StoreHarness h = new StoreHarness(TinyModel.store(16, 64).withStaging(4, false));
            h.save(1, BlockChains.named("a", 5), 0);
            h.drain();
            assertEquals(5, h.store.counter(StoreCounter.STAGING_COPIES));
            assertEquals(5, h.store.counter(StoreCounter.L2_WRITE_OPS));
        }

        @Test
        void stagingSemaphoreBoundsConcurrentCopiesInFifoOrder() {
            StoreHarness h = new StoreHarness(TinyModel.store(32, 64).withStaging(2, false));
            h.save(1, BlockChains.named("a", 3), 0);
            h.save(2, BlockChains.named("b", 3), 10);
            List<IoOp.CopyFromGpu> copies = h.pendingOf(IoOp.CopyFromGpu.class);
            assertEquals(2, copies.size(), "two staging slots");
            assertEquals(1, copies.get(0).requestId());
            assertEquals(1, copies.get(1).requestId());
            h.complete(copies.get(0));
            List<IoOp.CopyFromGpu> next = h.pendingOf(IoOp.CopyFromGpu.class);
            assertEquals(2, next.size());
            assertEquals(1, next.get(1).requestId(), "request 1's third slot before request 2 (FIFO)");
            h.drain();
            List<StoreEvent> events = h.events();
            assertEquals(List.of(new StoreEvent.SaveStaged(1), new StoreEvent.SaveStaged(2)), events);
        }

        @Test
        void saveAdmissionTrimsToHighWaterEvictingHeadroomFirst() {
            StoreSettings settings = TinyModel.store(10, 64).withHeadroomFraction(0.2);
            assertEquals(2 * TinyModel.BLOCK_BYTES, settings.headroomBytes());
            StoreHarness h = new StoreHarness(settings);
            for (int i = 0; i < 12; i++) {
                h.save(i, BlockChains.named("p" + i, 1), i);
                h.drain();
                assertTrue(h.store.admissionUsedBytes() <= Math.max(TinyModel.BLOCK_BYTES, settings.highWaterBytes()), "I9 after save admission");
            }
            assertEquals(8, h.store.residentCount());
        }

        @Test
        void storeWaitsForAnOverlappingLease() {
            // A one-slot ring: every store reuses slot 0.
            List<BlockKey> a = BlockChains.named("a", 1);
            List<BlockKey> b = BlockChains.named("b", 1);
            StoreHarness h = storedAndWritten(TinyModel.store(4, 1), 1, a);
            h.lookup(2, a);
            h.save(3, b, 10);
            assertTrue(h.pendingOf(IoOp.CopyFromGpu.class).isEmpty(), "the store waits for the lease");
            assertEquals(1, h.store.counter(StoreCounter.STORE_LEASE_WAITS));
            h.load(2, 0, 1);
            h.drain();
            assertEquals(1, h.ledger.loadMatches());
            h.release(2);
            h.drain();
            assertEquals(HitClass.L1, h.lookup(4, b).hitClass());
            assertEquals(new Content(b.get(0), 0), h.ledger.l2At(h.store.testView().unitOffset(0, 0)));
        }

        @Test
        void ringEvictionRemovesKeysAndTheirL1Copies() {
            List<BlockKey> a = BlockChains.named("a", 2);
            StoreHarness h = storedAndWritten(TinyModel.store(8, 3), 1, a);
            h.save(2, BlockChains.named("b", 2), 10);
            h.drain();
            assertEquals(HitClass.MISS, h.lookup(3, a).hitClass(), "evicted keys leave the index at once");
            assertEquals(1, h.store.counter(StoreCounter.L2_RUNS_EVICTED));
            assertEquals(2, h.store.residentCount(), "their L1 copies left too");
        }

        @Test
        void deadBytesCountUnreachableSuffixes() {
            // A 2-slot ring: the first store's run is evicted, its orphaned suffix stays dead.
            List<BlockKey> chain = BlockChains.named("a", 3);
            StoreHarness h = new StoreHarness(TinyModel.store(8, 3));
            h.save(1, chain.subList(0, 1), 0);
            h.drain();
            h.store.enqueueSave(2, chain, 1, 2, StoreHarness.gpuBlocks(1, 2), 0);
            h.computeOnGpu(chain.subList(1, 3), StoreHarness.gpuBlocks(1, 2));
            h.collect();
            h.drain();
            assertEquals(0, h.store.deadL2Bytes());
            h.save(3, BlockChains.named("b", 1), 10);
            h.drain();
            assertEquals(HitClass.MISS, h.lookup(4, chain).hitClass());
            assertNotEquals(0, h.store.deadL2Bytes(), "blocks 1-2 are stored but unreachable");
        }
    }
}
