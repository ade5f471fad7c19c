package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

final class CacheReplayTest {

    private static final long[] SMALL_STREAM = {1, 2, 1, 3, 2, 1};

    @Test
    void lruOnAHandComputedStream() {
        // Capacity 2: 1 miss, 2 miss, 1 hit, 3 miss (evicts 2), 2 miss (evicts 1), 1 miss (evicts 3).
        assertEquals(new ReplayResult(1, 5), CacheReplay.run(new LruPolicy(), 2, SMALL_STREAM, true));
    }

    @Test
    void beladyOnTheSameStream() {
        // Capacity 2: 1 miss, 2 miss, 1 hit, 3 miss (evicts 1, next used at 5, later than 2 at 4),
        // 2 hit, 1 miss.
        assertEquals(new ReplayResult(2, 4),
                CacheReplay.run(new BeladyPolicy(SMALL_STREAM), 2, SMALL_STREAM, true));
    }

    @Test
    void capacityOneHitsOnlyImmediateRepeats() {
        long[] stream = {5, 5, 6, 6, 6, 5};
        for (String name : Policies.names()) {
            ReplacementPolicy policy = Policies.create(name, PolicyOptions.defaults(1).withFutureReferences(stream));
            assertEquals(new ReplayResult(3, 3), CacheReplay.run(policy, 1, stream, true), name);
        }
    }

    @Test
    void aCacheLargerThanTheKeySetOnlyMissesColdKeys() {
        long[] stream = {4, 8, 4, 15, 16, 23, 42, 8, 15, 4, 42};
        for (String name : Policies.names()) {
            ReplacementPolicy policy = Policies.create(name, PolicyOptions.defaults(6).withFutureReferences(stream));
            ReplayResult result = CacheReplay.run(policy, 6, stream);
            assertEquals(new ReplayResult(5, 6), result, name);
        }
    }

    @Test
    void groupedRequestsKeepPrefixesUnderPrefixLruButNotUnderLru() {
        List<long[]> requests = List.of(new long[] {1, 2, 3}, new long[] {4, 5}, new long[] {1, 2, 3});
        // prefix-lru, capacity 3: request 0 fills the cache. Request 1 evicts 3, then 2 (suffix of
        // the older request first). Request 2 hits 1, then 2 evicts 5 and 3 evicts 4 (request 1's
        // suffix, then its prefix, while the refreshed 1 is newest).
        assertEquals(new ReplayResult(1, 7), CacheReplay.run(new PrefixLruPolicy(), 3, requests, true));
        // lru on the same blocks: the sequence 1 2 3 4 5 1 2 3 over 3 slots never hits.
        assertEquals(new ReplayResult(0, 8), CacheReplay.run(new LruPolicy(), 3, requests, true));
    }

    @Test
    void hitRatioIsHitsOverReferences() {
        assertEquals(0.25, new ReplayResult(1, 3).hitRatio());
        assertEquals(4, new ReplayResult(1, 3).references());
        assertEquals(0.0, new ReplayResult(0, 0).hitRatio());
        assertEquals(new ReplayResult(0, 0), CacheReplay.run(new LruPolicy(), 3, new long[0]));
    }

    @Test
    void capacityBelowOneIsRejectedByName() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> CacheReplay.run(new LruPolicy(), 0, SMALL_STREAM));
        assertEquals("cache replay: capacityBlocks must be >= 1, was 0", error.getMessage());
    }

    @Test
    void invariantsAreCheckedAtTheEndOrAfterEveryStep() {
        CountingPolicy atEnd = new CountingPolicy();
        CacheReplay.run(atEnd, 2, SMALL_STREAM, false);
        assertEquals(1, atEnd.invariantChecks);

        CountingPolicy everyStep = new CountingPolicy();
        CacheReplay.run(everyStep, 2, SMALL_STREAM, true);
        assertEquals(SMALL_STREAM.length + 1, everyStep.invariantChecks);

        CountingPolicy grouped = new CountingPolicy();
        CacheReplay.run(grouped, 2, List.of(new long[] {1, 2}, new long[] {3}), true);
        assertEquals(3 + 1, grouped.invariantChecks);
    }

    @Test
    void aPolicyThatNamesNoVictimInAFullCacheIsReported() {
        ReplacementPolicy refusing = new CountingPolicy() {
            @Override
            public long selectVictim(LongPredicate evictable) {
                return NO_VICTIM;
            }
        };
        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> CacheReplay.run(refusing, 1, new long[] {1, 2}));
        assertTrue(error.getMessage().contains("returned victim NO_VICTIM"), error.getMessage());
    }

    /** LRU that counts how often its invariants are checked. */
    private static class CountingPolicy extends ForwardingPolicy {
        int invariantChecks;

        CountingPolicy() {
            super(new LruPolicy());
        }

        @Override
        public String name() {
            return "counting-lru";
        }

        @Override
        public void checkInvariants() {
            invariantChecks++;
            super.checkInvariants();
        }
    }
}
