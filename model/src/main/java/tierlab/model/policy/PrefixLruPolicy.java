package tierlab.model.policy;

import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import tierlab.model.util.OffsetTable;

/**
 * Prefix-aware LRU for grouped stores (section 6 of the spec): keys are ordered by
 * (group epoch, −position in the prefix, insertion sequence) and the smallest is evicted first.
 *
 * <ul>
 *   <li>All keys a group (a request, or one grouped store) inserts share the epoch that the group's
 *       first insert drew from a counter, so an older request's keys go before a newer one's.</li>
 *   <li>Within a group the larger position goes first: the suffix of a prefix is evicted before the
 *       prefix it depends on, because a suffix block without its prefix can never be hit.</li>
 *   <li>An access gives that key alone a fresh epoch (its position is kept), which makes it the
 *       newest key without dragging the rest of its group along.</li>
 * </ul>
 *
 * <p>A group's epoch is remembered while at least one key still carries it; after that the group
 * is forgotten, so a later insert under the same group id starts a new, newer group. This keeps
 * memory bounded when every insert is its own group (as in the single-block cache replay).
 */
public final class PrefixLruPolicy extends NamedPolicy {

    public static final String NAME = "prefix-lru";

    /** A key's place in eviction order; {@code insertionSeq} is unique, so ranks never tie. */
    private record Rank(long epoch, int position, long insertionSeq, long key) implements Comparable<Rank> {
        @Override
        public int compareTo(Rank other) {
            int byEpoch = Long.compare(epoch, other.epoch);
            if (byEpoch != 0) {
                return byEpoch;
            }
            // Larger positions first: the order is by −position, written without negation so
            // Integer.MIN_VALUE cannot overflow.
            int byPosition = Integer.compare(other.position, position);
            if (byPosition != 0) {
                return byPosition;
            }
            return Long.compare(insertionSeq, other.insertionSeq);
        }
    }

    /** A group whose epoch is still carried by {@code keysWithEpoch} resident keys. */
    private static final class Group {
        final long groupId;
        final long epoch;
        int keysWithEpoch;

        Group(long groupId, long epoch) {
            this.groupId = groupId;
            this.epoch = epoch;
        }
    }

    /** A resident key: its current rank and the group whose epoch it still carries (null after an access). */
    private static final class Resident {
        Rank rank;
        Group group;

        Resident(Rank rank, Group group) {
            this.rank = rank;
            this.group = group;
        }
    }

    private final TreeSet<Rank> evictionOrder = new TreeSet<>();
    private final OffsetTable<Resident> residentsByKey = new OffsetTable<>(1);
    private final OffsetTable<Group> groupsById = new OffsetTable<>(1);
    private long nextEpoch;
    private long nextInsertionSeq;

    public PrefixLruPolicy() {
        super(NAME);
    }

    @Override
    void insert(long key, long groupId, int positionInGroup) {
        if (residentsByKey.get(key) != null) {
            throw PolicyPreconditions.alreadyResident(NAME, key);
        }
        Group group = groupsById.get(groupId);
        if (group == null) {
            group = new Group(groupId, nextEpoch++);
            groupsById.putIfAbsent(groupId, group);
        }
        group.keysWithEpoch++;
        Rank rank = new Rank(group.epoch, positionInGroup, nextInsertionSeq++, key);
        evictionOrder.add(rank);
        residentsByKey.putIfAbsent(key, new Resident(rank, group));
    }

    @Override
    public void onAccess(long key) {
        Resident resident = residentsByKey.get(key);
        if (resident == null) {
            throw PolicyPreconditions.notResident(NAME, "onAccess", key);
        }
        leaveGroup(resident);
        evictionOrder.remove(resident.rank);
        Rank previous = resident.rank;
        resident.rank = new Rank(nextEpoch++, previous.position(), previous.insertionSeq(), key);
        evictionOrder.add(resident.rank);
    }

    @Override
    public void onRemove(long key) {
        Resident resident = residentsByKey.remove(key);
        if (resident == null) {
            throw PolicyPreconditions.notResident(NAME, "onRemove", key);
        }
        leaveGroup(resident);
        evictionOrder.remove(resident.rank);
    }

    /** The key no longer carries its group's epoch; the last key to leave forgets the group. */
    private void leaveGroup(Resident resident) {
        Group group = resident.group;
        if (group == null) {
            return;
        }
        resident.group = null;
        if (--group.keysWithEpoch == 0) {
            groupsById.remove(group.groupId);
        }
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        for (Rank rank : evictionOrder) {
            if (evictable.test(rank.key())) {
                return rank.key();
            }
        }
        return NO_VICTIM;
    }

    @Override
    public boolean contains(long key) {
        return residentsByKey.get(key) != null;
    }

    @Override
    public int size() {
        return residentsByKey.size();
    }

    @Override
    public void checkInvariants() {
        if (evictionOrder.size() != residentsByKey.size()) {
            throw new IllegalStateException(NAME + ": eviction order holds " + evictionOrder.size()
                    + " keys but the lookup map holds " + residentsByKey.size());
        }
        // Count, per group id, the keys that still carry the group's epoch.
        TreeMap<Long, int[]> keysPerGroup = new TreeMap<>();
        for (Rank rank : evictionOrder) {
            Resident resident = residentsByKey.get(rank.key());
            if (resident == null || resident.rank != rank) {
                throw new IllegalStateException(NAME + ": key " + rank.key()
                        + " is in the eviction order but its resident entry disagrees");
            }
            if (rank.epoch() >= nextEpoch || rank.insertionSeq() >= nextInsertionSeq) {
                throw new IllegalStateException(NAME + ": key " + rank.key() + " has a rank from the future");
            }
            Group group = resident.group;
            if (group != null) {
                if (group.epoch != rank.epoch()) {
                    throw new IllegalStateException(NAME + ": key " + rank.key()
                            + " belongs to group " + group.groupId + " but does not carry its epoch");
                }
                if (groupsById.get(group.groupId) != group) {
                    throw new IllegalStateException(NAME + ": group " + group.groupId + " is not registered");
                }
                keysPerGroup.computeIfAbsent(group.groupId, id -> new int[1])[0]++;
            }
        }
        if (keysPerGroup.size() != groupsById.size()) {
            throw new IllegalStateException(NAME + ": " + groupsById.size()
                    + " groups are registered but " + keysPerGroup.size() + " have resident keys");
        }
        for (Rank rank : evictionOrder) {
            Group group = residentsByKey.get(rank.key()).group;
            if (group != null && keysPerGroup.get(group.groupId)[0] != group.keysWithEpoch) {
                throw new IllegalStateException(NAME + ": group " + group.groupId + " counts "
                        + group.keysWithEpoch + " keys but " + keysPerGroup.get(group.groupId)[0]
                        + " carry its epoch");
            }
        }
    }
}
