package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.model.KnownBug;
import tierlab.model.geometry.BlockKey;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;

/**
 * R5 at the engine level: two long requests whose leases (6 blocks each) together exceed an
 * 8-block L1 are admitted by the scheduler in the same pass.
 *
 * <pre>
 *   cold pass: requests 0 and 1 compute and save chains P0 and P1 (6 blocks each); L1 keeps ~7 blocks
 *   warm pass: requests 10 (P0) and 11 (P1) arrive together
 *     10: lookup mixed/L2 → prefetch → lease of 6 blocks, promotions
 *     11: lookup/acquire → lease of 6 more blocks would exceed L1
 *     fixed:   11 waits for lease admission (deferred, looked up again); 10 loads, finishes, releases;
 *              11 is admitted; both finish (I10), every load matches, nothing is left over
 *     R5 bug:  11's lease is created: 12 blocks of leases in an 8-block L1 → "I4: ..."
 * </pre>
 */
class RaceR05LeaseAdmissionEngineTest {
    private static final int CHAIN_BLOCKS = 6;
    /** One token past the chain, so a warm hit covers all six blocks. */
    private static final long PROMPT_TOKENS = CHAIN_BLOCKS * 16 + 1;

    private static StoreSettings store(long l1Blocks, long l2Blocks) {
        return TinyModel.store(l1Blocks, l2Blocks);
    }

    private static EngineHarness coldPass(StoreSettings settings) {
        EngineHarness h = new EngineHarness(settings, SchedulerSettings.defaults(256).withConcurrency(4), 1, false);
        for (int i = 0; i < 2; i++) {
            h.submit(i, PROMPT_TOKENS, 1, chain(i));
        }
        h.runToQuiescence(100_000);
        assertEquals(2, h.scheduler.finished().size());
        for (int i = 0; i < 2; i++) {
            h.submit(10 + i, PROMPT_TOKENS, 1, chain(i));
        }
        return h;
    }

    private static List<BlockKey> chain(int i) {
        return BlockChains.named("r5-engine-" + i, CHAIN_BLOCKS);
    }

    @Test
    void fixedModelHoldsCompetingLongRequestsBothFinish() {
        EngineHarness h = coldPass(store(8, 64));
        long createdBefore = h.store.counter(StoreCounter.LEASES_CREATED);
        h.runToQuiescence(100_000);

        assertTrue(h.store.counter(StoreCounter.LEASE_ADMISSION_WAITS) > 0, "one lease had to wait for admission");
        assertTrue(h.scheduler.allFinished(), "I10: both requests finish");
        assertEquals(List.of(0L, 1L, 10L, 11L), h.scheduler.finishedIds().stream().sorted().toList());
        assertEquals(2, h.store.counter(StoreCounter.LEASES_CREATED) - createdBefore, "each warm request got one lease");
        long warmHitTokens = h.scheduler.finished().stream().filter(o -> o.requestId() >= 10).mapToLong(o -> o.hitTokens()).sum();
        assertEquals(2 * CHAIN_BLOCKS * 16, warmHitTokens, "both warm requests loaded their whole chain");
        assertEquals(2 * CHAIN_BLOCKS, h.ledger.loadMatches());
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(0, h.store.leasedRemainingBytes());
        assertTrue(h.store.leftovers().isEmpty(), h.store.leftovers().toString());
    }

    @Test
    void ablationBreaksCompetingLeasesExceedL1() {
        EngineHarness h = coldPass(store(8, 64).withKnownBugs(Set.of(KnownBug.R5_NO_LEASE_ADMISSION)));
        IllegalStateException broken = assertThrows(IllegalStateException.class, () -> h.runToQuiescence(100_000));
        assertTrue(broken.getMessage().startsWith("I4"), broken.getMessage());
        assertEquals(0, h.store.counter(StoreCounter.LEASE_ADMISSION_WAITS));
        assertTrue(h.store.leasedRemainingBytes() > 8 * TinyModel.BLOCK_BYTES);
    }
}
