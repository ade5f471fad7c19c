package tierlab.model.policy;

import java.util.Arrays;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import tierlab.model.util.LongMap;

/**
 * Belady's MIN, the offline optimum: evict the key whose next use lies farthest in the future.
 * It needs the whole future reference stream, so it cannot run in a real store; it exists to draw
 * the upper bound on hit ratio in charts (no online policy can beat it on the same trace, under
 * demand insertion of every miss).
 *
 * <p>Every {@link #onInsert} and {@link #onAccess} consumes one reference: the next one expected
 * is {@code references[cursor]}. When the key passed is that one, the cursor simply advances. When
 * it differs (the caller skipped or reordered references), the policy resynchronises: it finds the
 * key's first occurrence at or after the cursor (binary search over the key's sorted positions)
 * and moves the cursor just past it; if the key never occurs again, the cursor stays and the key's
 * next use is "never" ({@link #NEVER}, treated as +infinity). A resident key whose recorded next
 * use the cursor has jumped over is looked up again, lazily, before the next victim search.
 *
 * <p>Ties (in practice: several keys never used again) go to the larger key, so the choice is
 * deterministic. The reference array is shared with the caller, not copied; it must not change.
 */
public final class BeladyPolicy extends NamedPolicy {

    public static final String NAME = "belady";

    /** The next use of a key that is never referenced again. */
    public static final long NEVER = Long.MAX_VALUE;

    /** A resident key ordered by its next use; the last element is the next victim. */
    private record Rank(long nextUse, long key) implements Comparable<Rank> {
        @Override
        public int compareTo(Rank other) {
            int byNextUse = Long.compare(nextUse, other.nextUse);
            return byNextUse != 0 ? byNextUse : Long.compare(key, other.key);
        }
    }

    /** The sorted positions at which one key occurs in the reference stream. */
    private static final class Occurrences {
        int count;
        int[] positions;
    }

    private final long[] references;
    private final LongMap<Occurrences> occurrencesByKey = new LongMap<>();
    private final TreeSet<Rank> byNextUse = new TreeSet<>();
    private final LongMap<Rank> rankByKey = new LongMap<>();
    /** Index of the next expected reference; equals references.length when the stream is used up. */
    private int cursor;

    public BeladyPolicy(long[] references) {
        super(NAME);
        if (references == null) {
            throw new IllegalArgumentException("policy 'belady' needs futureReferences (the future trace)");
        }
        this.references = references;
        // Two passes: count each key's occurrences, then fill exactly sized arrays in stream order,
        // so the positions come out sorted without a sort.
        for (long key : references) {
            Occurrences occurrences = occurrencesByKey.get(key);
            if (occurrences == null) {
                occurrences = new Occurrences();
                occurrencesByKey.putIfAbsent(key, occurrences);
            }
            occurrences.count++;
        }
        for (int position = 0; position < references.length; position++) {
            Occurrences occurrences = occurrencesByKey.get(references[position]);
            if (occurrences.positions == null) {
                occurrences.positions = new int[occurrences.count];
                occurrences.count = 0;
            }
            occurrences.positions[occurrences.count++] = position;
        }
    }

    /** Index of the next expected reference in the future stream. */
    public int cursor() {
        return cursor;
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        if (rankByKey.get(key) != null) {
            throw PolicyPreconditions.alreadyResident(NAME, key);
        }
        Rank rank = new Rank(consume(key), key);
        byNextUse.add(rank);
        rankByKey.putIfAbsent(key, rank);
    }

    @Override
    public void onAccess(long key) {
        Rank previous = rankByKey.remove(key);
        if (previous == null) {
            throw PolicyPreconditions.notResident(NAME, "onAccess", key);
        }
        byNextUse.remove(previous);
        Rank rank = new Rank(consume(key), key);
        byNextUse.add(rank);
        rankByKey.putIfAbsent(key, rank);
    }

    @Override
    public void onRemove(long key) {
        Rank rank = rankByKey.remove(key);
        if (rank == null) {
            throw PolicyPreconditions.notResident(NAME, "onRemove", key);
        }
        byNextUse.remove(rank);
    }

    /** Consumes one reference to {@code key} (resynchronising if needed) and returns its next use after it. */
    private long consume(long key) {
        Occurrences occurrences = occurrencesByKey.get(key);
        if (occurrences == null) {
            return NEVER;
        }
        int[] positions = occurrences.positions;
        int index = firstIndexAtOrAfter(positions, cursor);
        if (index == positions.length) {
            return NEVER;
        }
        cursor = positions[index] + 1;
        return index + 1 < positions.length ? positions[index + 1] : NEVER;
    }

    /** The index of the first position >= {@code from}, or {@code positions.length} if there is none. */
    private static int firstIndexAtOrAfter(int[] positions, int from) {
        int found = Arrays.binarySearch(positions, from);
        return found >= 0 ? found : -found - 1;
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        refreshOverdueRanks();
        for (Rank rank : byNextUse.descendingSet()) {
            if (evictable.test(rank.key())) {
                return rank.key();
            }
        }
        return NO_VICTIM;
    }

    /**
     * After a resynchronisation the cursor may have jumped past a resident key's recorded next use;
     * that key's real next use is its first occurrence at or after the cursor. Overdue ranks are the
     * smallest ones, so they are found at the front of the set.
     */
    private void refreshOverdueRanks() {
        while (!byNextUse.isEmpty() && byNextUse.first().nextUse() < cursor) {
            Rank overdue = byNextUse.pollFirst();
            int[] positions = occurrencesByKey.get(overdue.key()).positions;
            int index = firstIndexAtOrAfter(positions, cursor);
            Rank refreshed = new Rank(index == positions.length ? NEVER : positions[index], overdue.key());
            byNextUse.add(refreshed);
            rankByKey.remove(overdue.key());
            rankByKey.putIfAbsent(overdue.key(), refreshed);
        }
    }

    @Override
    public boolean contains(long key) {
        return rankByKey.get(key) != null;
    }

    @Override
    public int size() {
        return rankByKey.size();
    }

    @Override
    public void checkInvariants() {
        if (byNextUse.size() != rankByKey.size()) {
            throw new IllegalStateException(NAME + ": next-use order holds " + byNextUse.size()
                    + " keys but the lookup map holds " + rankByKey.size());
        }
        if (cursor < 0 || cursor > references.length) {
            throw new IllegalStateException(NAME + ": cursor " + cursor + " is outside [0, "
                    + references.length + "]");
        }
        for (Rank rank : byNextUse) {
            if (rankByKey.get(rank.key()) != rank) {
                throw new IllegalStateException(NAME + ": key " + rank.key()
                        + " is in the next-use order but the lookup map disagrees");
            }
            if (rank.nextUse() != NEVER
                    && (rank.nextUse() >= references.length || references[(int) rank.nextUse()] != rank.key())) {
                throw new IllegalStateException(NAME + ": key " + rank.key() + " claims next use at "
                        + rank.nextUse() + " where the trace holds another key");
            }
        }
    }

    @Override
    public String toString() {
        return NAME + "[cursor " + cursor + " of " + references.length + ", " + size() + " resident]";
    }
}
