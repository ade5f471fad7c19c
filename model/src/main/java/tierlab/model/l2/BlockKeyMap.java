package tierlab.model.l2;

import tierlab.model.geometry.BlockKey;

/**
 * Open-addressing hash map from {@link BlockKey} to a value, with the keys' two halves stored
 * inline in parallel {@code long} arrays. A lookup probes those arrays directly instead of
 * following a node and a key object, which is what makes a 64-block lookup walk cheap.
 *
 * <p>Linear probing over a power-of-two table kept at most half full; removal shifts later
 * entries of the same probe run back (no tombstones). Keys are SHA-256 prefixes, so their low
 * bits are already uniform. There is no iteration: callers that need order keep their own.
 */
final class BlockKeyMap<V> {
    private long[] his;
    private long[] los;
    private Object[] values;
    private int mask;
    private int size;

    BlockKeyMap(int expectedSize) {
        int capacity = Integer.highestOneBit(Math.max(16, expectedSize * 2 - 1)) << 1;
        allocate(capacity);
    }

    private void allocate(int capacity) {
        his = new long[capacity];
        los = new long[capacity];
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
            if (los[i] == lo && his[i] == hi) {
                return (V) value;
            }
        }
    }

    boolean containsKey(BlockKey key) {
        return get(key) != null;
    }

    /** Maps the key to a non-null value, replacing any previous one. */
    void put(BlockKey key, V value) {
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
                his[i] = hi;
                los[i] = lo;
                values[i] = value;
                size++;
                return;
            }
            if (los[i] == lo && his[i] == hi) {
                values[i] = value;
                return;
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
            if (los[i] == lo && his[i] == hi) {
                break;
            }
            i = (i + 1) & mask;
        }
        values[i] = null;
        size--;
        // Backward shift: move later members of the run into the hole when their home allows it.
        int hole = i;
        for (int j = (hole + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int homeOfJ = home(los[j]);
            boolean movable = hole <= j ? (homeOfJ <= hole || homeOfJ > j) : (homeOfJ <= hole && homeOfJ > j);
            if (movable) {
                his[hole] = his[j];
                los[hole] = los[j];
                values[hole] = values[j];
                values[j] = null;
                hole = j;
            }
        }
    }

    private void grow() {
        long[] oldHis = his;
        long[] oldLos = los;
        Object[] oldValues = values;
        allocate(oldValues.length * 2);
        size = 0;
        for (int i = 0; i < oldValues.length; i++) {
            if (oldValues[i] != null) {
                put(new BlockKey(oldHis[i], oldLos[i]), castValue(oldValues[i]));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private V castValue(Object value) {
        return (V) value;
    }
}
