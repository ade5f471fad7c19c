package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every replacement policy must show, whatever its ordering. Each policy has one
 * subclass (named {@code <Policy>Test}) that names the policy and adds its own specific tests.
 *
 * <p>Randomised tests use {@link SplittableRandom} with fixed seeds, so a failure reproduces exactly.
 * They check the policy against a plain model of the resident set (a {@link TreeSet}), which is
 * trivially right about which keys are resident and which are evictable.
 */
abstract class ReplacementPolicyContract {

    /** The registered name of the policy under test. */
    protected abstract String policyName();

    /**
     * A fresh policy of the tested kind. {@code futureReferences} is the sequence of keys the test
     * will pass to onInsert and onAccess, in order, as far as the test knows it in advance; only
     * {@code belady} reads it, and it must cope (by resynchronising) when the test deviates.
     */
    protected ReplacementPolicy newPolicy(long capacityEntries, long[] futureReferences) {
        return Policies.create(policyName(),
                PolicyOptions.defaults(capacityEntries).withFutureReferences(futureReferences));
    }

    private ReplacementPolicy newPolicy(long capacityEntries) {
        return newPolicy(capacityEntries, new long[0]);
    }

    @Test
    void nameIsTheRegisteredName() {
        assertEquals(policyName(), newPolicy(8).name());
    }

    @Test
    void sizeAndContainsTrackInsertsAndRemoves() {
        ReplacementPolicy policy = newPolicy(16, new long[] {1, 2, 3, 4, 5});
        assertEquals(0, policy.size());
        for (long key = 1; key <= 5; key++) {
            policy.onInsert(key, 7, (int) key - 1);
            assertEquals(key, policy.size());
            assertTrue(policy.contains(key));
        }
        assertFalse(policy.contains(6));

        policy.onRemove(2);
        policy.onRemove(5);
        assertEquals(3, policy.size());
        assertFalse(policy.contains(2));
        assertFalse(policy.contains(5));
        assertTrue(policy.contains(1));
        assertTrue(policy.contains(3));
        assertTrue(policy.contains(4));
        policy.checkInvariants();
    }

    @Test
    void emptyPolicyHasNoVictim() {
        ReplacementPolicy policy = newPolicy(4);
        assertEquals(ReplacementPolicy.NO_VICTIM, policy.selectVictim(key -> true));
        policy.onInsert(1, 0, 0);
        policy.onRemove(1);
        assertEquals(ReplacementPolicy.NO_VICTIM, policy.selectVictim(key -> true));
        policy.checkInvariants();
    }

    @Test
    void noVictimWhenNothingIsEvictableAndTheFailedSearchChangesNothing() {
        // Two identical policies see the same operations; only one also sees searches that find
        // nothing. Their next real victims must agree, so a failed search left no trace.
        long[] keys = {10, 11, 12, 13, 14, 15, 16, 17};
        long[] future = {10, 11, 12, 13, 14, 15, 16, 17, 11, 13, 11};
        ReplacementPolicy probed = newPolicy(8, future);
        ReplacementPolicy untouched = newPolicy(8, future);
        for (ReplacementPolicy policy : List.of(probed, untouched)) {
            for (int i = 0; i < keys.length; i++) {
                policy.onInsert(keys[i], i / 3, i % 3);
            }
            policy.onAccess(11);
            policy.onAccess(13);
            policy.onAccess(11);
        }

        assertEquals(ReplacementPolicy.NO_VICTIM, probed.selectVictim(key -> false));
        assertEquals(ReplacementPolicy.NO_VICTIM, probed.selectVictim(key -> key > 100));
        probed.checkInvariants();
        assertEquals(keys.length, probed.size());

        List<Long> probedVictims = drain(probed, key -> true);
        List<Long> untouchedVictims = drain(untouched, key -> true);
        assertEquals(untouchedVictims, probedVictims);
    }

    @Test
    void victimIsNeverHeldAndNeverAbsent() {
        for (long seed = 1; seed <= 20; seed++) {
            OperationLog log = drive(seed, 24, 72, 2_000, false);
            assertTrue(log.realVictims > 100, "the run must actually evict, seed " + seed);
            assertTrue(log.heldSearches > 50, "the run must search with keys held, seed " + seed);
        }
    }

    @Test
    void replayNeverExceedsCapacity() {
        SplittableRandom random = new SplittableRandom(42);
        for (int capacity : new int[] {1, 2, 3, 10, 37}) {
            long[] stream = random.longs(3_000, 0, capacity * 3L).toArray();
            SizeWatchingPolicy watched = new SizeWatchingPolicy(newPolicy(capacity, stream));
            ReplayResult result = CacheReplay.run(watched, capacity, stream, true);
            assertEquals(stream.length, result.references());
            assertEquals(capacity, watched.largestSize, "the cache fills up but never overflows");
            assertEquals(capacity, watched.size());
            assertTrue(result.misses() > capacity, "a stream over 3x capacity keys must keep missing");
        }
    }

    @Test
    void sameOperationsGiveTheSameVictims() {
        for (long seed = 100; seed < 105; seed++) {
            OperationLog first = drive(seed, 16, 40, 3_000, false);
            OperationLog second = drive(seed, 16, 40, 3_000, false);
            assertTrue(first.realVictims > 200, "the run must produce victims to compare");
            assertEquals(first.victims, second.victims);
        }
    }

    @Test
    void invariantsHoldAfterEveryStepOfALongRandomSequence() {
        OperationLog log = drive(7, 32, 96, 20_000, true);
        assertTrue(log.realVictims > 1_000);
    }

    @Test
    void removedKeyCanBeReinserted() {
        ReplacementPolicy policy = newPolicy(4, new long[] {1, 2, 3, 2, 2});
        policy.onInsert(1, 0, 0);
        policy.onInsert(2, 0, 1);
        policy.onInsert(3, 0, 2);
        policy.onRemove(2);
        assertFalse(policy.contains(2));
        policy.onInsert(2, 1, 0);
        assertTrue(policy.contains(2));
        assertEquals(3, policy.size());
        policy.onAccess(2);
        policy.checkInvariants();
        assertEquals(new TreeSet<>(List.of(1L, 2L, 3L)), new TreeSet<>(drain(policy, key -> true)));
    }

    @Test
    void drainingReturnsEveryResidentKeyExactlyOnce() {
        ReplacementPolicy policy = newPolicy(50, new long[0]);
        for (long key = 0; key < 50; key++) {
            policy.onInsert(key * 1_000_003, key / 5, (int) (key % 5));
        }
        for (long key = 0; key < 50; key += 3) {
            policy.onAccess(key * 1_000_003);
        }
        // Odd keys are held: the drain must stop once only they are left.
        List<Long> victims = drain(policy, key -> (key / 1_000_003) % 2 == 0);
        assertEquals(25, victims.size());
        assertEquals(25, new TreeSet<>(victims).size());
        assertTrue(victims.stream().allMatch(key -> (key / 1_000_003) % 2 == 0));
        assertEquals(25, policy.size());
        assertEquals(25, drain(policy, key -> true).size());
        assertEquals(0, policy.size());
    }

    @Test
    void callerContractViolationsFailLoudly() {
        ReplacementPolicy policy = newPolicy(4, new long[] {1});
        policy.onInsert(1, 0, 0);
        assertThrows(IllegalStateException.class, () -> policy.onInsert(1, 0, 0));
        assertThrows(IllegalStateException.class, () -> policy.onAccess(2));
        assertThrows(IllegalStateException.class, () -> policy.onRemove(2));
        assertThrows(IllegalArgumentException.class,
                () -> policy.onInsert(ReplacementPolicy.NO_VICTIM, 0, 0));
        assertEquals(1, policy.size());
        policy.checkInvariants();
    }

    /** Selects and removes victims until the policy has none that pass {@code evictable}. */
    static List<Long> drain(ReplacementPolicy policy, LongPredicate evictable) {
        List<Long> victims = new ArrayList<>();
        while (true) {
            long victim = policy.selectVictim(evictable);
            if (victim == ReplacementPolicy.NO_VICTIM) {
                return victims;
            }
            assertTrue(policy.contains(victim), "victim " + victim + " must be resident");
            assertTrue(evictable.test(victim), "victim " + victim + " must be evictable");
            policy.onRemove(victim);
            victims.add(victim);
            policy.checkInvariants();
        }
    }

    /** What a {@link #drive} run saw: every search result in order, and how many evicted something. */
    static final class OperationLog {
        final List<Long> victims = new ArrayList<>();
        int realVictims;
        int heldSearches;
    }

    /**
     * Runs a reproducible mix of operations against a fresh policy with capacity {@code capacity}:
     * a stream of keys drawn from {@code keySpace} is referenced in order (hit: access; miss: evict
     * if full, then insert), interleaved with removals of random resident keys (the store dropping
     * an entry) and searches with random held sets that evict nothing. Every search result is
     * checked against the model: a victim must be resident and evictable, and NO_VICTIM is only
     * allowed when no resident key is evictable.
     */
    OperationLog drive(long seed, int capacity, int keySpace, int steps, boolean checkEveryStep) {
        long[] stream = new SplittableRandom(seed).longs(steps, 0, keySpace).toArray();
        SplittableRandom choices = new SplittableRandom(seed * 31 + 17);
        ReplacementPolicy policy = newPolicy(capacity, stream);
        TreeSet<Long> resident = new TreeSet<>();
        OperationLog log = new OperationLog();
        for (int step = 0; step < steps; step++) {
            int action = choices.nextInt(10);
            if (action == 0 && !resident.isEmpty()) {
                Long dropped = resident.ceiling(choices.nextLong(keySpace));
                dropped = dropped != null ? dropped : resident.first();
                policy.onRemove(dropped);
                resident.remove(dropped);
            } else if (action == 1) {
                long salt = choices.nextLong(4);
                LongPredicate held = key -> (key + salt) % 4 != 0;
                long victim = checkedSearch(policy, resident, held, log);
                log.heldSearches++;
                log.victims.add(victim);
            }

            long key = stream[step];
            if (resident.contains(key)) {
                policy.onAccess(key);
            } else {
                if (resident.size() >= capacity) {
                    // Hold about a third of the keys, as leases and pending writes would.
                    long salt = choices.nextLong(3);
                    LongPredicate evictable = candidate -> (candidate + salt) % 3 != 0;
                    long victim = checkedSearch(policy, resident, evictable, log);
                    log.heldSearches++;
                    if (victim == ReplacementPolicy.NO_VICTIM) {
                        victim = checkedSearch(policy, resident, candidate -> true, log);
                    }
                    log.victims.add(victim);
                    policy.onRemove(victim);
                    resident.remove(victim);
                    log.realVictims++;
                }
                policy.onInsert(key, step / 4, step % 4);
                resident.add(key);
            }

            assertEquals(resident.size(), policy.size(), "size at step " + step);
            assertTrue(policy.size() <= capacity, "size exceeds capacity at step " + step);
            for (long candidate = 0; candidate < keySpace; candidate++) {
                if (policy.contains(candidate) != resident.contains(candidate)) {
                    throw new AssertionError("contains(" + candidate + ") disagrees with the model at step " + step);
                }
            }
            if (checkEveryStep) {
                policy.checkInvariants();
            }
        }
        policy.checkInvariants();
        return log;
    }

    private static long checkedSearch(ReplacementPolicy policy, TreeSet<Long> resident, LongPredicate evictable,
                                      OperationLog log) {
        long victim = policy.selectVictim(evictable);
        if (victim == ReplacementPolicy.NO_VICTIM) {
            assertTrue(resident.stream().noneMatch(evictable::test),
                    "NO_VICTIM although an evictable key is resident");
        } else {
            assertTrue(resident.contains(victim), "victim " + victim + " is not resident");
            assertTrue(evictable.test(victim), "victim " + victim + " is held");
        }
        return victim;
    }

    /** Delegates to a policy and records the largest size it ever reached after an insert. */
    static final class SizeWatchingPolicy extends ForwardingPolicy {
        int largestSize;

        SizeWatchingPolicy(ReplacementPolicy delegate) {
            super(delegate);
        }

        @Override
        public void onInsert(long key, long groupId, int positionInGroup) {
            super.onInsert(key, groupId, positionInGroup);
            largestSize = Math.max(largestSize, delegate.size());
        }
    }
}
