package tierlab.model.util;

import java.util.Objects;

/**
 * An open-addressing hash map from {@code long} keys to non-null values: the policies find a key's
 * node with it, the payload ledger a position's content. It avoids the boxing and entry objects of
 * {@code HashMap<Long, V>}, which matter on the {@code lru} hot path and for every lane of every copy.
 *
 * <p>Linear probing over a power-of-two table; a {@code null} value marks an empty slot (so values
 * are never null); removal uses backward-shift deletion, so there are no tombstones and probe
 * chains never degrade. The map deliberately offers no iteration: callers take every decision
 * from their own ordered lists, never from hash order.
 */
public final class LongMap<V> {

    private static final int MIN_TABLE_SIZE = 16;
    private static final int MAX_TABLE_SIZE = 1 << 30;

    private long[] keys;
    private Object[] values;
    private int mask;
    private int size;
    private int growAtSize;

    public LongMap() {
        allocate(MIN_TABLE_SIZE);
    }

    public int size() {
        return size;
    }

    /** The value stored for {@code key}, or {@code null}. */
    @SuppressWarnings("unchecked")
    public V get(long key) {
        int slot = find(key);
        return slot >= 0 ? (V) values[slot] : null;
    }

    /**
     * Stores {@code value} unless the key is present already; returns the existing value in that
     * case (and changes nothing), else {@code null}. One probe serves both the check and the insert.
     */
    @SuppressWarnings("unchecked")
    public V putIfAbsent(long key, V value) {
        Objects.requireNonNull(value, "value");
        int slot = find(key);
        if (slot >= 0) {
            return (V) values[slot];
        }
        insertAt(-slot - 1, key, value);
        return null;
    }

    /** Removes the key and returns its value, or {@code null} if it was absent. */
    @SuppressWarnings("unchecked")
    public V remove(long key) {
        int slot = find(key);
        if (slot < 0) {
            return null;
        }
        V value = (V) values[slot];
        deleteAt(slot);
        return value;
    }

    /** Stores {@code value} at {@code key}, replacing what was there. */
    public void put(long key, V value) {
        Objects.requireNonNull(value, "value");
        int slot = find(key);
        if (slot >= 0) {
            values[slot] = value;
        } else {
            insertAt(-slot - 1, key, value);
        }
    }

    /** The slot holding {@code key}, or {@code -(empty slot) - 1} for the slot where it would go. */
    private int find(long key) {
        int slot = home(key);
        while (values[slot] != null) {
            if (keys[slot] == key) {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
        return -slot - 1;
    }

    private void insertAt(int slot, long key, V value) {
        keys[slot] = key;
        values[slot] = value;
        if (++size > growAtSize) {
            grow();
        }
    }

    /**
     * Every value, in table order: an order that depends on the keys' hashes and the insertion
     * history, so a caller sorts before it decides anything from it (the store's invariant check
     * sorts slices by pool offset). Costs a pass over the table; not for hot paths.
     */
    @SuppressWarnings("unchecked")
    public java.util.List<V> valuesInTableOrder() {
        java.util.List<V> all = new java.util.ArrayList<>(size);
        for (Object value : values) {
            if (value != null) {
                all.add((V) value);
            }
        }
        return all;
    }

    /** Empties the map (and gives back a large table's memory). */
    public void clear() {
        allocate(MIN_TABLE_SIZE);
        size = 0;
    }

    /**
     * Backward-shift deletion: later entries of the same probe run move into the gap when the gap
     * lies between their home slot and their current slot (cyclically), so every remaining key stays
     * reachable from its home without tombstones.
     */
    private void deleteAt(int slot) {
        int gap = slot;
        int probe = slot;
        while (true) {
            probe = (probe + 1) & mask;
            if (values[probe] == null) {
                break;
            }
            int probeHome = home(keys[probe]);
            if (((probe - probeHome) & mask) >= ((probe - gap) & mask)) {
                keys[gap] = keys[probe];
                values[gap] = values[probe];
                gap = probe;
            }
        }
        values[gap] = null;
        size--;
    }

    private void grow() {
        if (keys.length >= MAX_TABLE_SIZE) {
            throw new IllegalStateException("LongNodeMap: more than " + growAtSize + " keys");
        }
        long[] oldKeys = keys;
        Object[] oldValues = values;
        allocate(oldKeys.length * 2);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                int slot = home(oldKeys[i]);
                while (values[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = oldKeys[i];
                values[slot] = oldValues[i];
            }
        }
    }

    private void allocate(int tableSize) {
        keys = new long[tableSize];
        values = new Object[tableSize];
        mask = tableSize - 1;
        // A load factor of 0.6 keeps linear probe runs short while costing far less than chaining.
        growAtSize = (int) ((long) tableSize * 3 / 5);
    }

    /**
     * The home slot: MurmurHash3's 64-bit finaliser, so keys that differ only in high bits (L2 byte
     * offsets are multiples of the block size) still spread over the table. Pure arithmetic, so the
     * layout is the same on every run.
     */
    private int home(long key) {
        long h = key;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) h & mask;
    }
}
