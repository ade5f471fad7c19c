package tierlab.properties;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import tierlab.model.policy.CacheReplay;
import tierlab.model.policy.Policies;
import tierlab.model.policy.PolicyOptions;
import tierlab.model.policy.ReplacementPolicy;
import tierlab.model.testkit.ReferenceLru;

/**
 * Policy properties (issue: property tests): every policy keeps its capacity and never evicts a
 * held key; {@code lru} hit counts equal a trivially correct LRU; {@code belady} is never beaten.
 * QuickTheories generates the streams with a fixed seed and shrinks a failure to a short one.
 */
class PolicyProperties {
    static final long SEED = 42;

    static Gen<List<Long>> streams() {
        // A small key space makes hits and collisions common; long streams make evictions common.
        return lists().of(longs().between(0, 40)).ofSizeBetween(0, 400);
    }

    @Test
    void lruHitCountsEqualATriviallyCorrectLru() {
        qt().withFixedSeed(SEED).withExamples(300)
                .forAll(integers().between(1, 30), streams())
                .check((capacity, stream) -> {
                    long[] refs = stream.stream().mapToLong(Long::longValue).toArray();
                    long hits = CacheReplay.run(Policies.create("lru", PolicyOptions.defaults(capacity)), capacity, refs).hits();
                    return hits == ReferenceLru.hits(refs, capacity);
                });
    }

    @Test
    void everyPolicyKeepsItsCapacityAndNeverEvictsAHeldKey() {
        for (String name : Policies.names()) {
            qt().withFixedSeed(SEED).withExamples(150)
                    .forAll(integers().between(1, 12), streams(), lists().of(longs().between(0, 40)).ofSizeBetween(0, 6))
                    .check((capacity, stream, heldList) -> holdsCapacityAndRespectsHolds(name, capacity, stream, heldList));
        }
    }

    @Test
    void beladyIsNeverBeaten() {
        qt().withFixedSeed(SEED).withExamples(200)
                .forAll(integers().between(1, 15), streams())
                .check((capacity, stream) -> {
                    long[] refs = stream.stream().mapToLong(Long::longValue).toArray();
                    long best = CacheReplay.run(Policies.create("belady", PolicyOptions.defaults(capacity).withFutureReferences(refs)),
                            capacity, refs).hits();
                    for (String name : Policies.online()) {
                        long hits = CacheReplay.run(Policies.create(name, PolicyOptions.defaults(capacity)), capacity, refs).hits();
                        if (hits > best) {
                            return false;
                        }
                    }
                    return true;
                });
    }

    /** Inserts the stream with some keys held (not evictable); the policy must never pick one, nor pass its capacity. */
    static boolean holdsCapacityAndRespectsHolds(String name, int capacity, List<Long> stream, List<Long> heldList) {
        long[] refs = stream.stream().mapToLong(Long::longValue).toArray();
        ReplacementPolicy policy = Policies.create(name, PolicyOptions.defaults(capacity).withFutureReferences(refs));
        Set<Long> held = new HashSet<>(heldList);
        for (long key : refs) {
            if (policy.contains(key)) {
                policy.onAccess(key);
                continue;
            }
            if (policy.size() >= capacity) {
                long victim = policy.selectVictim(k -> !held.contains(k));
                if (victim == ReplacementPolicy.NO_VICTIM) {
                    // Everything resident is held: the key is not admitted, and nothing was evicted.
                    policy.checkInvariants();
                    continue;
                }
                if (held.contains(victim) || !policy.contains(victim)) {
                    return false;
                }
                policy.onRemove(victim);
            }
            policy.onInsert(key, key, 0);
            policy.checkInvariants();
            if (policy.size() > capacity) {
                return false;
            }
        }
        return true;
    }

    @Test
    void theTrivialLruIsItselfRight() {
        // Capacity 2, stream a b a c b: hits on the second a only (c evicts b).
        assertTrue(ReferenceLru.hits(new long[] {1, 2, 1, 3, 2}, 2) == 1);
    }
}
