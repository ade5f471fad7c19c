package tierlab.model.l2;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tierlab.model.geometry.BlockKey;

/**
 * Key → slot map of the L2 tier, with the slot → key map beside it.
 *
 * <p>A store first <em>claims</em> a key on a freshly allocated slot; each tp lane then commits
 * its share, and the key becomes visible to lookups only when every lane has committed. A key that
 * is present (claimed or committed) with identical metadata is not stored again: the first writer
 * wins. Conflicting metadata for a present key is reported, never overwritten.
 *
 * <p>The key map is used only for lookups by key; it cannot even be iterated.
 */
public final class L2Index {

    /** What a store may do with one block. */
    public enum ClaimOutcome { CLAIMED, ALREADY_PRESENT, CONFLICT }

    /** What one lane commit did. */
    public enum CommitOutcome { COMMITTED_LANE, NOW_VISIBLE, LATE_IGNORED }

    /** One indexed block. {@code parent} is the previous key of its chain (ROOT for the first block). */
    public static final class Entry {
        final BlockKey key;
        final BlockKey parent;
        /**
         * The parent's halves beside it: a save checks every block of a prompt against its entry's parent
         * ({@link #canClaim}), and comparing them here spares a pointer chase to a key object that is
         * usually not in the CPU caches.
         */
        final long parentHi;
        final long parentLo;
        final int slot;
        final int tokenCount;
        final long runId;
        int committedLaneMask;
        long version;

        Entry(BlockKey key, BlockKey parent, int slot, int tokenCount, long runId) {
            this.key = key;
            this.parent = parent;
            this.parentHi = parent.hi();
            this.parentLo = parent.lo();
            this.slot = slot;
            this.tokenCount = tokenCount;
            this.runId = runId;
        }

        public BlockKey key() { return key; }
        public BlockKey parent() { return parent; }
        public int slot() { return slot; }
        public int tokenCount() { return tokenCount; }
        public long runId() { return runId; }
        public long version() { return version; }
        public int committedLaneMask() { return committedLaneMask; }
    }

    /** Data form of a committed entry, for snapshots. */
    public record EntryRecord(BlockKey key, BlockKey parent, int slot, int tokenCount, long runId, long version) {}

    private final int tp;
    private final int allLanesMask;
    /** Ablation R12: a block is visible once any lane has committed. */
    private final boolean visibleAfterFirstLane;
    private final BlockKeyMap<Entry> byKey;
    private final Entry[] bySlot;
    private long visibleCount;
    /** Entries removed so far: the only way a visible key stops being visible (commits only add lanes). */
    private long removals;

    public L2Index(int slotCount, int tp) {
        this(slotCount, tp, false);
    }

    public L2Index(int slotCount, int tp, boolean visibleAfterFirstLane) {
        this.tp = (int) tierlab.model.Settings.positive("tp", tp);
        this.allLanesMask = (1 << tp) - 1;
        this.visibleAfterFirstLane = visibleAfterFirstLane;
        if (tp > 30) {
            throw new IllegalArgumentException("tp must be <= 30, was " + tp);
        }
        this.bySlot = new Entry[slotCount];
        this.byKey = new BlockKeyMap<>(slotCount);
    }

    private boolean isVisible(int committedLaneMask) {
        return visibleAfterFirstLane ? committedLaneMask != 0 : committedLaneMask == allLanesMask;
    }

    /** The visible entry for a key, or null if absent or not yet committed on every lane. */
    public Entry visible(BlockKey key) {
        Entry entry = byKey.get(key);
        return entry != null && isVisible(entry.committedLaneMask) ? entry : null;
    }

    /** The entry (claimed or visible) for a key, or null. */
    public Entry entry(BlockKey key) {
        return byKey.get(key);
    }

    public Entry atSlot(int slot) {
        return bySlot[slot];
    }

    /**
     * How many entries {@link #removeSlot} has removed. While it is unchanged, every key that was
     * visible still is (visibility is otherwise only ever gained), which lets a caller keep a
     * conclusion drawn from visible keys without looking them up again.
     */
    public long removals() {
        return removals;
    }

    public long visibleCount() {
        return visibleCount;
    }

    public int size() {
        return byKey.size();
    }

    /** Whether a store may write this block: first writer wins, conflicting metadata is refused. */
    public ClaimOutcome canClaim(BlockKey key, BlockKey parent, int tokenCount) {
        Entry present = byKey.get(key);
        if (present == null) {
            return ClaimOutcome.CLAIMED;
        }
        boolean same = present.tokenCount == tokenCount && present.parentLo == parent.lo() && present.parentHi == parent.hi();
        return same ? ClaimOutcome.ALREADY_PRESENT : ClaimOutcome.CONFLICT;
    }

    /** Claims a free slot for a key; the caller has checked {@link #canClaim}. */
    public void claim(BlockKey key, BlockKey parent, int slot, int tokenCount, long runId) {
        if (bySlot[slot] != null) {
            throw new IllegalStateException("claim of " + key + " at slot " + slot + " over a present entry");
        }
        Entry entry = new Entry(key, parent, slot, tokenCount, runId);
        // One probe both checks for a present entry and inserts (claims come by the hundred thousand in a replay).
        if (!byKey.putIfAbsent(key, entry)) {
            throw new IllegalStateException("claim of " + key + " at slot " + slot + " over a present entry");
        }
        bySlot[slot] = entry;
    }

    /**
     * Records one lane's commit. A commit for a key whose slot has since been re-allocated to
     * another run (or whose entry was evicted) is late: it is ignored and the caller counts it.
     */
    public CommitOutcome commitLane(BlockKey key, int slot, long runId, int lane, long version) {
        Entry entry = bySlot[slot];
        if (entry == null || entry.runId != runId || !entry.key.equals(key)) {
            return CommitOutcome.LATE_IGNORED;
        }
        boolean wasVisible = isVisible(entry.committedLaneMask);
        entry.committedLaneMask |= 1 << lane;
        entry.version = Math.max(entry.version, version);
        if (!wasVisible && isVisible(entry.committedLaneMask)) {
            visibleCount++;
            return CommitOutcome.NOW_VISIBLE;
        }
        return CommitOutcome.COMMITTED_LANE;
    }

    /** Removes the entry on a slot (its run was evicted or its store dropped). Returns it, or null. */
    public Entry removeSlot(int slot) {
        Entry entry = bySlot[slot];
        if (entry == null) {
            return null;
        }
        bySlot[slot] = null;
        byKey.remove(entry.key);
        removals++;
        if (isVisible(entry.committedLaneMask)) {
            visibleCount--;
        }
        return entry;
    }

    /**
     * Slots holding visible keys that no lookup can reach because an ancestor of theirs is absent.
     * Computed on demand in slot order (the ring reclaims them eventually).
     */
    public long deadSlotCount() {
        Map<BlockKey, Boolean> reachable = new HashMap<>();
        long dead = 0;
        for (Entry entry : bySlot) {
            if (entry != null && isVisible(entry.committedLaneMask) && !isReachable(entry, reachable)) {
                dead++;
            }
        }
        return dead;
    }

    private boolean isReachable(Entry start, Map<BlockKey, Boolean> memo) {
        List<Entry> path = new ArrayList<>();
        Entry current = start;
        boolean reachable;
        while (true) {
            Boolean known = memo.get(current.key);
            if (known != null) {
                reachable = known;
                break;
            }
            path.add(current);
            if (current.parent.equals(BlockKey.ROOT)) {
                reachable = true;
                break;
            }
            Entry parent = visible(current.parent);
            if (parent == null) {
                reachable = false;
                break;
            }
            current = parent;
        }
        for (Entry onPath : path) {
            memo.put(onPath.key, reachable);
        }
        return reachable;
    }

    /** Committed entries in slot order, as data. */
    public List<EntryRecord> visibleRecords() {
        List<EntryRecord> records = new ArrayList<>();
        for (Entry entry : bySlot) {
            if (entry != null && isVisible(entry.committedLaneMask)) {
                records.add(new EntryRecord(entry.key, entry.parent, entry.slot, entry.tokenCount, entry.runId, entry.version));
            }
        }
        return records;
    }

    /** Puts back a committed entry from a snapshot. */
    public void restoreVisible(EntryRecord record) {
        claim(record.key(), record.parent(), record.slot(), record.tokenCount(), record.runId());
        Entry entry = byKey.get(record.key());
        entry.committedLaneMask = allLanesMask;
        entry.version = record.version();
        visibleCount++;
    }

    /** I2 for the index: key map and slot map agree, and every entry's slot is owned by its run. */
    public void checkInvariants(L2Ring ring) {
        long slotEntries = 0;
        long visible = 0;
        for (int slot = 0; slot < bySlot.length; slot++) {
            Entry entry = bySlot[slot];
            if (entry == null) {
                continue;
            }
            slotEntries++;
            if (entry.slot != slot || byKey.get(entry.key) != entry) {
                throw new IllegalStateException("I2: index and slot map disagree at slot " + slot);
            }
            if (ring.ownerOf(slot) != entry.runId) {
                throw new IllegalStateException("I2: key " + entry.key + " at slot " + slot + " belongs to run "
                        + entry.runId + " but the ring says " + ring.ownerOf(slot));
            }
            if (isVisible(entry.committedLaneMask)) {
                visible++;
            }
        }
        if (slotEntries != byKey.size()) {
            throw new IllegalStateException("I2: " + byKey.size() + " keys but " + slotEntries + " slots hold entries");
        }
        if (visible != visibleCount) {
            throw new IllegalStateException("I2: visible count " + visibleCount + " but " + visible + " entries are visible");
        }
    }

    public int tp() {
        return tp;
    }
}
