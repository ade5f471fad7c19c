package tierlab.model.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoOp;
import tierlab.model.io.PayloadLedger;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * Two stores over one {@link L2Pool} (two instances of a fleet on one host), driven by hand: what
 * one commits is visible to the other only once its L2 write landed (X1), a lease either holds
 * blocks the other's reuse of the units (X2), and reuse drops the other's L1 copies (X3). Their
 * ledgers share one L2, so any stale read is a counted mismatch.
 */
class SharedPoolTest {
    private static final int TP = 2;
    private static final int L2_SLOTS = 4;

    private final StoreSettings settings = TinyModel.store(16, L2_SLOTS, TP);
    private final L2Pool pool = L2Pool.empty(settings);
    private final StoreHarness a = new StoreHarness(new TieredStore(settings, new DecisionTrace(), pool));
    private final StoreHarness b = new StoreHarness(new TieredStore(settings, new DecisionTrace(), pool),
            PayloadLedger.sharingL2With(a.ledger));

    private StoreHarness withR4(StoreHarness[] second) {
        StoreSettings r4 = settings.withKnownBugs(Set.of(KnownBug.R4_STORE_IGNORES_LEASES));
        L2Pool bugged = L2Pool.empty(r4);
        StoreHarness first = new StoreHarness(new TieredStore(r4, new DecisionTrace(), bugged));
        second[0] = new StoreHarness(new TieredStore(r4, new DecisionTrace(), bugged), PayloadLedger.sharingL2With(first.ledger));
        return first;
    }

    /** {@code h} looks {@code chain} up (an L2 hit), promotes every unit, loads it, releases and drains. */
    private LookupResult promoteAndLoad(StoreHarness h, long requestId, List<BlockKey> chain, long firstGpuBlock) {
        LookupResult hit = h.lookup(requestId, chain);
        assertEquals(HitClass.L2, hit.hitClass());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, h.acquire(requestId, hit));
        while (!h.pendingOf(IoOp.L2Read.class).isEmpty()) {
            h.complete(h.first(IoOp.L2Read.class));
            pool.checkInvariants();
        }
        assertEquals(TieredStore.LoadOutcome.STARTED, h.load(requestId, firstGpuBlock, chain.size()));
        h.complete(h.first(IoOp.CopyToGpu.class));
        h.release(requestId);
        h.drain();
        return hit;
    }

    @Test
    void theStoresAreTwoMembersOfOnePool() {
        assertEquals(2, pool.memberCount());
        assertEquals(0, a.store.poolMember());
        assertEquals(1, b.store.poolMember());
        pool.checkInvariants();
    }

    @Test
    void aKeyIsVisibleToTheOtherStoreOnlyAfterItsWriteLanded() {
        List<BlockKey> chain = BlockChains.named("x1", 2);
        a.save(1, chain, 0);
        // Both lanes staged: committed, published in A's L1, the L2 writes in flight.
        while (a.hasStaging(1)) {
            a.complete(a.stagingOf(1));
            pool.checkInvariants();
        }
        assertFalse(a.pendingOf(IoOp.L2Write.class).isEmpty(), "the L2 writes are in flight");
        assertEquals(HitClass.L1, a.store.classify(chain, 0, chain.size() * 16L + 1), "the committer serves it from L1");
        assertEquals(HitClass.MISS, b.store.classify(chain, 0, chain.size() * 16L + 1), "X1: not on L2 yet");
        assertEquals(new StoredPrefix(0, 0), b.store.storedPrefix(chain));
        assertEquals(new StoredPrefix(2, 2), a.store.storedPrefix(chain));

        a.drain();
        pool.checkInvariants();
        assertEquals(new StoredPrefix(0, 2), b.store.storedPrefix(chain));
        LookupResult hit = promoteAndLoad(b, 2, chain, 100);
        assertEquals(2 * 16, hit.hitTokens());
        pool.checkInvariants();
        assertEquals(0, b.ledger.mismatches(), b.ledger.mismatchExamples().toString());
        assertEquals(2 * TP, b.ledger.loadMatches(), "B loaded the bytes A wrote");
    }

    @Test
    void aLeaseOfOneStoreBlocksTheOthersReuseUntilReleased() {
        List<BlockKey> first = BlockChains.named("leased", L2_SLOTS);
        a.save(1, first, 0);
        a.drain();
        LookupResult hit = b.lookup(2, first);
        assertEquals(HitClass.L2, hit.hitClass());
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, b.acquire(2, hit));
        assertTrue(b.store.leasedRemainingBytes() > 0);

        // A's next save takes the whole ring: it evicts the leased run at once, but may not stage over it.
        List<BlockKey> second = BlockChains.named("reuser", L2_SLOTS);
        a.save(3, second, 10);
        pool.checkInvariants();
        assertFalse(a.hasStaging(3), "X2: the write waits for B's lease");
        assertFalse(pool.takeWoken(a.store.poolMember()), "nothing released yet");

        // B's reads land on the bytes it leased; the keys left the index meanwhile, so the lease
        // recomputes them instead of serving them, and lets go.
        while (!b.pendingOf(IoOp.L2Read.class).isEmpty()) {
            b.complete(b.first(IoOp.L2Read.class));
            pool.checkInvariants();
            assertFalse(a.hasStaging(3), "X2: still leased");
        }
        assertEquals(TieredStore.LoadOutcome.LEASE_NOT_READY, b.load(2, 100, first.size()));
        b.release(2);
        b.drain();
        assertEquals(0, b.ledger.mismatches(), b.ledger.mismatchExamples().toString());

        assertTrue(pool.takeWoken(a.store.poolMember()), "B's release marks A, whose store waits for it");
        a.store.resumeWaiting();
        a.collect();
        assertTrue(a.hasStaging(3), "A's save goes on once the lease is gone");
        a.drain();
        pool.checkInvariants();
        assertNotNull(pool.index().visible(second.getFirst()));
        assertEquals(new StoredPrefix(0, 0), b.store.storedPrefix(first), "the reused keys are gone for both");
    }

    @Test
    void withStoresIgnoringLeasesTheWriteOverALeasedUnitIsCaught() {
        StoreHarness[] other = new StoreHarness[1];
        StoreHarness writer = withR4(other);
        StoreHarness reader = other[0];
        writer.checkEveryStep = false;
        reader.checkEveryStep = false;
        List<BlockKey> first = BlockChains.named("leased", L2_SLOTS);
        writer.save(1, first, 0);
        writer.drain();
        LookupResult hit = reader.lookup(2, first);
        assertEquals(TieredStore.AcquireOutcome.PROMOTING, reader.acquire(2, hit));
        writer.save(3, BlockChains.named("reuser", L2_SLOTS), 10);
        while (writer.hasStaging(3)) {
            writer.complete(writer.stagingOf(3));
        }
        IllegalStateException caught = assertThrows(IllegalStateException.class,
                () -> reader.store.l2Pool().checkInvariants());
        assertTrue(caught.getMessage().startsWith("X2: member 0 writes unit"), caught.getMessage());
    }

    @Test
    void reuseDropsTheOtherStoresL1CopiesAndWakesIt() {
        List<BlockKey> first = BlockChains.named("copied", L2_SLOTS);
        a.save(1, first, 0);
        a.drain();
        promoteAndLoad(b, 2, first, 100);
        assertEquals(new StoredPrefix(L2_SLOTS, L2_SLOTS), b.store.storedPrefix(first), "B holds its own L1 copies");
        assertFalse(pool.takeWoken(b.store.poolMember()));

        a.save(3, BlockChains.named("reuser", L2_SLOTS), 10);
        pool.checkInvariants();
        assertTrue(pool.takeWoken(b.store.poolMember()), "X3: B's copies left its L1");
        assertEquals(HitClass.MISS, b.store.classify(first, 0, first.size() * 16L + 1));
        for (int slot = 0; slot < L2_SLOTS; slot++) {
            for (int lane = 0; lane < TP; lane++) {
                assertFalse(b.store.testView().isResident(b.store.testView().unitOffset(slot, lane)),
                        "slot " + slot + " lane " + lane);
            }
        }
        a.drain();
        b.store.checkInvariants();
        pool.checkInvariants();
    }
}
