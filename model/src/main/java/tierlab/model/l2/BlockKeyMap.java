package tierlab.model.l2;

import tierlab.model.geometry.BlockKey;

/**
 * Open-addressing hash map from {@link BlockKey} to a value, with the keys' two halves stored
 * inline in a {@code long} array. A lookup probes that array directly instead of
 * following a node and a key object, which is what makes a 64-block lookup walk cheap.
 *
 * <p>Linear probing over a power-of-two table kept at most half full; removal shifts later
 * entries of the same probe run back (no tombstones). Keys are SHA-256 prefixes, so their low
 * bits are already uniform. There is no iteration: callers that need order keep their own.
 */
final class BlockKeyMap<V> {
    /**
     * The keys' halves side by side: slot {@code i} holds {@code hi} at {@code 2i} and {@code lo}
     * at {@code 2i + 1}, so one probe reads one cache line for the key (the index of a 4 TiB L2
     * outgrows the CPU caches, and its lookups are cache misses).
     */
    private long[] halves;
    private Object[] values;
    private int mask;
    private int size;

    BlockKeyMap(int expectedSize) {
        int capacity = Integer.highestOneBit(Math.max(16, expectedSize * 2 - 1)) << 1;
        allocate(capacity);
    }

    private void allocate(int capacity) {
        halves = new long[2 * capacity];
        values = new Object[capacity];
        mask = capacity - 1;
    }

    private int home(long lo) {
        return (int) (lo ^ (lo >>> 32)) & mask;
    }

    int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    V get(BlockKey key) {
        long hi = key.hi();
        long lo = key.lo();
        for (int i = home(lo); ; i = (i + 1) & mask) {
            Object value = values[i];
            if (value == null) {
                return null;
            }
            if (halves[2 * i + 1] == lo && halves[2 * i] == hi) {
                return (V) value;
            }
        }
    }

    boolean containsKey(BlockKey key) {
        return get(key) != null;
    }

    /** Maps the key to a non-null value, replacing any previous one. */
    void put(BlockKey key, V value) {
        insert(key, value, true);
    }

    /**
     * Maps the key to a non-null value unless it is already mapped: one probe run where
     * {@code containsKey} then {@code put} walk it twice. Returns whether the value went in.
     */
    boolean putIfAbsent(BlockKey key, V value) {
        return insert(key, value, false);
    }

    /** One probe run: an empty slot takes the key (true); the key's own slot is replaced or kept (false). */
    private boolean insert(BlockKey key, V value, boolean replace) {
        if (value == null) {
            throw new IllegalArgumentException("null value for " + key);
        }
        if ((size + 1) * 2 > values.length) {
            grow();
        }
        long hi = key.hi();
        long lo = key.lo();
        for (int i = home(lo); ; i = (i + 1) & mask) {
            if (values[i] == null) {
                halves[2 * i] = hi;
                halves[2 * i + 1] = lo;
                values[i] = value;
                size++;
                return true;
            }
            if (halves[2 * i + 1] == lo && halves[2 * i] == hi) {
                if (replace) {
                    values[i] = value;
                }
                return false;
            }
        }
    }

    /** Removes the key's mapping, if any, and closes the gap in its probe run. */
    void remove(BlockKey key) {
        long hi = key.hi();
        long lo = key.lo();
        int i = home(lo);
        while (true) {
            if (values[i] == null) {
                return;
            }
            if (halves[2 * i + 1] == lo && halves[2 * i] == hi) {
                break;
            }
            i = (i + 1) & mask;
        }
        values[i] = null;
        size--;
        // Backward shift: move later members of the run into the hole when their home allows it.
        int hole = i;
        for (int j = (hole + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int homeOfJ = home(halves[2 * j + 1]);
            boolean movable = hole <= j ? (homeOfJ <= hole || homeOfJ > j) : (homeOfJ <= hole && homeOfJ > j);
            if (movable) {
                halves[2 * hole] = halves[2 * j];
                halves[2 * hole + 1] = halves[2 * j + 1];
                values[hole] = values[j];
                values[j] = null;
                hole = j;
            }
        }
    }

    private void grow() {
        long[] oldHalves = halves;
        Object[] oldValues = values;
        allocate(oldValues.length * 2);
        size = 0;
        for (int i = 0; i < oldValues.length; i++) {
            if (oldValues[i] != null) {
                put(new BlockKey(oldHalves[2 * i], oldHalves[2 * i + 1]), castValue(oldValues[i]));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private V castValue(Object value) {
        return (V) value;
    }
}
