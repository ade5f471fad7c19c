package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

final class BeladyPolicyTest extends ReplacementPolicyContract {

    @Override
    protected String policyName() {
        return BeladyPolicy.NAME;
    }

    @Test
    void hitsAtLeastAsOftenAsEveryOtherPolicy() {
        for (long seed = 1; seed <= 8; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int capacity = 4 + random.nextInt(60);
            int keySpace = capacity + 1 + random.nextInt(4 * capacity);
            long[] stream = new long[15_000];
            for (int i = 0; i < stream.length; i++) {
                double u = random.nextDouble();
                // Alternate uniform and skewed streams: both must leave belady on top.
                stream[i] = seed % 2 == 0 ? (long) (u * keySpace) : (long) (u * u * u * keySpace);
            }
            PolicyOptions options = PolicyOptions.defaults(capacity).withFutureReferences(stream);
            long optimalHits = CacheReplay.run(Policies.create(BeladyPolicy.NAME, options), capacity, stream).hits();
            for (String name : Policies.names()) {
                long hits = CacheReplay.run(Policies.create(name, options), capacity, stream).hits();
                assertTrue(optimalHits >= hits, name + " beat belady on seed " + seed + ": "
                        + hits + " > " + optimalHits);
            }
            long lruHits = CacheReplay.run(new LruPolicy(), capacity, stream).hits();
            assertTrue(optimalHits > lruHits, "on random streams the optimum is strictly better than LRU");
        }
    }

    @Test
    void equalsABruteForceOptimumOnTinyStreams() {
        SplittableRandom random = new SplittableRandom(99);
        int streamsWhereChoiceMattered = 0;
        for (int trial = 0; trial < 300; trial++) {
            int capacity = 2 + random.nextInt(2);
            long[] stream = random.longs(10, 0, 5).toArray();
            long optimum = bruteForceHits(stream, 0, new TreeSet<>(), capacity);
            long worst = bruteForceWorstHits(stream, 0, new TreeSet<>(), capacity);
            if (worst < optimum) {
                streamsWhereChoiceMattered++;
            }
            ReplayResult belady = CacheReplay.run(new BeladyPolicy(stream), capacity, stream, true);
            assertEquals(optimum, belady.hits(), "stream " + Arrays.toString(stream)
                    + ", capacity " + capacity);
        }
        assertTrue(streamsWhereChoiceMattered > 50, "the brute force must face real eviction choices");
    }

    /** The most hits reachable from reference {@code index}, trying every eviction choice. */
    private static long bruteForceHits(long[] stream, int index, TreeSet<Long> resident, int capacity) {
        return search(stream, index, resident, capacity, true);
    }

    /** The fewest hits, to prove the streams give the eviction choice something to decide. */
    private static long bruteForceWorstHits(long[] stream, int index, TreeSet<Long> resident, int capacity) {
        return search(stream, index, resident, capacity, false);
    }

    private static long search(long[] stream, int index, TreeSet<Long> resident, int capacity, boolean best) {
        if (index == stream.length) {
            return 0;
        }
        long key = stream[index];
        if (resident.contains(key)) {
            return 1 + search(stream, index + 1, resident, capacity, best);
        }
        if (resident.size() < capacity) {
            resident.add(key);
            long hits = search(stream, index + 1, resident, capacity, best);
            resident.remove(key);
            return hits;
        }
        long chosen = best ? Long.MIN_VALUE : Long.MAX_VALUE;
        for (long victim : new ArrayList<>(resident)) {
            resident.remove(victim);
            resident.add(key);
            long hits = search(stream, index + 1, resident, capacity, best);
            resident.remove(key);
            resident.add(victim);
            chosen = best ? Math.max(chosen, hits) : Math.min(chosen, hits);
        }
        return chosen;
    }

    @Test
    void evictsTheKeyUsedFarthestInTheFuture() {
        long[] future = {1, 2, 3, 3, 1, 2};
        BeladyPolicy policy = new BeladyPolicy(future);
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 1, 0);
        policy.onInsert(3, 2, 0);
        // Next uses: 1 at 4, 2 at 5, 3 at 3.
        assertEquals(2, policy.selectVictim(key -> true));
        assertEquals(1, policy.selectVictim(key -> key != 2));
        policy.onAccess(3);
        // 3 is never used again after its access at 3, so it is now the farthest.
        assertEquals(3, policy.selectVictim(key -> true));
    }

    @Test
    void aKeyMissingFromTheTraceIsNeverUsedAgain() {
        BeladyPolicy policy = new BeladyPolicy(new long[] {1, 2, 1, 2});
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 0);
        policy.onInsert(99, 0, 0);
        assertEquals(99, policy.selectVictim(key -> true));
        // A key the trace does not know does not move the cursor.
        assertEquals(2, policy.cursor());
    }

    @Test
    void resynchronisesWhenTheCallerDeviatesFromTheTrace() {
        long[] future = {1, 2, 3, 1, 2, 3, 4, 4};
        BeladyPolicy policy = new BeladyPolicy(future);
        // The trace expects 1 first; 3's first occurrence at or after the cursor is position 2.
        policy.onInsert(3, 0, 0);
        assertEquals(3, policy.cursor());
        // 4 first occurs at 6, so the cursor jumps over 1, 2 and 3 at positions 3 to 5.
        policy.onInsert(4, 0, 0);
        assertEquals(7, policy.cursor());
        // Key 2 occurs at 1 and 4, both behind the cursor: its next use is never, the cursor stays.
        policy.onInsert(2, 0, 0);
        assertEquals(7, policy.cursor());
        policy.checkInvariants();
        // Key 3's recorded next use (5) was jumped over and it has no later one, so it ties with 2
        // at never; ties go to the larger key. 4 is used again at 7, so it goes last.
        assertEquals(List.of(3L, 2L, 4L), drain(policy, key -> true));
    }

    @Test
    void aResidentKeyWhoseNextUseWasSkippedIsLookedUpAgain() {
        long[] future = {1, 2, 3, 1, 3, 2, 1};
        BeladyPolicy policy = new BeladyPolicy(future);
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 0);
        // Inserting 1, 2 and 3 follows the trace, so key 1's next use is recorded as position 3.
        // The caller then skips that reference: accessing 3 resynchronises to position 4 and moves
        // the cursor to 5, past key 1's recorded next use. Key 1's real next use is 6, later than
        // key 2's (5), so once 3 (never used again) is held, key 1 must be the victim.
        policy.onInsert(3, 0, 0);
        assertEquals(3, policy.cursor());
        policy.onAccess(3);
        assertEquals(5, policy.cursor());
        assertEquals(3, policy.selectVictim(key -> true));
        assertEquals(1, policy.selectVictim(key -> key != 3));
        policy.checkInvariants();
    }
}
